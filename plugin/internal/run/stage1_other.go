//go:build !amd64 || purego

package run

// stageChunk is stageChunkWords.
func stageChunk(b []byte, out []stageBlock, carry *uint64) { stageChunkWords(b, out, carry) }

// looseSkip is looseSkipWords.
func looseSkip(b []byte, st *skipState) int { return looseSkipWords(b, st) }

// memberSpans is memberSpansWords.
func memberSpans(b []byte, i int, names *nameSet, out []memberSpan) (n, next int) {
	return memberSpansWords(b, i, names, out)
}
