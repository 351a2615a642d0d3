//go:build !purego

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

// lastNewline is bytes.LastIndexByte(b, '\n'), 128 bytes a step with AVX2
// where the processor has it: the pipeline's reader looks for the last
// newline of every read, and in a row of megabytes (the flat layout's)
// every read holds none, so the search passes over all of the row's bytes
// on the one goroutine that reads.
func lastNewline(b []byte) int {
	if len(b) < 128 || !cpu.X86.HasAVX2 {
		return lastNewlineWords(b)
	}
	return lastNewlineAVX2(b)
}

//go:noescape
func lastNewlineAVX2(b []byte) int
