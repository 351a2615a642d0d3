package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// upstream returns a folder of ../shared/fixtures/agentv-upstream (relative
// to the repository root). It skips only when the fixtures are absent and
// CI is unset.
func upstream(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("../../../../shared/fixtures/agentv-upstream", name)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("upstream fixtures absent: %v", err)
		}
		t.Fatalf("upstream fixtures are required in CI: %v", err)
	}
	return dir
}

func TestUpstreamV5Samples(t *testing.T) {
	// The experiment folder holds exactly one run: Open walks down to it.
	r := mustOpen(t, upstream(t, "01-v5-samples-pass"), Options{})
	if r.ID != "2026-07-06T11-31-36-988Z" || r.Layout != LayoutV5 || filepath.Base(filepath.Dir(r.Manifest)) != ".internal" {
		t.Fatalf("run %s layout %s manifest %s", r.ID, r.Layout, r.Manifest)
	}
	if p, f, x := r.Counts(); len(r.Cases) != 1 || p != 1 || f+x != 0 {
		t.Fatalf("%d cases, %d/%d/%d", len(r.Cases), p, f, x)
	}
	c := r.Cases[0]
	if len(c.Graders) != 2 || c.Graders[0].Key() != "llm-rubric:llm-rubric" || c.Graders[1].Key() != "llm-rubric:llm-rubric" || !*c.Graders[1].Pass {
		t.Fatalf("graders %+v", c.Graders)
	}
	if len(c.Samples) != 1 || c.Samples[0].Label != "sample-1" || !*c.Samples[0].Pass {
		t.Fatalf("samples %+v", c.Samples)
	}
	d, err := r.Detail(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Answer.Content, "Q4 revenue increased to $10 million") || d.Answer.Missing {
		t.Errorf("answer %+v", d.Answer)
	}
	// Two graders of one name: each keeps its own checks (component_results level 2).
	if len(d.Graders) != 2 || len(d.Graders[0].Checks) != 2 || len(d.Graders[1].Checks) != 1 {
		t.Fatalf("graders %+v", d.Graders)
	}
	if got := d.Graders[0].Checks[0]; got.Text != "[supported-revenue] States Q4 revenue increased to $10M from $8M." || !got.Passed || !strings.Contains(got.Evidence, "matches the source note") {
		t.Errorf("check %+v", got)
	}
	if !strings.HasPrefix(d.Graders[1].Checks[0].Text, "[rubric-1] Summarize") || d.Graders[1].Reason != "Grader passed." {
		t.Errorf("second grader %+v", d.Graders[1])
	}
	if len(d.Samples) != 1 || len(d.Samples[0].Graders) != 2 || len(d.Samples[0].Graders[0].Checks) != 2 {
		t.Errorf("samples %+v", d.Samples)
	}
}

func TestUpstreamTrials22Rows(t *testing.T) {
	r := mustOpen(t, filepath.Join(upstream(t, "04-v5next-trials-22rows-root-index"), "2026-06-28T10-25-15-380Z"), Options{})
	if p, f, x := r.Counts(); len(r.Cases) != 22 || p != 12 || f != 10 || x != 0 {
		t.Fatalf("%d cases, %d/%d/%d, want 22, 12/10/0", len(r.Cases), p, f, x)
	}
	if r.Layout != LayoutTrials {
		t.Errorf("layout %s", r.Layout)
	}
	missing := 0
	for _, c := range r.Cases {
		d, err := r.Detail(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Samples) != 1 || c.Samples[0].Label != "run-1" {
			t.Errorf("%s samples %+v", c.TestID, c.Samples)
		}
		switch c.TestID {
		case "exp-high-001", "exp-med-001":
			if d.Answer.Missing || d.Answer.Content == "" || len(d.Samples[0].Graders) != 1 || len(d.Samples[0].Graders[0].Checks) != 3 {
				t.Errorf("%s: answer %+v samples %+v", c.TestID, d.Answer, d.Samples)
			}
		default:
			if d.Answer.Missing && d.Answer.Present {
				missing++
			}
			if len(d.Graders) != 1 { // the row's own graders survive missing sidecars
				t.Errorf("%s graders %+v", c.TestID, d.Graders)
			}
		}
	}
	if missing != 20 {
		t.Errorf("%d answers missing, want 20", missing)
	}
}

func TestUpstreamFlat(t *testing.T) {
	dir := upstream(t, "06-flat-jsonl-v4-wire")
	r := mustOpen(t, filepath.Join(dir, "suite.baseline.jsonl"), Options{})
	if r.ID != "suite.baseline" || r.Layout != LayoutFlat || len(r.Cases) != 7 {
		t.Fatalf("run %s %s %d cases", r.ID, r.Layout, len(r.Cases))
	}
	d := mustDetail(t, r, "code-review-javascript")
	if len(d.Graders) != 0 || len(d.Checks) != 4 || d.Checks[3].Text != "Explicitly includes SUPERSECRET_INSTRUCTION_MARKER_JAVASCRIPT" {
		t.Errorf("row-level assertions %+v", d.Checks)
	}
	d = mustDetail(t, r, "code-gen-python-comprehensive")
	if len(d.Graders) != 2 || d.Graders[1].Type != "llm-grader" || len(d.Graders[1].Checks) != 5 || d.Graders[1].Checks[4].Passed {
		t.Errorf("graders %+v", d.Graders)
	}

	trials := mustOpen(t, filepath.Join(dir, "trials.suite.baseline.jsonl"), Options{})
	c := trials.Cases[0]
	if len(c.Samples) != 2 || c.Samples[1].Label != "attempt-1" || !*c.Samples[1].Pass {
		t.Errorf("attempts %+v", c.Samples)
	}

	// The folder holds two flat files: naming it is ambiguous.
	_, err := Open(dir, Options{})
	if ae, ok := err.(*AmbiguousError); !ok || len(ae.Candidates) != 2 {
		t.Errorf("open folder of two flat files: %v", err)
	}
}

func TestUpstreamLegacy(t *testing.T) {
	r := mustOpen(t, upstream(t, "07-flat-jsonl-v1-legacy"), Options{})
	if len(r.Cases) != 4 || r.Cases[0].TestID != "code-review-javascript" || r.Cases[0].Suite != "dataset" || r.Cases[0].Target != "azure_base" {
		t.Fatalf("cases %+v", r.Cases)
	}
	d := mustDetail(t, r, "code-review-javascript")
	if len(d.Checks) != 4 || !d.Checks[0].Passed || !strings.HasPrefix(d.Reasoning, "The candidate answer provides") {
		t.Errorf("hits %+v reasoning %q", d.Checks, d.Reasoning)
	}
	d = mustDetail(t, r, "code-gen-python-comprehensive")
	if len(d.Graders) != 2 || d.Graders[1].Key() != "llm_judge:code_correctness" || !strings.HasPrefix(d.Graders[1].Reason, "The function is functionally correct") {
		t.Fatalf("evaluator_results %+v", d.Graders)
	}
	checks := d.Graders[1].Checks
	if len(checks) != 5 || !checks[0].Passed || checks[4].Passed || checks[4].Text != "Missing type hints for function parameters" {
		t.Errorf("hits/misses %+v", checks)
	}
}
