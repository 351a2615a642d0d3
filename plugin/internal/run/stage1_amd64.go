package run

import "golang.org/x/sys/cpu"

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, and
// its open and close masks to 0, with AVX2 where the processor has it
// and SSE2 (which every amd64 processor has) elsewhere; len(b) is
// 64*len(out).
func stageMasks(b []byte, out []stageBlock) {
	if cpu.X86.HasAVX2 {
		stageMasksAVX2(b, out)
		return
	}
	stageMasksSSE2(b, out)
}

// looseSkip is looseSkipWords, in one pass of AVX2 (and a carry-less
// multiply for the prefix XOR) where the processor has them.
func looseSkip(b []byte, st *skipState) int {
	if cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT {
		return looseSkipAVX2(b, st)
	}
	return looseSkipWords(b, st)
}

//go:noescape
func looseSkipAVX2(b []byte, st *skipState) int

// stageMasksSSE2 is stageMasksWords without brackets.
//
//go:noescape
func stageMasksSSE2(b []byte, out []stageBlock)

// stageMasksAVX2 is stageMasksWords without brackets.
//
//go:noescape
func stageMasksAVX2(b []byte, out []stageBlock)
