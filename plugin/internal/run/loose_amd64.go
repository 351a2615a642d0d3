package run

import "golang.org/x/sys/cpu"

// blockMasks returns one bit for each of the 64 bytes at p (the lowest for
// the first) that is a quote, a backslash, an opening bracket ('{' or
// '[') or a closing one, with SSE2, which every amd64 processor has.
//
//go:noescape
func blockMasks(p *[64]byte) (quote, backslash, open, close uint64)

// looseBlocksAsm is looseBlocksWords in assembly: with avx2, AVX2 and
// PCLMULQDQ, else SSE2 only.
//
//go:noescape
func looseBlocksAsm(b []byte, i int, st *looseState, avx2 bool) (int, bool)

// hasAVX2 tells whether looseBlocks may use AVX2 and PCLMULQDQ.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ

// looseBlocks runs looseEnd over the whole blocks of b from i, as
// looseBlocksWords does: it returns the index just past the closing
// bracket and true, or the start of the last part shorter than a block and
// false, st then carried over.
func looseBlocks(b []byte, i int, st *looseState) (int, bool) {
	return looseBlocksAsm(b, i, st, hasAVX2)
}
