//go:build !amd64

package run

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, and
// its open and close masks to 0; len(b) is 64*len(out).
func stageMasks(b []byte, out []stageBlock) { stageMasksWords(b, out, false) }

// looseSkip is looseSkipWords.
func looseSkip(b []byte, st *skipState) int { return looseSkipWords(b, st) }
