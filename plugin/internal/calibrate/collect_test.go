package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
)

const corpus = "../../../testdata/agentv-4.42.4/runs"

func TestCaseGradersConfigs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "iterations-1")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, "iterations-1"))); err != nil {
		t.Fatal(err)
	}
	// The bundle names the judge differently: its configuration is not recorded.
	eval := filepath.Join(dir, "iterations", "it-fixed", "task", "EVAL.yaml")
	b, err := os.ReadFile(eval)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(eval, []byte(strings.Replace(string(b), "name: judge", "name: other", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{Outline: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Find("it-fixed")
	if err != nil {
		t.Fatal(err)
	}
	gs, err := CaseGraders(r, c)
	if err != nil || len(gs) != 2 {
		t.Fatalf("graders = %+v, %v", gs, err)
	}
	want := fp(t, GraderDef{Type: "icontains", Name: "icontains-not found", Value: "not found"})
	if g := gs[0]; g.Key != "icontains:icontains-not found" || g.Config != want || g.Verdict != GraderFail || g.Unrecorded {
		t.Errorf("icontains = %+v, want config %s", g, want)
	}
	want = fp(t, UnrecordedDef("llm-grader", "judge"))
	if g := gs[1]; g.Key != "llm-grader:judge" || g.Config != want || g.Verdict != GraderPass || !g.Unrecorded {
		t.Errorf("judge = %+v, want unrecorded config %s", g, want)
	}
	if want == fp(t, GraderDef{Type: "llm-grader", Name: "judge"}) {
		t.Error("an unrecorded configuration equals a recorded one")
	}
}

func TestGraderDef(t *testing.T) {
	w := 2.0
	a := run.Assertion{Type: "llm-grader", Name: "j", Required: "0.8",
		Settings: []run.Setting{{Key: "command", Value: `["node","x.js"]`}, {Key: "prompt", Value: "Be  strict"},
			{Key: "target", Value: "judge"}, {Key: "threshold", Value: "0.5"}, {Key: "mode", Value: "fast"}},
		Rubrics:  []run.Rubric{{ID: "r1", Outcome: "names it", Weight: &w, Required: true}},
		Children: []run.Assertion{{Type: "contains", Value: "x"}}}
	def := graderDef(a)
	if def.Prompt != "Be  strict" || def.Target != "judge" || len(def.Command) != 2 || def.Params["threshold"] != 0.5 ||
		def.Params["mode"] != "fast" || def.Params["assertions"] == nil || def.Rubrics[0].Weight != 2 || def.Rubrics[0].Required != "true" {
		t.Errorf("def = %+v", def)
	}
	if _, err := Fingerprint(def); err != nil {
		t.Error(err)
	}
}
