package offheap

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// Populate maps the pages b lies on now, writable, in one call, as a
// write to each would one fault at a time (MADV_POPULATE_WRITE, Linux
// 5.14), and leaves their bytes as they are. b may be any writable
// memory: the heap's, or Map's. Where the kernel cannot, the pages fault
// as they are touched, as before.
func Populate(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := start &^ (pageSize - 1)
	end := (start + uintptr(len(b)) + pageSize - 1) &^ (pageSize - 1)
	// The pages are those of b: writable, as b is. By address: the first
	// may begin before b's object.
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, first, end-first, unix.MADV_POPULATE_WRITE)
	runtime.KeepAlive(b)
}
