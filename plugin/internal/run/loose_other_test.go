//go:build !amd64

package run

// looseBlockImpls are the implementations of looseBlocks, for the tests.
func looseBlockImpls() map[string]func([]byte, int, *looseState) (int, bool) {
	return map[string]func([]byte, int, *looseState) (int, bool){"Go": looseBlocksWords}
}
