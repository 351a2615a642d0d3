package run

// looseBlockImpls are the implementations of looseBlocks this processor
// runs, for the tests.
func looseBlockImpls() map[string]func([]byte, int, *looseState) (int, bool) {
	impls := map[string]func([]byte, int, *looseState) (int, bool){
		"SSE2": func(b []byte, i int, st *looseState) (int, bool) { return looseBlocksAsm(b, i, st, false) },
	}
	if hasAVX2 {
		impls["AVX2"] = func(b []byte, i int, st *looseState) (int, bool) { return looseBlocksAsm(b, i, st, true) }
	}
	return impls
}
