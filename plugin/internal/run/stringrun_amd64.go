//go:build !purego

package run

import "golang.org/x/sys/cpu"

// stringScan is stringEnd in one call, sixteen bytes at a time with SSE2,
// which every amd64 processor has, or thirty-two with AVX2.
//
//go:noescape
func stringScan(b []byte, i int) (end int, ok, escaped bool)

// scanAVX2 tells stringScan to scan with AVX2 (tests turn it off to
// check the SSE2 scan).
var scanAVX2 = cpu.X86.HasAVX2
