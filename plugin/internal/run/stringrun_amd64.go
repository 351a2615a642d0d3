package run

import "golang.org/x/sys/cpu"

// stringRun returns the index of the first quote, control character or
// backslash from i on that does not start a two-byte escape (\" \\ \/ \b
// \f \n \r \t), len(b) when there is none, skipping those escapes sixteen
// bytes at a time with SSE2, which every amd64 processor has; escaped
// tells whether it skipped one.
//
//go:noescape
func stringRun(b []byte, i int) (j int, escaped bool)

// stringScan is stringEnd in one call.
//
//go:noescape
func stringScan(b []byte, i int) (end int, ok, escaped bool)

// scanAVX2 tells stringScan to scan with AVX2 (tests turn it off to
// check the SSE2 scan).
var scanAVX2 = cpu.X86.HasAVX2
