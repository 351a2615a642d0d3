//go:build !linux

package offheap

// Populate does nothing where the kernel has no call for it: the pages
// fault as they are touched.
func Populate([]byte) {}
