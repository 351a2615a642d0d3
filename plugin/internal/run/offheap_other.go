//go:build !unix

package run

// mapChunk is n zeroed bytes; without mmap they are on the heap.
func mapChunk(n int) []byte { return make([]byte, n) }

// unmapChunk gives back what mapChunk returned: the collector does.
func unmapChunk([]byte) {}
