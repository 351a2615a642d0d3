package feedback

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/clierr"
)

// TestDraftOnFullDisk: the guided review saves the draft after every
// answer; when the disk fills up, the save fails with a one-line
// "no space left on device" naming the draft. (That the draft keeps every
// answer saved before, whole, and no temp file is left, is atomicfile's
// TestFailureKeepsOldFile.)
func TestDraftOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, "")
	draft := sample("two answers")
	draft.PerCase = append(draft.PerCase, Case{TestID: "b", Verdict: Incorrect})
	if err := SaveDraft(p, draft); err != nil {
		t.Fatal(err)
	}
	before := readString(t, p.Draft)
	replaceFile = func(path string, _ func(io.Writer) error) error {
		return &fs.PathError{Op: "write", Path: path + ".tmp-1", Err: syscall.ENOSPC}
	}
	t.Cleanup(func() { replaceFile = atomicfile.WriteFrom })
	more := sample("three answers")
	more.PerCase = append(slices.Clone(draft.PerCase), Case{TestID: "c", Verdict: Flaky})
	err := SaveDraft(p, more)
	wantCode(t, err, clierr.CodeFailure, "use --out FILE")
	if msg := err.Error(); !strings.Contains(msg, p.Draft+": cannot write: no space left on device") || strings.Contains(msg, "\n") {
		t.Errorf("error %q", msg)
	}
	if readString(t, p.Draft) != before {
		t.Errorf("the draft changed after a failed save")
	}
}

// TestLockFileNeverFollowed: a lock file that is a symlink (to anywhere) or
// a FIFO is refused, never opened: the lock would create or truncate the
// link's target, or block forever on the FIFO.
func TestLockFileNeverFollowed(t *testing.T) {
	for name, plant := range map[string]func(path string) error{
		"symlink": func(path string) error { return os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path) },
		"fifo":    func(path string) error { return syscall.Mkfifo(path, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			p := PathsFor(t.TempDir(), "")
			if err := plant(p.Lock); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := LockWait(p, 0)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "the lock file is") {
					t.Errorf("LockWait on a %s lock file: %v, want it refused", name, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("LockWait blocked on a %s lock file", name)
			}
		})
	}
}

// TestViewNeverOpensFIFO: status and list read the feedback file as a
// View; a FIFO there (which an open would block on for ever) is refused
// with an error, as Load refuses it.
func TestViewNeverOpensFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "feedback.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := LoadView(p, "r", ids{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("LoadView(FIFO) = %v, want an error naming the FIFO", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("LoadView blocked on a FIFO")
	}
}
