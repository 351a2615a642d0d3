package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	pt "agentv-review/plugin/internal/prompt/prompttest"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

func screen(cfg Config) string { return cfg.Out.(*bytes.Buffer).String() }

func load(t *testing.T, path string) *feedback.File {
	t.Helper()
	var f feedback.File
	if err := json.Unmarshal(written(t, path), &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// TestPreviousRun: the case screen shows the previous run's outcome, its
// verdict and the answer's line diff; the pager shows the diff whole; the
// history makes a pass that flips across runs suspicious.
func TestPreviousRun(t *testing.T) {
	cfg := fixture(t, "iterations-2")
	before := fixture(t, "iterations-1").Run
	cfg.Scope = triage.ScopeSuspicious
	cfg.Previous = func(c *run.Case) (*PreviousCase, error) {
		pc, err := before.Find(c.TestID)
		if err != nil {
			return nil, nil
		}
		d, err := before.Detail(pc)
		return &PreviousCase{RunID: before.ID, Detail: d}, err
	}
	cfg.History = func(c *run.Case) []run.Outcome {
		if c.TestID == "it-reworded" {
			return []run.Outcome{run.Passed, run.Failed} // P F P with this run
		}
		return nil
	}
	cfg.Prior = map[int]PriorVerdict{int(find(t, cfg.Run, "it-reworded").Index): {RunID: "iterations-1", Case: feedback.Case{TestID: "it-reworded", Verdict: feedback.Acceptable}}}
	var paged []string
	cfg.Pager = func(text string) error { paged = append(paged, text); return nil }
	cfg.Filter, _ = triage.ParseFilter("it-reworded")
	cfg.Scope = triage.ScopeFilter
	p := pt.New(t,
		pt.SelectByLabel("Verdict", "Open in the pager"), pt.SelectByLabel("Open which", "previous run"),
		pt.SelectByLabel("Verdict", "Acceptable"), pt.MultiStep("notice"), pt.InputStep("Notes", ""),
		pt.InputStep("Overall", ""), pt.ConfirmStep("Write", true))
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	out := screen(cfg)
	for _, want := range []string{
		"why here  outcome flips across runs",
		"previous  run iterations-1: PASSED score 1 · reviewed acceptable",
		"answer changed since: −1 +1 line(s)",
		"  - Tokyo is the capital of Japan.\n  + Japan’s capital city is Tokyo.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	if len(paged) != 1 || !strings.Contains(paged[0], "+ Japan’s capital city is Tokyo.") {
		t.Errorf("pager got %q, want the whole answer diff", paged)
	}

	// Suspicious scope: the flipping pass is in it.
	cfg2 := fixture(t, "iterations-2")
	cfg2.History, cfg2.Scope = cfg.History, ""
	if _, err := Run(cfg2, pt.New(t, pt.SelectStep("review", 0), pt.SelectByLabel("Verdict", "Save and quit"))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(screen(cfg2), "3 case(s) to review") { // the errored, the failed, and it-reworded
		t.Errorf("the suspicious scope should hold it-reworded; screen:\n%s", screen(cfg2))
	}
}

// TestBackAndJump: Back shows the previous case with the reviewer's own
// verdict pre-selected, so a changed mind is one more verdict; Go to #N
// jumps to a case by its number in list; a case passed over by a jump is
// asked before finishing.
func TestBackAndJump(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	// Order: it-fixed, it-stable-fail (failed), then the four passes.
	p := pt.New(t, steps(
		judged("Incorrect", "n1"),
		[]pt.Step{pt.SelectByLabel("Verdict", "Back")},
		// it-fixed again: Enter keeps the own verdict; a new one replaces it.
		[]pt.Step{pt.SelectByLabel("Verdict", "Needs improvement"), pt.MultiStep("notice"), pt.Enter("Notes")},
		// it-stable-fail: go to #1 (it-stable-pass), out of order.
		[]pt.Step{pt.SelectByLabel("Verdict", "Go to case"), pt.InputStep("Go to case", "nope"), pt.SelectByLabel("Verdict", "Go to case"), pt.InputStep("Go to case", "1")},
		clean(),                   // it-stable-pass
		clean(), clean(), clean(), // the other passes, in order
		judged("Incorrect", "n2"), // it-stable-fail, passed over by the jump
		closing("", true),
	)...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	f := load(t, res.Written)
	if e := entryOf(t, f, cfg.Run, "it-fixed"); e.Verdict != feedback.NeedsImprovement || e.Notes != "n1" {
		t.Errorf("it-fixed: %+v, want the changed verdict and the kept note", e)
	}
	if len(f.PerCase) != 6 || res.Answered != 6 {
		t.Errorf("%d entries, answered %d; want 6", len(f.PerCase), res.Answered)
	}
	out := screen(cfg)
	for _, want := range []string{"yours     incorrect (your answer in this session", "not judged yet (a jump passed over it)", "nope"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

// TestKeysAndOpen: the keys option lists the moves; Open shows any part
// whole in the pager; the question comes back after both.
func TestKeysAndOpen(t *testing.T) {
	cfg := fixture(t, "core-pass-fail-error")
	cfg.Filter, _ = triage.ParseFilter("haiku")
	cfg.Scope = triage.ScopeFilter
	var paged []string
	cfg.Pager = func(text string) error { paged = append(paged, text); return nil }
	var helps []string
	p := &helpRecorder{Prompter: pt.New(t,
		pt.SelectByLabel("Verdict", "Keys"),
		pt.SelectByLabel("Verdict", "Open in the pager"), pt.SelectByLabel("Open which", "test"),
		pt.SelectByLabel("Verdict", "Open in the pager"), pt.SelectByLabel("Open which", "nothing"),
		pt.SelectByLabel("Verdict", "Skip"),
		pt.InputStep("Overall", ""), pt.ConfirmStep("Write", true)), helps: &helps}
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	out := screen(cfg)
	if !strings.Contains(out, "Keys at the verdict question") || !strings.Contains(out, "Go to case #N") {
		t.Errorf("keys not listed:\n%s", out)
	}
	if len(paged) != 1 || !strings.Contains(paged[0], "asked") {
		t.Errorf("pager got %q, want the test", paged)
	}
	if len(helps) == 0 || !strings.Contains(helps[0], "1–4 a verdict · 5 skip · 6 save and quit · 7 back · 8 go to case #n · 9 open in the pager · 10 keys and help") {
		t.Errorf("verdict help %q should number every option", helps)
	}
}

type helpRecorder struct {
	*pt.Prompter
	helps *[]string
}

func (h *helpRecorder) Select(msg string, options []string, def int, help string) (int, error) {
	if msg == "Verdict" {
		*h.helps = append(*h.helps, help)
	}
	return h.Prompter.Select(msg, options, def, help)
}

// TestDefaultScopeHoldsProposalsAndStale: a clean case with an agent's
// proposal, and one whose recorded verdict went stale, are in the
// suspicious scope.
func TestDefaultScopeHoldsProposalsAndStale(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	score := 0.3
	cfg.Existing = &feedback.File{RunID: "iterations-1", Reviewer: "bot", PerCase: []feedback.Case{
		{TestID: "it-stable-pass", Verdict: feedback.Acceptable, Reviewer: "bot", ReviewerKind: feedback.Agent},
		{TestID: "it-reworded", Verdict: feedback.Incorrect, Reviewer: "bo", Automated: &feedback.Automated{Outcome: "passed", Score: &score}},
	}}
	cfg.Scope = triage.ScopeSuspicious
	p := pt.New(t, steps(
		judged("Incorrect", ""), judged("Incorrect", ""), // it-fixed, it-stable-fail
		[]pt.Step{pt.ConfirmStep("An agent proposed acceptable", true)},
		[]pt.Step{pt.Enter("Verdict"), pt.SelectByLabel("Verdict", "Acceptable"), pt.MultiStep("notice"), pt.InputStep("Notes", "")},
		closing("", true))...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(screen(cfg), "4 case(s) to review") {
		t.Errorf("want 4 cases in scope:\n%s", screen(cfg))
	}
	f := load(t, res.Written)
	if e := entryOf(t, f, cfg.Run, "it-stable-pass"); e.ReviewerKind != feedback.Human || e.Reviewer != "ana" {
		t.Errorf("confirmed proposal %+v, want ana's", e)
	}
	if e := entryOf(t, f, cfg.Run, "it-reworded"); e.Verdict != feedback.Acceptable || !e.Stale {
		t.Errorf("stale verdict judged again: %+v", e)
	}
}

// TestInterruptKeepsChosenVerdict: Ctrl-C at the notes keeps the verdict
// chosen for the case in the draft, unfinished; the resumed session asks
// that case again with it pre-selected, and feedback.json never holds the
// marker.
func TestInterruptKeepsChosenVerdict(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	p := pt.New(t, pt.SelectByLabel("Verdict", "Incorrect"), pt.MultiStep("notice", "False positive"), pt.Interrupt("Notes"))
	if _, err := Run(cfg, p); !errors.Is(err, clierr.ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	draft, err := feedback.LoadDraft(cfg.Paths)
	if err != nil || draft == nil || len(draft.PerCase) != 1 {
		t.Fatalf("draft %+v, %v", draft, err)
	}
	if e := draft.PerCase[0]; e.Verdict != feedback.Incorrect || !unfinished(&e) || len(e.Signals) != 1 {
		t.Fatalf("draft entry %+v, want the chosen verdict and signal, unfinished", e)
	}
	cfg.Draft, cfg.Scope = draft, ""
	cfg.Filter = triage.Filter{}
	p = pt.New(t, steps(
		[]pt.Step{pt.ConfirmStep("Resume", true)},
		[]pt.Step{pt.Enter("Verdict"), pt.Enter("notice"), pt.InputStep("Notes", "wrong")}, noGrader(), fine(),
		[]pt.Step{pt.SelectByLabel("Verdict", "Save and quit")})...)
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	draft, _ = feedback.LoadDraft(cfg.Paths)
	if e := draft.PerCase[0]; e.Verdict != feedback.Incorrect || unfinished(&e) || e.Notes != "wrong" || len(e.Signals) != 1 {
		t.Errorf("resumed entry %+v", e)
	}
	if !strings.Contains(screen(cfg), "your answer before the interruption") {
		t.Error("the resumed case should say the answer was interrupted")
	}
}

// TestDeclinedResumesKeepEveryDraft: declining twice keeps both drafts.
func TestDeclinedResumesKeepEveryDraft(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	for i, notes := range []string{"first", "second", "third"} {
		var pre []pt.Step
		if i > 0 {
			d, err := feedback.LoadDraft(cfg.Paths)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Draft = d
			pre = []pt.Step{pt.ConfirmStep("Resume", false)}
		}
		if _, err := Run(cfg, pt.New(t, steps(pre, judged("Incorrect", notes), []pt.Step{pt.SelectByLabel("Verdict", "Save and quit")})...)); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]string{cfg.Paths.Draft + ".bak": "first", cfg.Paths.Draft + ".bak.2": "second", cfg.Paths.Draft: "third"} {
		f, err := feedback.Load(path)
		if err != nil || f.PerCase[0].Notes != want {
			t.Errorf("%s: %v, want the %s draft", path, err, want)
		}
	}
}

// sanitisedDefaults fails the test when an Input or Editor default
// carries a control character.
type sanitisedDefaults struct {
	*pt.Prompter
	t *testing.T
}

func (s sanitisedDefaults) Input(msg, def, help string) (string, error) {
	if strings.ContainsAny(def, controls+"\n") {
		s.t.Errorf("input %q: raw default %q", msg, def)
	}
	return s.Prompter.Input(msg, def, help)
}

// TestEarlierNoteShownInert: an earlier note with escapes and a line
// break is offered sanitised; accepted unchanged, it is kept byte for
// byte; edited, it is what the reviewer typed.
func TestEarlierNoteShownInert(t *testing.T) {
	const note = "red \x1b[31malert\x07\nsecond line"
	for _, tt := range []struct {
		name string
		step pt.Step
		want string
	}{
		{"kept", pt.Enter("Notes"), note},
		{"edited", pt.InputStep("Notes", "rewritten"), "rewritten"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fixture(t, "iterations-1")
			cfg.Existing = &feedback.File{RunID: "iterations-1", Reviewer: "bo", PerCase: []feedback.Case{{TestID: "it-fixed", Verdict: feedback.Flaky, Notes: note}}}
			cfg.Filter, _ = triage.ParseFilter("it-fixed")
			cfg.Scope = triage.ScopeFilter
			cfg.ReviewerFixed = false
			p := sanitisedDefaults{pt.New(t, pt.Enter("Reviewer"), pt.SelectByLabel("Verdict", "Flaky"), pt.MultiStep("notice"), tt.step,
				pt.InputStep("Overall", ""), pt.ConfirmStep("Write", true)), t}
			res, err := Run(cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			if e := entryOf(t, load(t, res.Written), cfg.Run, "it-fixed"); e.Notes != tt.want {
				t.Errorf("notes %q, want %q", e.Notes, tt.want)
			}
		})
	}
}

// TestSpotCheck: the spot scope judges a seeded sample of passed cases in
// draw order, shows the estimate after each verdict, offers to stop at
// the target width, and records seed and sample.
func TestSpotCheck(t *testing.T) {
	if n, _ := calibrate.SampleToClaim(0.10); n != DefaultSpotSample {
		t.Errorf("DefaultSpotSample %d, want SampleToClaim(0.10) = %d", DefaultSpotSample, n)
	}
	cfg := fixture(t, "iterations-1")
	seed := uint64(7)
	cfg.Scope, cfg.SpotSeed, cfg.SpotSample, cfg.SpotWidth = ScopeSpot, &seed, 3, 0.85
	p := pt.New(t, steps(
		judged("Acceptable", ""),
		judged("Incorrect", "wrong"), fine(), // incorrect on a pass: the test may be defective
		[]pt.Step{pt.ConfirmStep("Stop here", true)},
		closing("", true))...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	out := screen(cfg)
	for _, want := range []string{
		"Spot check: 3 of 4 passed cases drawn at random (seed 7)",
		"spot check: 0 of 1 sampled passes wrong → false-pass rate ≤ 95 % at 95 %",
		"spot check: 1 of 2 sampled passes wrong → false-pass rate 50 % (95 % interval 9.5–90.5 %) · within 85 points: precise enough to stop",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	f := load(t, res.Written)
	if f.Scope.Mode != ScopeSpot || f.Scope.Seed == nil || *f.Scope.Seed != 7 || f.Scope.Sample != 3 || len(f.PerCase) != 2 {
		t.Errorf("scope %+v, %d entries", f.Scope, len(f.PerCase))
	}
	want := calibrate.SamplePassed([]string{"#1", "#4", "#5", "#6"}, 3, 7).Cases[:2]
	for i, e := range f.PerCase {
		if c := find(t, cfg.Run, e.TestID); caseid.Position(int(c.Index)) != want[i] {
			t.Errorf("entry %d is %s (#%d), want %s: cases judged in draw order", i, e.TestID, c.Index+1, want[i])
		}
	}
	if _, err := os.Stat(cfg.Paths.Draft); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("draft left: %v", err)
	}
}
