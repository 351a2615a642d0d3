package main

// End-to-end tests of the guided review through a real pseudo-terminal
// with a vt10x terminal emulator behind it (ptytest). Every expectation has
// a timeout; a failure prints the emulated screen.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/prompt/ptytest"
)

// start runs agentv-review with args on a 120×40 pseudo-terminal.
func start(t *testing.T, args ...string) *ptytest.Term {
	t.Helper()
	bin := binary(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "VISUAL=", "EDITOR=", "PAGER=cat", "AGENTV_REVIEWER=", "NO_COLOR=1")
	return ptytest.Start(t, cmd, 120, 40)
}

// answerClean accepts the defaults of one case: verdict, signals, notes.
func answerClean(term *ptytest.Term) {
	term.ExpectString("Verdict")
	term.Send(ptytest.Enter)
	term.ExpectString("What did you notice?")
	term.Send(ptytest.Enter)
	term.ExpectString("Notes")
	term.Send(ptytest.Enter)
}

// opening answers the reviewer and scope questions with their defaults.
func opening(term *ptytest.Term) {
	term.ExpectString("Reviewer name")
	term.Send(ptytest.Enter)
	term.ExpectString("What do you want to review?")
	term.Send(ptytest.Enter)
	term.ExpectString("10 case(s) to review")
}

func closing(term *ptytest.Term) {
	term.ExpectString("Overall notes")
	term.Send(ptytest.Enter)
	term.ExpectString("Write feedback.json?")
	term.Send(ptytest.Enter)
	term.ExpectString("Wrote ")
}

func readFeedback(t *testing.T, path string) *feedback.File {
	t.Helper()
	f, err := feedback.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDemoEnterThroughEverything is the README's first command: Enter
// through every question gives a valid feedback.json with one entry per
// reviewed case.
func TestDemoEnterThroughEverything(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	term := start(t, "demo", "--dir", dir)
	opening(term)
	for range 10 {
		answerClean(term)
	}
	closing(term)
	term.ExpectString("Next steps")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, term.Screen())
	}
	f := readFeedback(t, filepath.Join(dir, "feedback.json"))
	if len(f.PerCase) != 10 || f.Reviewer == "" || f.RunID != "demo" {
		t.Fatalf("feedback: %d entries, reviewer %q, run %q", len(f.PerCase), f.Reviewer, f.RunID)
	}
	for _, c := range f.PerCase {
		want := feedback.Incorrect // failures and errors default to incorrect
		if c.Automated.Outcome == "passed" {
			want = feedback.Acceptable
		}
		if c.Verdict != want {
			t.Errorf("%s (%s): verdict %s, want the default %s", c.TestID, c.Automated.Outcome, c.Verdict, want)
		}
	}
}

// TestInterruptThenResume: Ctrl-C mid-review exits 130 with the draft
// intact; the next session resumes it and completes the review.
func TestInterruptThenResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	term := start(t, "demo", "--dir", dir)
	opening(term)
	answerClean(term)
	answerClean(term)
	term.ExpectString("Verdict")
	term.Send(ptytest.CtrlC)
	term.ExpectString("resume with: agentv review")
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", code, term.Screen())
	}
	draft, err := feedback.LoadDraft(feedback.PathsFor(dir, ""))
	if err != nil || draft == nil || len(draft.PerCase) != 2 {
		t.Fatalf("draft after Ctrl-C: %+v, %v; want 2 answered cases", draft, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "feedback.json")); !os.IsNotExist(err) {
		t.Fatal("feedback.json must not exist after an interrupted first review")
	}

	term = start(t, dir)
	term.ExpectString("Resume it?")
	term.Send(ptytest.Enter)
	term.ExpectString("Reviewer name")
	term.Send(ptytest.Enter)
	term.ExpectString("10 case(s) to review") // scope comes from the draft
	for range 8 {
		answerClean(term)
	}
	closing(term)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, term.Screen())
	}
	f := readFeedback(t, filepath.Join(dir, "feedback.json"))
	if len(f.PerCase) != 10 {
		t.Fatalf("%d entries after resume, want 10", len(f.PerCase))
	}
	data, _ := json.Marshal(f.PerCase[0])
	if f.PerCase[0].TestID != draft.PerCase[0].TestID {
		t.Errorf("first entry %s, want the draft's %s", data, draft.PerCase[0].TestID)
	}
}

// TestNoTerminalExits2: piped, the guided review refuses instead of
// hanging or drawing.
func TestNoTerminalExits2(t *testing.T) {
	bin := binary(t)
	cmd := exec.Command(bin, "demo", "--dir", filepath.Join(t.TempDir(), "demo"))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("err %v, want exit 2\n%s", err, out)
	}
}
