//go:build !amd64

package run

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b;
// len(b) is 64*len(out).
func stageMasks(b []byte, out []stageBlock) { stageMasksWords(b, out) }

// bracketMasks sets each block's open and close masks to the brackets of
// its 64 bytes of b; len(b) is 64*len(out).
func bracketMasks(b []byte, out []stageBlock) { bracketMasksWords(b, out) }
