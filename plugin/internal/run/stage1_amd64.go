package run

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, with
// SSE2; len(b) is 64*len(out).
//
//go:noescape
func stageMasks(b []byte, out []stageBlock)
