package feedback

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

// TestDraftOnFullDisk: the guided review saves the draft after every
// answer; when the disk fills up, the save fails with a one-line
// "no space left on device" naming the draft, and the draft keeps every
// answer saved before, whole.
func TestDraftOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, "")
	draft := sample("two answers")
	draft.PerCase = append(draft.PerCase, Case{TestID: "b", Verdict: Incorrect})
	if err := SaveDraft(p, draft); err != nil {
		t.Fatal(err)
	}
	before := readString(t, p.Draft)
	full := &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	for _, step := range []string{"create", "write", "sync", "close"} {
		more := sample("three answers")
		more.PerCase = append(slices.Clone(draft.PerCase), Case{TestID: "c", Verdict: Flaky})
		err := writeFile(failingFS{step: step, err: full}, p.Draft, more)
		wantCode(t, err, clierr.CodeFailure, "use --out FILE")
		if msg := err.Error(); !strings.Contains(msg, p.Draft+": cannot write: no space left on device") || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q", step, msg)
		}
		if readString(t, p.Draft) != before {
			t.Errorf("%s: the draft changed after a failed save", step)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(p.Draft)}) {
			t.Errorf("%s: folder holds %v, want only the draft", step, names)
		}
	}
}
