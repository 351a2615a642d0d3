package offheap

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestPopulateMaps: Populate makes a mapping's pages resident at once,
// where the kernel can (Linux 5.14 on); Populate that did nothing would
// keep TestPopulateKeepsBytes passing. Residency is the mapping's own, as
// mincore(2) tells it: the process's resident size moves with whatever
// else runs (a cleanup unmapping another test's chunks).
func TestPopulateMaps(t *testing.T) {
	const size = 8 << 20
	m := Map(size)
	defer Unmap(m)
	if n := residentPages(t, m); n != 0 {
		t.Fatalf("%d pages of a new mapping resident before it is touched", n)
	}
	if err := populate(m); err != nil {
		t.Skipf("the kernel maps no pages ahead: %v", err)
	}
	if n, all := residentPages(t, m), size/pageSize; n != int(all) {
		t.Errorf("%d of %d pages resident after Populate", n, all)
	}
}

// residentPages counts the pages of b (page-aligned) that are resident.
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (uintptr(len(b))+pageSize-1)/pageSize)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
