//go:build unix

package offheap

import "syscall"

// Map is n zeroed bytes outside the Go heap (an anonymous private
// mapping), which the collector neither scans nor counts toward its goal;
// its pages are touched lazily (see Populate). Unmap gives them back.
func Map(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n) // no mapping to be had: the heap will do
	}
	return b
}

// Unmap gives back what Map returned.
func Unmap(b []byte) {
	_ = syscall.Munmap(b) // EINVAL for a heap fallback (syscall knows its mappings), which the collector frees
}
