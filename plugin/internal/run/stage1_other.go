//go:build !amd64

package run

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, and
// its open and close masks to 0 (a loose read's brackets are
// stageLoose's); len(b) is 64*len(out).
func stageMasks(b []byte, out []stageBlock) { stageMasksWords(b, out, false) }

// stageLoose stages b for a loose read, as looseMasks says, into out
// and returns how many blocks with brackets it listed in found.
func stageLoose(b []byte, out []stageBlock, found []int32, first int, st *looseState) int {
	stageMasksWords(b, out, true)
	return looseMasks(out, found, first, st)
}
