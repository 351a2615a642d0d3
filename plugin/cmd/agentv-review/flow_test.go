package main

// The guided review's flow on the demo run, driven by the scripted prompter
// (prompttest) instead of a terminal: which questions come in which order,
// their defaults, Ctrl-C and resuming. What only a real terminal shows is in
// main_test.go.

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/demo"
	"agentv-review/plugin/internal/feedback"
	pt "agentv-review/plugin/internal/prompt/prompttest"
	"agentv-review/plugin/internal/review"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

// demoSession copies the embedded demo run into a temporary folder and
// returns a session config for it as the guided review builds one with no
// flags: reviewer and scope are asked.
func demoSession(t *testing.T) review.Config {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	sub, err := fs.Sub(demo.Run, demo.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	return review.Config{
		Run: r, Paths: feedback.PathsFor(dir, ""), Reviewer: "ana", Catalog: cat,
		Out: io.Discard, Width: 100, Height: 40, Now: time.Now,
		Tool: feedback.Tool{Name: "agentv-review", Version: "test"},
	}
}

// enterCase answers one suspicious case of the demo (every case in its
// default scope is one): Enter alone at the verdict records nothing, so the
// reviewer picks one (typing 2 and Enter on a terminal), then accepts the
// defaults of signals and notes.
func enterCase() []pt.Step {
	return []pt.Step{pt.Enter("Verdict"), pt.SelectByLabel("Verdict", "Needs improvement"), pt.Enter("What did you notice?"), pt.Enter("Notes")}
}

// script joins the opening (reviewer and scope, defaults), n cases with
// their defaults, and the closing questions when close is set.
func script(opening []pt.Step, n int, close bool) []pt.Step {
	steps := opening
	for range n {
		steps = append(steps, enterCase()...)
	}
	if close {
		steps = append(steps, pt.Enter("Overall notes"), pt.Enter("Write feedback.json?"))
	}
	return steps
}

var opening = []pt.Step{pt.Enter("Reviewer name"), pt.Enter("What do you want to review?")}

// TestDemoEnterThroughEverything is the README's first command: a verdict
// per case and Enter through every other question gives a valid
// feedback.json with one entry per reviewed case. No case of the default
// scope (the suspicious ones) takes a verdict from Enter alone.
func TestDemoEnterThroughEverything(t *testing.T) {
	cfg := demoSession(t)
	res, err := review.Run(cfg, pt.New(t, script(opening, 10, true)...))
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != cfg.Paths.Feedback || res.Answered != 10 {
		t.Fatalf("result %+v, want 10 answers written to %s", res, cfg.Paths.Feedback)
	}
	f, err := feedback.Load(cfg.Paths.Feedback)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.PerCase) != 10 || f.Reviewer != "ana" || f.RunID != "demo" {
		t.Fatalf("feedback: %d entries, reviewer %q, run %q", len(f.PerCase), f.Reviewer, f.RunID)
	}
	for _, c := range f.PerCase {
		if c.Verdict != feedback.NeedsImprovement || c.ReviewerKind != feedback.Human {
			t.Errorf("%s (%s): verdict %s by %s, want the chosen needs_improvement by a human", c.TestID, c.Automated.Outcome, c.Verdict, c.ReviewerKind)
		}
	}
}

// TestInterruptThenResume: Ctrl-C mid-review ends with exit code 130 and the
// draft intact; the next session offers to resume it, keeps its scope and
// completes the review.
func TestInterruptThenResume(t *testing.T) {
	cfg := demoSession(t)
	steps := append(script(opening, 2, false), pt.Interrupt("Verdict"))
	_, err := review.Run(cfg, pt.New(t, steps...))
	if !errors.Is(err, clierr.ErrInterrupted) || clierr.Code(err) != 130 {
		t.Fatalf("err %v (exit %d), want interrupted, exit 130", err, clierr.Code(err))
	}
	draft, err := feedback.LoadDraft(cfg.Paths)
	if err != nil || draft == nil || len(draft.PerCase) != 2 {
		t.Fatalf("draft after Ctrl-C: %+v, %v; want 2 answered cases", draft, err)
	}
	if _, err := os.Stat(cfg.Paths.Feedback); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("feedback.json must not exist after an interrupted first review")
	}

	cfg.Draft = draft
	resume := []pt.Step{pt.ConfirmStep("Resume it?", true), pt.Enter("Reviewer name")} // no scope question: the draft has it
	res, err := review.Run(cfg, pt.New(t, script(resume, 8, true)...))
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 10 {
		t.Errorf("answered %d, want 10 (2 resumed, 8 new)", res.Answered)
	}
	f, err := feedback.Load(cfg.Paths.Feedback)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.PerCase) != 10 || f.PerCase[0].TestID != draft.PerCase[0].TestID || f.PerCase[1].TestID != draft.PerCase[1].TestID {
		t.Fatalf("%d entries after resume, first %s; want 10, starting with the draft's %s, %s",
			len(f.PerCase), f.PerCase[0].TestID, draft.PerCase[0].TestID, draft.PerCase[1].TestID)
	}
}
