package run

import (
	"bytes"

	"golang.org/x/sys/cpu"
)

// newlineIndex is bytes.IndexByte(b, '\n'), 128 bytes a step with AVX2
// where the processor has it (the library's takes 32: a manifest line
// holds a few kilobytes, and the search is a pass of its own over every
// byte of the manifest).
func newlineIndex(b []byte) int {
	if len(b) < 128 || !cpu.X86.HasAVX2 {
		return bytes.IndexByte(b, '\n')
	}
	return newlineAVX2(b)
}

//go:noescape
func newlineAVX2(b []byte) int
