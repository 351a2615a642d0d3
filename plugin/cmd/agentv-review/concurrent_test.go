package main

// Concurrent reviewers of one run, end to end.
//
// Design (feedback.Lock): every writer of a run's feedback takes the
// exclusive flock(2) lock on <run>/feedback.lock. A guided review holds it
// for its whole session, so a second guided review or a scripted writer
// (set, apply) started meanwhile is refused at once with exit 1 and "another
// review of this run is in progress"; scripted writers hold it only around
// their read-modify-write (load feedback.json again under the lock, upsert,
// archive, write), so writers that run one after another never lose each
// other's update. The kernel drops the lock when its holder exits, even on
// a crash.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/prompt/ptytest"
)

const lockedMsg = "another review of this run is in progress"

// agentvReview runs the binary without a terminal and returns its exit code
// and combined output.
func agentvReview(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "AGENTV_REVIEWER=script")
	return runCmd(t, cmd)
}

func copyRun(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSecondReviewerRefused: while a guided review is open in one
// terminal, a second guided review (another terminal) and a scripted set
// are refused with exit 1 and a one-line message; once the first ends,
// set works.
func TestSecondReviewerRefused(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	first := start(t, "--reviewer", "ana", "--scope", "all", dir)
	first.ExpectString("Verdict")

	second := start(t, "--reviewer", "bo", dir)
	second.ExpectString(lockedMsg)
	if code := second.Wait(); code != 1 {
		t.Fatalf("second guided review: exit %d, want 1\n%s", code, second.Screen())
	}
	if screen := second.Screen(); strings.Contains(screen, "goroutine") || strings.Contains(screen, "panic") {
		t.Errorf("refusal shows a stack trace:\n%s", screen)
	}

	code, out := agentvReview(t, "set", "--verdict", "acceptable", dir, "#1")
	if code != 1 || !strings.Contains(out, lockedMsg) || strings.Count(strings.TrimSpace(out), "\n") > 1 {
		t.Fatalf("set during a guided review: exit %d, output\n%s\nwant exit 1 and %q with a hint", code, out, lockedMsg)
	}
	if _, err := os.Stat(filepath.Join(dir, "feedback.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused set wrote feedback.json: %v", err)
	}

	first.Send(ptytest.CtrlC)
	if code := first.Wait(); code != 130 {
		t.Fatalf("first review after Ctrl-C: exit %d, want 130", code)
	}
	if code, out := agentvReview(t, "set", "--verdict", "acceptable", dir, "#1"); code != 0 {
		t.Fatalf("set after the guided review ended: exit %d\n%s", code, out)
	}
}

// TestParallelSetsLoseNothing: N set processes started together on
// different cases of one run all end up in feedback.json. A set that finds
// the lock taken by another set waits for it (it is held for
// milliseconds), so none is refused and none overwrites another's entry.
func TestParallelSetsLoseNothing(t *testing.T) {
	const n = 8
	dir := copyRun(t, "core-pass-fail-error")
	var wg sync.WaitGroup
	results := make([]string, n)
	for i := range n {
		wg.Go(func() {
			code, out := agentvReview(t, "set", "--verdict", "needs_improvement", "--note", fmt.Sprint("writer ", i), dir, fmt.Sprintf("#%d", i+1))
			if code != 0 {
				results[i] = fmt.Sprintf("set #%d: exit %d\n%s", i+1, code, out)
			}
		})
	}
	wg.Wait()
	for _, r := range results {
		if r != "" {
			t.Error(r)
		}
	}
	f, err := feedback.Load(filepath.Join(dir, "feedback.json"))
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]bool{}
	for _, c := range f.PerCase {
		notes[c.Notes] = true
	}
	for i := range n {
		if !notes[fmt.Sprint("writer ", i)] {
			t.Errorf("the judgment of writer %d was lost; feedback.json holds %d entries", i, len(f.PerCase))
		}
	}
}
