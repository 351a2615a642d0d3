package feedback

import (
	"strings"
	"testing"
	"time"
)

// TestLockWait: a short writer waits for the holder to release the lock,
// and is refused with the usual message when it is not released in time.
func TestLockWait(t *testing.T) {
	p := PathsFor(t.TempDir(), "")
	release, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockWait(p, 30*time.Millisecond); err == nil || !strings.Contains(err.Error(), "another review of this run is in progress") {
		t.Fatalf("LockWait while held = %v, want the refusal", err)
	}
	timer := time.AfterFunc(20*time.Millisecond, func() { release() })
	defer timer.Stop()
	second, err := LockWait(p, 10*time.Second)
	if err != nil {
		t.Fatalf("LockWait after the holder released: %v", err)
	}
	if err := second(); err != nil {
		t.Fatal(err)
	}
}
