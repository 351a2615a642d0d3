package run

import "golang.org/x/sys/cpu"

// stageMasks sets each block's quote, special and escaped masks to the
// quotes, control characters and backslashes of its 64 bytes of b, with
// AVX2 where the processor has it and SSE2 (which every amd64 processor
// has) elsewhere; len(b) is 64*len(out).
func stageMasks(b []byte, out []stageBlock) {
	if cpu.X86.HasAVX2 {
		stageMasksAVX2(b, out)
		return
	}
	stageMasksSSE2(b, out)
}

//go:noescape
func stageMasksSSE2(b []byte, out []stageBlock)

//go:noescape
func stageMasksAVX2(b []byte, out []stageBlock)

// bracketMasks sets each block's open and close masks to the brackets of
// its 64 bytes of b, with AVX2 where the processor has it and SSE2
// elsewhere; len(b) is 64*len(out).
func bracketMasks(b []byte, out []stageBlock) {
	if cpu.X86.HasAVX2 {
		bracketMasksAVX2(b, out)
		return
	}
	bracketMasksSSE2(b, out)
}

//go:noescape
func bracketMasksSSE2(b []byte, out []stageBlock)

//go:noescape
func bracketMasksAVX2(b []byte, out []stageBlock)
