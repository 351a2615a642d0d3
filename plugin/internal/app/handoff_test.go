package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/calibrate"
)

func TestHandoffGolden(t *testing.T) {
	root := scriptIterations(t)
	run3 := filepath.Join(root, iterationRuns[2].id)
	// An agent proposal in run 3 is on it-stable-pass and it-stable-fail.
	norm := func(s string) string { return strings.ReplaceAll(s, root, "<root>") }
	golden(t, "handoff.md", norm(mustRun(t, "handoff", run3)))
	golden(t, "handoff.json", norm(mustRun(t, "handoff", "--json", run3)))
	golden(t, "handoff-holdout.md", norm(mustRun(t, "handoff", "--holdout", "it-re*", run3)))
}

func TestHandoffSections(t *testing.T) {
	root := scriptIterations(t)
	run3 := filepath.Join(root, iterationRuns[2].id)
	var h calibrate.Handoff
	if err := json.Unmarshal([]byte(mustRun(t, "handoff", "--json", run3)), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Proposals) != 2 || h.Proposals[0].Cases[0].Confirm != "agentv review set --verdict acceptable "+run3+" it-stable-pass" {
		t.Errorf("proposals = %+v", h.Proposals)
	}
	kinds := func(items []calibrate.Item) (out []string) {
		for _, it := range items {
			out = append(out, it.Kind)
		}
		return out
	}
	if got := strings.Join(kinds(h.Graders), " "); !strings.Contains(got, "grader:contains:contains-Tokyo") || !strings.Contains(got, `grader:regex:regex-\bAu\b`) {
		t.Errorf("grader items = %s", got)
	}
	for _, it := range h.Graders {
		if it.Grader == nil || it.Grader.Band != calibrate.Exploration {
			t.Errorf("%s: grader info %+v, want its calibration", it.Kind, it.Grader)
		}
	}
	// The judge passed every labelled case although people judged both ways.
	if got := strings.Join(kinds(h.Tests), " "); !strings.Contains(got, "non_discriminating_assertion:llm-grader:judge") {
		t.Errorf("test items = %s", got)
	}
	if len(h.Agent) != 1 || h.Agent[0].Kind != "incorrect" || h.Agent[0].Cases[0].TestID != "it-reworded" {
		t.Errorf("agent items = %+v", h.Agent)
	}
	if h.Holdout != nil {
		t.Errorf("holdout = %+v without holdout cases", h.Holdout)
	}

	// Run 2: an execution error, and holdout by glob.
	run2 := filepath.Join(root, iterationRuns[1].id)
	h = calibrate.Handoff{}
	if err := json.Unmarshal([]byte(mustRun(t, "handoff", "--json", "--holdout", "it-error-*", run2)), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Infrastructure) != 0 || h.Holdout == nil || h.Holdout.Cases != 1 || h.Holdout.Infrastructure != 1 {
		t.Errorf("holdout run 2: infrastructure %+v, holdout %+v", h.Infrastructure, h.Holdout)
	}
	h = calibrate.Handoff{}
	if err := json.Unmarshal([]byte(mustRun(t, "handoff", "--json", "--holdout", "it-error-*", "--include-holdout", run2)), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Infrastructure) != 1 || h.Infrastructure[0].Cases[0].TestID != "it-error-then-recovered" || h.Holdout != nil {
		t.Errorf("include holdout: infrastructure %+v, holdout %+v", h.Infrastructure, h.Holdout)
	}
}

func TestHandoffHoldoutTag(t *testing.T) {
	root := copyIterations(t)
	run1 := filepath.Join(root, iterationRuns[0].id)
	eval := filepath.Join(run1, "iterations", "it-stable-fail", "task", "EVAL.yaml")
	b, err := os.ReadFile(eval)
	if err != nil {
		t.Fatal(err)
	}
	tagged := strings.Replace(string(b), "    assertions:", "    metadata:\n      tags: [holdout]\n    assertions:", 1)
	if tagged == string(b) {
		t.Fatal("EVAL.yaml has no assertions line")
	}
	writeFile(t, eval, tagged)
	fixClock(t)
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "incorrect", "--note", "secret holdout detail", run1, "it-stable-fail")
	out := mustRun(t, "handoff", run1)
	if strings.Contains(out, "it-stable-fail") || strings.Contains(out, "secret") || !strings.Contains(out, "1 holdout case(s) withheld") {
		t.Errorf("holdout case leaked or not counted:\n%s", out)
	}
	if out := mustRun(t, "handoff", "--include-holdout", run1); !strings.Contains(out, "secret holdout detail") {
		t.Errorf("--include-holdout hides the case:\n%s", out)
	}
}

func TestHandoffUsage(t *testing.T) {
	run := copyRun(t, "iterations-1")
	for _, args := range [][]string{
		{"handoff", "--format", "html", run},
		{"handoff", "--json", "--format", "md", run},
		{"handoff", "--holdout", "[", run},
	} {
		if code, _, _ := runApp(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestMarkdownEscaping(t *testing.T) {
	note := md("fine\n\n## heading\n- item\n<script>x</script> `code` \x1b[31mred")
	got := indent(note, "  ")
	for _, bad := range []string{"\n## ", "\n- ", "<script>", "\x1b", "\n\n"} {
		if strings.Contains(got, bad) {
			t.Errorf("escaped note %q contains %q", got, bad)
		}
	}
	if c := code("a ``b`` c"); c != "```a ``b`` c```" {
		t.Errorf("code = %s", c)
	}
	if c := code("`x"); c != "`` `x ``" {
		t.Errorf("code = %s", c)
	}
}
