//go:build !unix

package offheap

// Map is n zeroed bytes; without mmap they are on the heap.
func Map(n int) []byte { return make([]byte, n) }

// Unmap gives back what Map returned: the collector does.
func Unmap([]byte) {}
