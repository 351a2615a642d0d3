//go:build !purego

package run

import (
	"iter"

	"golang.org/x/sys/cpu"
)

// scanModes runs stringScan with SSE2 and, where the processor has it,
// with AVX2, yielding the name of each.
func scanModes() iter.Seq[string] {
	return func(yield func(string) bool) {
		defer func() { scanAVX2 = cpu.X86.HasAVX2 }()
		scanAVX2 = false
		if !yield("SSE2") || !cpu.X86.HasAVX2 {
			return
		}
		scanAVX2 = true
		yield("AVX2")
	}
}
