package offheap

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// Populate maps the pages s lies on now, writable, in one call, as a
// write to each would one fault at a time (MADV_POPULATE_WRITE, Linux
// 5.14), and leaves their bytes as they are. s may be any writable
// memory: the heap's, or Map's. Where the kernel cannot, the pages fault
// as they are touched, as before.
func Populate[T any](s []T) { _ = populate(s) }

// populate is Populate, telling why the kernel would not.
func populate[T any](s []T) error {
	if len(s) == 0 {
		return nil
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	first := start &^ (pageSize - 1)
	end := (start + uintptr(len(s))*unsafe.Sizeof(s[0]) + pageSize - 1) &^ (pageSize - 1)
	// The pages are those of s: writable, as s is. By address: the first
	// may begin before s's object.
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, first, end-first, unix.MADV_POPULATE_WRITE)
	runtime.KeepAlive(s)
	if errno != 0 {
		return errno
	}
	return nil
}
