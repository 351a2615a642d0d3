package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/review"
	"agentv-review/prompts"
)

// carryAsker keeps every earlier verdict offered, accepts the defaults of
// every other question, writes the file, and records what it was offered.
type carryAsker struct{ offered []string }

// Select takes the default; where there is none (a suspicious case's
// verdict starts on an option that records nothing), the first option,
// acceptable.
func (a *carryAsker) Select(_ string, options []string, def int, _ string) (int, error) {
	if strings.HasPrefix(options[def], "(") {
		return 0, nil
	}
	return def, nil
}
func (a *carryAsker) MultiSelect(_ string, _ []string, defs []int, _ string) ([]int, error) {
	return defs, nil
}
func (a *carryAsker) Input(_, def, _ string) (string, error)  { return def, nil }
func (a *carryAsker) Editor(_, def, _ string) (string, error) { return def, nil }
func (a *carryAsker) Confirm(msg string, _ bool, _ string) (bool, error) {
	if strings.Contains(msg, "Keep that verdict") {
		a.offered = append(a.offered, msg)
	}
	return true, nil
}

// TestCarryForwardAcrossIterations reviews the second and third real
// iteration runs after every earlier run was judged: cases whose output is
// unchanged are offered the earlier verdict and record where it came from;
// changed ones are marked stale and judged afresh.
func TestCarryForwardAcrossIterations(t *testing.T) {
	root := reviewIterations(t)
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run            int
		carried, stale []string
		runs           map[string]string // flaky evidence / runs pattern shown
	}{
		// run 2: it-fixed now passes, it-reworded changed wording, the
		// error case errored; the rest is unchanged since run 1.
		{1, []string{"it-stable-pass", "it-stable-fail", "it-regressed"}, []string{"it-fixed", "it-reworded", "it-error-then-recovered"},
			map[string]string{"it-error-then-recovered": "P E", "it-fixed": "F P"}},
		// run 3: it-regressed fails now, it-reworded reworded again, the
		// error recovered; it-fixed and the stable cases are unchanged.
		{2, []string{"it-stable-pass", "it-stable-fail", "it-fixed"}, []string{"it-regressed", "it-reworded", "it-error-then-recovered"},
			map[string]string{"it-regressed": "P P F", "it-error-then-recovered": "P E P"}},
	} {
		dir := filepath.Join(root, iterationRuns[tt.run].id)
		// This run is reviewed for the first time: only earlier runs have
		// verdicts (a run's own current verdict would be pre-filled instead).
		if err := os.Remove(filepath.Join(dir, "feedback.json")); err != nil {
			t.Fatal(err)
		}
		var errOut bytes.Buffer
		st, err := openState(&Streams{Err: &errOut}, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		earlier, err := earlierRuns(st, "", false)
		if err != nil || len(earlier) != tt.run {
			t.Fatalf("earlier runs %v, %v; want %d", earlier, err, tt.run)
		}
		var screen bytes.Buffer
		asker := &carryAsker{}
		res, err := review.Run(review.Config{
			Run: st.run, Paths: st.paths, Existing: st.feedback, Prior: priorVerdicts(earlier, st.run), History: earlierOutcomes(earlier),
			Reviewer: "cy", ReviewerFixed: true, Scope: "all", Out: &screen, Width: 100, Height: 40, Catalog: cat,
		}, asker)
		if err != nil {
			t.Fatal(err)
		}
		f, err := feedback.Load(res.Written)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range tt.carried {
			c := entryOf(t, f, st.run, id)
			if c.CarriedFrom == nil || c.CarriedFrom.RunID != iterationRuns[tt.run-1].id || c.Stale {
				t.Errorf("run %d %s: want carried from the previous run, got %+v", tt.run+1, id, c)
			}
		}
		for _, id := range tt.stale {
			if c := entryOf(t, f, st.run, id); !c.Stale || c.CarriedFrom != nil {
				t.Errorf("run %d %s: want stale and judged afresh, got %+v", tt.run+1, id, c)
			}
		}
		if len(asker.offered) != len(tt.carried) {
			t.Errorf("run %d: offered %d earlier verdicts, want %d: %q", tt.run+1, len(asker.offered), len(tt.carried), asker.offered)
		}
		for id, pattern := range tt.runs {
			if want := "runs      " + pattern + " "; !strings.Contains(screen.String(), want) {
				t.Errorf("run %d %s: screen lacks %q", tt.run+1, id, want)
			}
		}
	}
}

// TestEarlierFlatRuns: the earlier runs of a flat results file are the
// older results files beside it, never the runs of the tree above (which
// list once walked, decoding every summary it met, to find nothing).
func TestEarlierFlatRuns(t *testing.T) {
	root := t.TempDir()
	folder := filepath.Join(root, "results")
	row := func(ts string) string {
		return `{"test_id":"a","score":1,"timestamp":"` + ts + `"}` + "\n"
	}
	for name, content := range map[string]string{
		"results/eval_2026-07-01.jsonl": row("2026-07-01T10:00:00Z"),
		"results/eval_2026-07-02.jsonl": row("2026-07-02T10:00:00Z"),
		"results/eval_2026-07-03.jsonl": row("2026-07-03T10:00:00Z"),
		"other/run/index.jsonl":         row("2026-06-01T10:00:00Z"), // a run of the tree above: not a sibling
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := openState(&Streams{Err: &bytes.Buffer{}}, filepath.Join(folder, "eval_2026-07-02.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	earlier, err := earlierRuns(st, "", false)
	if want := []string{filepath.Join(folder, "eval_2026-07-01.jsonl")}; err != nil || !slices.Equal(earlier, want) {
		t.Errorf("earlier runs of a flat file: %v, %v; want %v", earlier, err, want)
	}
}
