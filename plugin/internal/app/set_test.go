package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
)

func TestSetValidation(t *testing.T) {
	iter := copyRun(t, "iterations-3")
	multi := copyRun(t, "multi-target-v1-v2")
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr []string
	}{
		{"unknown case", []string{"--verdict", "acceptable", iter, "no-such-case"}, clierr.CodeUsage, []string{`no case "no-such-case"`, "hint:"}},
		{"bad verdict", []string{"--verdict", "great", iter, "it-fixed"}, clierr.CodeUsage, []string{`--verdict: unknown verdict "great"`, "acceptable, needs_improvement, incorrect, flaky"}},
		{"bad signal", []string{"--verdict", "acceptable", "--signal", "vibes", iter, "it-fixed"}, clierr.CodeUsage, []string{`--signal: unknown signal "vibes"`, "false_positive"}},
		{"signal twice", []string{"--verdict", "acceptable", "--signal", "false_positive", "--signal", "false_positive", iter, "it-fixed"}, clierr.CodeUsage, []string{"given twice"}},
		{"unknown override key", []string{"--verdict", "acceptable", "--override", "llm-grader:nope=x", iter, "it-fixed"}, clierr.CodeUsage,
			[]string{`--override: no grader "llm-grader:nope"`, "its graders: icontains:icontains-not found, llm-grader:judge"}},
		{"ambiguous test id", []string{"--verdict", "acceptable", multi, "mt-v1-only"}, clierr.CodeUsage, []string{"mt-v1-only@agent-v1, mt-v1-only@agent-v2", "name one"}},
		{"missing verdict", []string{iter, "it-fixed"}, clierr.CodeUsage, []string{"verdict"}},
		{"flag after the case", []string{iter, "it-fixed", "--verdict", "acceptable"}, clierr.CodeUsage, []string{"verdict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runApp(t, append([]string{"set"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			for _, s := range tt.inStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
	for _, dir := range []string{iter, multi} {
		if _, err := os.Stat(filepath.Join(dir, "feedback.json")); err == nil {
			t.Errorf("a refused set wrote %s/feedback.json", dir)
		}
	}
}

func TestSetWritesEntry(t *testing.T) {
	fixClock(t)
	dir := copyRun(t, "multi-target-v1-v2")
	out := mustRun(t, "set", "--json", "--agent", "--verdict", "incorrect", "--signal", "false_positive",
		"--note", "v1, not v2", "--override", "llm-grader:judge=a, b", dir, "mt-v2-only@agent-v1")
	var rep writeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := writeReport{Path: filepath.Join(dir, "feedback.json"), RunID: "multi-target-v1-v2", Entries: 1, Reviewer: "agent", ReviewerKind: feedback.Agent}
	if rep != want {
		t.Errorf("report %+v, want %+v", rep, want)
	}
	f, err := feedback.Load(rep.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.PerCase) != 1 {
		t.Fatalf("per_case %+v", f.PerCase)
	}
	e := f.PerCase[0]
	if e.TestID != "mt-v2-only" || e.Target != "agent-v1" || e.ReviewerKind != feedback.Agent || e.Reviewer != "agent" ||
		e.ReviewedAt != "2026-12-01T09:01:00.000Z" || e.Notes != "v1, not v2" || e.EvaluatorOverrides["llm-grader:judge"] != "a, b" ||
		e.Automated == nil || e.Automated.Outcome != "failed" || !strings.HasPrefix(e.Fingerprint, "sha256:") {
		t.Errorf("entry %+v", e)
	}
	if f.ReviewerKind != feedback.Agent || f.SchemaVersion != feedback.SchemaVersion || f.Summary.Reviewed != 1 || f.Summary.Cases != 8 {
		t.Errorf("file %+v", f)
	}
}

func TestSetRefusedWhileLocked(t *testing.T) {
	dir := copyRun(t, "iterations-1")
	release, err := feedback.Lock(feedback.PathsFor(dir, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	code, _, stderr := runApp(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "it-fixed")
	if code != clierr.CodeFailure || !strings.Contains(stderr, "another review of this run is in progress") {
		t.Errorf("exit %d, want 1 naming the other review:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "feedback.json")); err == nil {
		t.Error("feedback.json written while the lock was held")
	}
}

func TestSetKeepsLegacyDashboardFile(t *testing.T) {
	fixClock(t)
	dir := copyRun(t, "iterations-1")
	legacy := `{"reviews":[{"test_id":"it-fixed","comment":"wrong file","updated_at":"2026-11-30T08:00:00.000Z"}]}`
	writeFile(t, filepath.Join(dir, "feedback.json"), legacy)
	out := mustRun(t, "set", "--json", "--reviewer", "ana", "--verdict", "incorrect", dir, "it-fixed")
	var rep writeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Archived == nil {
		t.Fatal("the legacy file was not archived")
	}
	kept, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(*rep.Archived)))
	if err != nil || string(kept) != legacy {
		t.Errorf("archived copy %q (%v), want the original bytes", kept, err)
	}
	f, err := feedback.Load(rep.Path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Previous != *rep.Archived || len(f.PerCase) != 1 {
		t.Errorf("new file: previous %q, %d entries", f.Previous, len(f.PerCase))
	}
	// A second judgment archives the first review and keeps its entry.
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "it-regressed")
	if f, _ = feedback.Load(rep.Path); len(f.PerCase) != 2 || f.Previous == *rep.Archived {
		t.Errorf("second write: %d entries, previous %q", len(f.PerCase), f.Previous)
	}
	hist, _ := filepath.Glob(filepath.Join(dir, "feedback.history", "*.json"))
	if len(hist) != 2 {
		t.Errorf("history holds %v, want the legacy file and the first review", hist)
	}
}
