package run

import "golang.org/x/sys/cpu"

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, and
// its open and close masks to 0 (a loose read's brackets are stageLoose's),
// with AVX2 where the processor has it and SSE2 (which every amd64
// processor has) elsewhere; len(b) is 64*len(out).
func stageMasks(b []byte, out []stageBlock) {
	if cpu.X86.HasAVX2 {
		stageMasksAVX2(b, out)
		return
	}
	stageMasksSSE2(b, out, false)
}

// stageLoose stages b for a loose read, as looseMasks says, into out
// and returns how many blocks with brackets it listed in found: in one
// pass of AVX2 (and a carry-less multiply for the prefix XOR) where the
// processor has them, else by stageMasks and looseMasks.
func stageLoose(b []byte, out []stageBlock, found []int32, first int, st *looseState) int {
	if cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ {
		return stageLooseAVX2(b, out, found, first, st)
	}
	stageMasksSSE2(b, out, true)
	return looseMasks(out, found, first, st)
}

//go:noescape
func stageLooseAVX2(b []byte, out []stageBlock, found []int32, first int, st *looseState) int

// stageMasksSSE2 is stageMasksWords.
//
//go:noescape
func stageMasksSSE2(b []byte, out []stageBlock, brackets bool)

// stageMasksAVX2 is stageMasksWords without brackets.
//
//go:noescape
func stageMasksAVX2(b []byte, out []stageBlock)
