package run

// stringRun returns the index of the first quote, backslash or control
// character from i on (len(b) when there is none), sixteen bytes at a time
// with SSE2, which every amd64 processor has.
//
//go:noescape
func stringRun(b []byte, i int) int
