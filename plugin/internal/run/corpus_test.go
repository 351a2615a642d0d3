package run

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

const corpus = "../../../testdata/agentv-4.42.4"

// evalCounts parses AgentV's own console summary ("Total tests: 15",
// "Passed: 6", "Quality failures: 6", "Execution errors: 3").
func evalCounts(t *testing.T, file string) (total, passed, failed, errored int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields := map[string]*int{"Total tests": &total, "Passed": &passed, "Quality failures": &failed, "Execution errors": &errored}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ": ")
		if p, known := fields[name]; ok && known {
			if *p, err = strconv.Atoi(strings.TrimSpace(val)); err != nil {
				t.Fatalf("%s: %q: %v", file, sc.Text(), err)
			}
		}
	}
	if total == 0 {
		t.Fatalf("%s: no \"Total tests\" line", file)
	}
	return total, passed, failed, errored
}

type derivedRow struct {
	TestID          string   `json:"test_id"`
	Target          string   `json:"target"`
	Score           float64  `json:"score"`
	ExecutionStatus string   `json:"execution_status"`
	Graders         []string `json:"graders"`
}

type derived struct {
	IndexRows int          `json:"index_rows"`
	Rows      []derivedRow `json:"rows"`
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func fmtGrader(g GraderSummary) string {
	v := g.Verdict
	return fmt.Sprintf("%s:%s=%s/%s", g.Name, g.Type, strconv.FormatFloat(*g.Score, 'g', -1, 64), v)
}

// TestCorpusMatchesAgentV opens every real 4.42.4 run and compares the
// counts with AgentV's console output and each case with the rows
// derived from index.jsonl (last row wins).
func TestCorpusMatchesAgentV(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(corpus, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, e := range entries {
		if e.IsDir() {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) != 10 {
		t.Fatalf("expected 10 corpus runs, found %d", len(runs))
	}
	for _, name := range runs {
		t.Run(name, func(t *testing.T) {
			r, err := Open(filepath.Join(corpus, "runs", name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			expected := filepath.Join(corpus, "expected", name+".eval-run.txt")
			if rerun := filepath.Join(corpus, "expected", name+".eval-rerun-failed.txt"); exists(rerun) {
				expected = rerun // the run's final state
			}
			total, passed, failed, errored := evalCounts(t, expected)
			p, f, x := r.Counts()
			if len(r.Cases) != total || p != passed || f != failed || x != errored {
				t.Errorf("cases %d, passed/failed/errored %d/%d/%d; AgentV says %d, %d/%d/%d",
					len(r.Cases), p, f, x, total, passed, failed, errored)
			}
			if r.Layout != LayoutIndex {
				t.Errorf("layout %s, want %s", r.Layout, LayoutIndex)
			}

			var d derived
			readJSON(t, filepath.Join(corpus, "expected", name+".derived-rows.json"), &d)
			if r.Rows != d.IndexRows {
				t.Errorf("read %d rows, index has %d", r.Rows, d.IndexRows)
			}
			want := map[string]derivedRow{}
			var order []string
			for _, row := range d.Rows {
				k := row.TestID + "@" + row.Target
				if _, seen := want[k]; !seen {
					order = append(order, k)
				}
				want[k] = row
			}
			if len(order) != len(r.Cases) {
				t.Fatalf("%d cases, want %d", len(r.Cases), len(order))
			}
			for i, c := range r.Cases {
				w := want[order[i]]
				if c.TestID+"@"+c.Target != order[i] || c.Score != w.Score || c.ExecutionStatus != w.ExecutionStatus {
					t.Errorf("case %d = %s@%s %g %s, want %s %g %s", i, c.TestID, c.Target, c.Score, c.ExecutionStatus, order[i], w.Score, w.ExecutionStatus)
				}
				var got []string
				for _, g := range c.Graders {
					got = append(got, fmtGrader(g))
				}
				if strings.Join(got, "|") != strings.Join(w.Graders, "|") {
					t.Errorf("%s graders %q, want %q", order[i], got, w.Graders)
				}
			}
		})
	}
}

func TestCorpusDuplicatesCollapse(t *testing.T) {
	r := mustOpen(t, filepath.Join(corpus, "runs", "rerun-failed-duplicate-rows"), Options{})
	dupes := map[string]int32{}
	for _, c := range r.Cases {
		dupes[c.TestID] = c.Duplicates
	}
	want := map[string]int32{"it-stable-pass": 0, "it-stable-fail": 1, "it-error-then-recovered": 1}
	for id, n := range want {
		if dupes[id] != n {
			t.Errorf("%s: Duplicates %d, want %d", id, dupes[id], n)
		}
	}
	// The winner keeps the first position but is the last row.
	if c := r.Cases[2]; c.TestID != "it-error-then-recovered" || c.Loc.Line != 5 || c.Outcome != Passed {
		t.Errorf("case 3 = %s line %d %s, want it-error-then-recovered line 5 passed", c.TestID, c.Loc.Line, c.Outcome)
	}
	if !hasWarning(r.Warnings, "2 duplicate row") {
		t.Errorf("no duplicate warning in %v", r.Warnings)
	}
}

func mustOpen(t testing.TB, target string, opts Options) *Run {
	t.Helper()
	r, err := Open(target, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustDetail(t testing.TB, r *Run, ref string) *Detail {
	t.Helper()
	c, err := r.Find(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Detail(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func hasWarning(ws []Warning, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Msg, sub) {
			return true
		}
	}
	return false
}

func readString(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCorpusDetail(t *testing.T) {
	core := mustOpen(t, filepath.Join(corpus, "runs", "core-pass-fail-error"), Options{})

	t.Run("answer, input and graders", func(t *testing.T) {
		d := mustDetail(t, core, "capital-france")
		dir := filepath.Join(core.Dir, "core", "capital-france")
		if want := readString(t, filepath.Join(dir, "outputs", "answer.md")); d.Answer.Content != want || d.Answer.Missing || d.Answer.Truncated {
			t.Errorf("answer %+v, want %q", d.Answer, want)
		}
		if want := readString(t, filepath.Join(dir, "input.md")); d.Input.Content != want {
			t.Errorf("input %q, want %q", d.Input.Content, want)
		}
		if len(d.Graders) != 4 || d.Graders[3].Key() != "llm-grader:judge" {
			t.Fatalf("graders %+v", d.Graders)
		}
		judge := d.Graders[3]
		if len(judge.Checks) != 2 || judge.Checks[0].Evidence != "Mentions the expected fact." || !judge.Checks[1].Passed {
			t.Errorf("judge checks %+v", judge.Checks)
		}
		if d.Tokens == nil || *d.Tokens.Input != 42 || d.CostUSD == nil || *d.CostUSD != 0.00012 || *d.DurationMS != 283 {
			t.Errorf("tokens/cost/duration %+v %v %v", d.Tokens, d.CostUSD, d.DurationMS)
		}
		if len(d.Sidecars) == 0 || !d.Sidecars[0].Present {
			t.Errorf("sidecars %+v", d.Sidecars)
		}
	})

	t.Run("composite children", func(t *testing.T) {
		d := mustDetail(t, core, "composite-gate")
		var comp *Grader
		for i := range d.Graders {
			if d.Graders[i].Type == "composite" {
				comp = &d.Graders[i]
			}
		}
		if comp == nil || len(comp.Children) != 2 || comp.Children[1].Name != "polite" || *comp.Children[1].Pass {
			t.Errorf("composite %+v", comp)
		}
	})

	t.Run("skip verdict is unknown", func(t *testing.T) {
		c, err := core.Find("judge-unparseable")
		if err != nil {
			t.Fatal(err)
		}
		var skipped bool
		for _, g := range c.Graders {
			if g.Verdict == "skip" {
				skipped = g.Pass == nil
			}
		}
		if !skipped || c.Outcome != Errored || c.FailureStage != "evaluator" {
			t.Errorf("case %+v", c)
		}
	})

	t.Run("agent crash", func(t *testing.T) {
		d := mustDetail(t, core, "crash")
		if !strings.Contains(d.Case.Error, "simulated agent crash") || d.Case.Outcome != Errored || d.FailureReason != "provider_error" {
			t.Errorf("case %+v, failure %q", d.Case, d.FailureReason)
		}
		if len(d.Graders) != 0 || len(d.Checks) != 1 || !strings.HasPrefix(d.Checks[0].Text, "Error: ") {
			t.Errorf("graders %+v checks %+v", d.Graders, d.Checks)
		}
		if !strings.HasPrefix(d.Answer.Content, "Error occurred: ") {
			t.Errorf("answer %q", d.Answer.Content)
		}
	})

	hazards := filepath.Join(corpus, "runs", "terminal-hazards")
	t.Run("long answer", func(t *testing.T) {
		d := mustDetail(t, mustOpen(t, hazards, Options{}), "long-output")
		if len(d.Answer.Content) != 112702 || d.Answer.Size != 112702 || d.Answer.Truncated {
			t.Errorf("answer %d bytes of %d, truncated %v", len(d.Answer.Content), d.Answer.Size, d.Answer.Truncated)
		}
		d = mustDetail(t, mustOpen(t, hazards, Options{AnswerLimit: 1000}), "long-output")
		if len(d.Answer.Content) != 1000 || d.Answer.Size != 112702 || !d.Answer.Truncated {
			t.Errorf("limited answer %d bytes of %d, truncated %v", len(d.Answer.Content), d.Answer.Size, d.Answer.Truncated)
		}
	})

	t.Run("odd test ids", func(t *testing.T) {
		r := mustOpen(t, hazards, Options{})
		for _, id := range []string{"ünïcødé-テスト-id", "odd:id*with?chars"} {
			if d := mustDetail(t, r, id); d.Answer.Missing || d.Answer.Content == "" {
				t.Errorf("%s: answer %+v", id, d.Answer)
			}
		}
	})

	t.Run("workspace", func(t *testing.T) {
		r := mustOpen(t, filepath.Join(corpus, "runs", "workspace-file-changes"), Options{})
		for _, c := range r.Cases {
			d, err := r.Detail(c)
			if err != nil {
				t.Fatal(err)
			}
			if !c.HasWorkspace || !strings.HasPrefix(d.WorkspacePath, "/home/user/.agentv/workspaces/") || d.FileChanges.Present {
				t.Errorf("%s: HasWorkspace %v, workspace %q, file changes %+v", c.TestID, c.HasWorkspace, d.WorkspacePath, d.FileChanges)
			}
		}
	})

	t.Run("multi-target shared folders", func(t *testing.T) {
		r := mustOpen(t, filepath.Join(corpus, "runs", "multi-target-v1-v2"), Options{})
		v1 := mustDetail(t, r, "mt-v1-only@agent-v1")
		if v1.Case.OverwrittenBy != "agent-v2" || !v1.Answer.Missing || !hasWarning(v1.Warnings, "overwritten") {
			t.Errorf("agent-v1: overwritten by %q, answer %+v, warnings %v", v1.Case.OverwrittenBy, v1.Answer, v1.Warnings)
		}
		if len(v1.Graders) != 2 || !*v1.Graders[0].Pass {
			t.Errorf("agent-v1 graders must be the row's own: %+v", v1.Graders)
		}
		v2 := mustDetail(t, r, "mt-v1-only@agent-v2")
		if v2.Case.OverwrittenBy != "" || v2.Answer.Content != "Plants are green." {
			t.Errorf("agent-v2: overwritten by %q, answer %+v", v2.Case.OverwrittenBy, v2.Answer)
		}
	})
}

func TestFindRef(t *testing.T) {
	r := mustOpen(t, filepath.Join(corpus, "runs", "multi-target-v1-v2"), Options{})
	_, err := r.Find("mt-both-pass")
	if err == nil || !strings.Contains(err.Error(), "mt-both-pass@agent-v1, mt-both-pass@agent-v2") {
		t.Errorf("ambiguous find: %v", err)
	}
	if code := clierr.Code(err); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	for i, c := range r.Cases {
		ref := r.Ref(c)
		if !strings.Contains(ref, "@") {
			t.Errorf("ref %q for a test id shared by two targets", ref)
		}
		got, err := r.Find(ref)
		if err != nil || got != c {
			t.Errorf("Find(Ref(case %d)=%q) = %v, %v", i, ref, got, err)
		}
		if got, err := r.Find("#" + strconv.Itoa(i+1)); err != nil || got != c {
			t.Errorf("Find(#%d) = %v, %v", i+1, got, err)
		}
	}
	for _, bad := range []string{"#0", "#9", "#x", "nope", "mt-both-pass@agent-v3"} {
		if _, err := r.Find(bad); clierr.Code(err) != 2 || clierr.HintOf(err) == "" {
			t.Errorf("Find(%q) = %v, want a usage error with a hint", bad, err)
		}
	}
	core := mustOpen(t, filepath.Join(corpus, "runs", "core-pass-fail-error"), Options{})
	if ref := core.Ref(core.Cases[0]); ref != "capital-france" {
		t.Errorf("unique ref %q", ref)
	}
}
