package run

// blockMasks returns one bit for each of the 64 bytes at p (the lowest for
// the first) that is a quote, a backslash, an opening bracket ('{' or
// '[') or a closing one, with SSE2, which every amd64 processor has.
//
//go:noescape
func blockMasks(p *[64]byte) (quote, backslash, open, close uint64)
