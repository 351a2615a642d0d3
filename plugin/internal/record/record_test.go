package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

const corpus = "../../../testdata/agentv-4.42.4/runs"

func open(t *testing.T, name string, outline bool) (*run.Run, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, name))); err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{Outline: outline})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func seen(t *testing.T, r *run.Run, ref string) (*run.Detail, Seen) {
	t.Helper()
	c, err := r.Find(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Detail(c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := See(r, d)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

// TestStampAndVerify: an entry stamped from what was seen is current; it
// becomes stale when the answer, the input or the task bundle changes, and
// Quick (no file read) sees a changed machine verdict, also in a run opened
// in outline mode.
func TestStampAndVerify(t *testing.T) {
	r, dir := open(t, "core-pass-fail-error", false)
	d, s := seen(t, r, "haiku")
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := Stamp(s, feedback.Case{Verdict: feedback.Acceptable}, Who{Reviewer: "ana", Kind: feedback.Human}, at)
	if e.FingerprintV != feedback.FingerprintVersion || !strings.HasPrefix(e.Fingerprint, "sha256:") || e.ReviewedAt != "2026-12-01T09:00:00.000Z" || e.Automated == nil {
		t.Fatalf("stamped entry %+v", e)
	}
	if f, err := Verify(r, d, s, &e); err != nil || f != Current {
		t.Fatalf("fresh entry: %s, %v", f, err)
	}
	outline, _ := run.Open(dir, run.Options{Outline: true})
	oc, _ := outline.Find("haiku")
	if q := Quick(oc, &e); q != Current {
		t.Errorf("Quick in outline mode: %s, want current", q)
	}
	regraded := e
	a := *e.Automated
	score := *a.Score + 0.1
	a.Score, regraded.Automated = &score, &a
	if q := Quick(oc, &regraded); q != Stale {
		t.Errorf("Quick with another score: %s, want stale", q)
	}
	if q := Quick(oc, &feedback.Case{Verdict: feedback.Acceptable}); q != Unknown {
		t.Errorf("Quick without a machine verdict: %s, want unknown", q)
	}
	for _, change := range []struct{ name, file string }{
		{"answer", d.Answer.Path},
		{"input", d.Input.Path},
		{"task bundle", filepath.Join(dir, "core", "haiku", "task", "EVAL.yaml")},
	} {
		t.Run(change.name, func(t *testing.T) {
			before, err := os.ReadFile(change.file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.WriteFile(change.file, before, 0o644) })
			changed := strings.Replace(string(before), "a", "A", 1)
			if change.name == "task bundle" {
				changed = strings.Replace(string(before), "5-7-5", "5-7-7", 1)
			}
			if changed == string(before) {
				t.Fatalf("%s: nothing to change", change.file)
			}
			os.WriteFile(change.file, []byte(changed), 0o644)
			d2, s2 := seen(t, r, "haiku")
			if f, err := Verify(r, d2, s2, &e); err != nil || f != Stale {
				t.Errorf("after the %s changed: %s, %v; want stale", change.name, f, err)
			}
		})
	}
}

// TestVerifyReadsVersion1: an entry written before fingerprint v2 is
// checked in its own encoding (answer and grader results only).
func TestVerifyReadsVersion1(t *testing.T) {
	r, _ := open(t, "core-pass-fail-error", false)
	d, s := seen(t, r, "capital-france")
	v1, err := Fingerprint(r, d, 1)
	if err != nil || v1 == s.Fingerprint {
		t.Fatalf("v1 %q equals v2 %q (%v)", v1, s.Fingerprint, err)
	}
	old := feedback.Case{Verdict: feedback.Acceptable, Fingerprint: v1} // no fingerprint_version: 1
	if f, err := Verify(r, d, s, &old); err != nil || f != Current {
		t.Errorf("v1 entry of the same output: %s, %v; want current", f, err)
	}
	old.Fingerprint = "sha256:" + strings.Repeat("0", 64)
	if f, _ := Verify(r, d, s, &old); f != Stale {
		t.Errorf("v1 entry of another output: %s, want stale", f)
	}
}

// TestCheckAndFind: answers are checked as the guided review constrains
// them, and matched to exactly one case or refused with the candidates.
func TestCheckAndFind(t *testing.T) {
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := open(t, "multi-target-v1-v2", false)
	if c, ps := NewFinder(r).Find(feedback.Case{TestID: "mt-v1-only", Target: "agent-v2"}); c == nil || len(ps) != 0 || c.Target != "agent-v2" {
		t.Errorf("exact answer: %v %v", c, ps)
	}
	if c, ps := NewFinder(r).Find(feedback.Case{TestID: "mt-v1-only"}); c != nil || len(ps) != 1 || !strings.Contains(ps[0].Msg, "could be 2 cases (mt-v1-only@agent-v1, mt-v1-only@agent-v2)") {
		t.Errorf("ambiguous answer: %v %+v", c, ps)
	}
	if _, ps := NewFinder(r).Find(feedback.Case{}); len(ps) != 1 || ps[0].Field != "test_id" {
		t.Errorf("no test id: %+v", ps)
	}
	c, _ := NewFinder(r).Find(feedback.Case{TestID: "mt-v1-only", Target: "agent-v2"})
	bad := feedback.Case{Verdict: "great", Signals: []string{"vibes", "false_positive", "false_positive"},
		TestDefect: "typo", EvaluatorOverrides: map[string]string{"nope:x": "?"}}
	fields := []string{}
	for _, p := range Check(cat, c, bad) {
		fields = append(fields, p.Field)
	}
	if got, want := strings.Join(fields, " "), "verdict signals.0 signals.2 test_defect evaluator_overrides.nope:x"; got != want {
		t.Errorf("problems on fields %q, want %q", got, want)
	}
	good := feedback.Case{Verdict: feedback.Incorrect, TestDefect: "ambiguous_input", Signals: []string{"false_positive"}}
	if ps := Check(cat, c, good); len(ps) != 0 {
		t.Errorf("a good answer: %+v", ps)
	}
}
