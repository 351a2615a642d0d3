//go:build !purego

package run

import "golang.org/x/sys/cpu"

// stageChunk is stageChunkWords: in one pass of AVX2 where the processor
// has it, else the raw masks by SSE2 (which every amd64 processor has)
// and stageEscapes.
func stageChunk(b []byte, out []stageBlock, carry *uint64) {
	if cpu.X86.HasAVX2 {
		stageAVX2(b, out, carry)
		return
	}
	stageMasksSSE2(b, out)
	stageEscapes(b, out, carry)
}

// looseSkip is looseSkipWords, in one pass of AVX2 (and a carry-less
// multiply for the prefix XOR) where the processor has them.
func looseSkip(b []byte, st *skipState) int {
	if looseAVX2 {
		return looseSkipAVX2(b, st)
	}
	return looseSkipWords(b, st)
}

// looseAVX2 tells whether the processor has what looseSkipAVX2 needs.
var looseAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT

// memberSpans is memberSpansWords, in assembly with AVX2 (its nested
// values by looseSkipAVX2) where the processor has what looseSkipAVX2
// needs.
func memberSpans(b []byte, i int, names *nameSet, out []memberSpan) (n, next int) {
	if looseAVX2 {
		return memberSpansAVX2(b, i, names, out)
	}
	return memberSpansWords(b, i, names, out)
}

// memberSpansAVX2 takes a nested value's first stageRun*64 bytes at most,
// and members that start that far at most: 32768, written in it (this
// fails to compile when they differ).
var _ = [1]struct{}{}[stageRun*64-32768]

//go:noescape
func memberSpansAVX2(b []byte, i int, names *nameSet, out []memberSpan) (n, next int)

//go:noescape
func looseSkipAVX2(b []byte, st *skipState) int

// stageMasksSSE2 is stageMasksWords without brackets.
//
//go:noescape
func stageMasksSSE2(b []byte, out []stageBlock)

// stageAVX2 is stageChunkWords.
//
//go:noescape
func stageAVX2(b []byte, out []stageBlock, carry *uint64)
