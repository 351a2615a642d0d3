//go:build !amd64

package run

// blockMasks returns one bit for each of the 64 bytes at p (the lowest for
// the first) that is a quote, a backslash, an opening bracket ('{' or
// '[') or a closing one.
func blockMasks(p *[64]byte) (quote, backslash, open, close uint64) {
	return blockMasksWords(p)
}

// looseBlocks runs looseEnd over the whole blocks of b from i: it returns
// the index just past the closing bracket and true, or the start of the
// last part shorter than a block and false, st then carried over.
func looseBlocks(b []byte, i int, st *looseState) (int, bool) {
	return looseBlocksWords(b, i, st)
}
