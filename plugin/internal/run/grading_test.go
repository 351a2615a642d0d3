package run

import (
	"path/filepath"
	"testing"
)

// TestGradingShapes merges each of grading.json's four historical shapes
// into the row's graders.
func TestGradingShapes(t *testing.T) {
	row := func(id, grading string) string {
		return `{"test_id":"` + id + `","score":0.5,"grading_path":"` + grading + `","scores":[{"name":"g","type":"llm-grader","score":0.5,"verdict":"fail"}]}` + "\n"
	}
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"run/index.jsonl": row("march", "m/grading.json") + row("v4", "v4/grading.json") + row("july", "j/grading.json") + row("v5", "v5/grading.json") +
			`{"test_id":"rowless","score":0,"grading_path":"r/grading.json"}` + "\n" +
			`{"test_id":"broken","score":0,"grading_path":"b/grading.json","scores":[{"name":"g","type":"t","score":0}]}` + "\n",
		"run/m/grading.json": `{"expectations":[{"text":"flat","passed":true}],
			"evaluators":[{"name":"g","type":"llm-grader","score":0.5,"reasoning":"march reason","expectations":[{"text":"e1","passed":false,"evidence":"ev"}]}]}`,
		"run/v4/grading.json": `{"assertions":[{"text":"flat","passed":true}],
			"graders":[{"name":"g","type":"llm-grader","score":0.5,"reasoning":"v4 reason","verdict":"fail","assertions":[{"text":"e1","passed":false,"evidence":"ev"}]},
			           {"name":"extra","type":"contains","score":1,"verdict":"pass","assertions":[]}]}`,
		"run/j/grading.json": `{"assertion_results":[{"text":"flat","passed":true}],
			"graders":[{"name":"g","type":"llm-grader","score":0.5,"reasoning":"july reason","assertion_results":[{"text":"e1","passed":false,"evidence":"ev"}]}]}`,
		"run/v5/grading.json": `{"pass":false,"score":0.5,"reason":"top","component_results":[
			{"pass":false,"score":0.5,"reason":"v5 reason","assertion":{"name":"g","type":"llm-grader"},
			 "component_results":[{"pass":false,"score":0,"reason":"ev","assertion":{"name":"g","type":"llm-grader","value":"e1"}}]}]}`,
		"run/r/grading.json": `{"assertions":[{"text":"Error: boom","passed":false}]}`,
		"run/b/grading.json": `{"graders":`,
	})
	r := mustOpen(t, filepath.Join(tmp, "run"), Options{})
	for id, reason := range map[string]string{"march": "march reason", "v4": "v4 reason", "july": "july reason", "v5": "v5 reason"} {
		d := mustDetail(t, r, id)
		if len(d.Graders) < 1 {
			t.Fatalf("%s: no graders", id)
		}
		g := d.Graders[0]
		if g.Reason != reason || len(g.Checks) != 1 || g.Checks[0] != (Check{Text: "e1", Passed: false, Evidence: "ev"}) || g.Verdict != "fail" || *g.Pass {
			t.Errorf("%s: grader %+v", id, g)
		}
		if len(d.Checks) != 0 {
			t.Errorf("%s: flattened assertions repeated as row checks %+v", id, d.Checks)
		}
	}
	if d := mustDetail(t, r, "v4"); len(d.Graders) != 2 || d.Graders[1].Key() != "contains:extra" {
		t.Errorf("grading-only grader not appended: %+v", d.Graders)
	}
	if d := mustDetail(t, r, "rowless"); len(d.Graders) != 0 || len(d.Checks) != 1 || d.Checks[0].Text != "Error: boom" {
		t.Errorf("grading without graders: %+v %+v", d.Graders, d.Checks)
	}
	if d := mustDetail(t, r, "broken"); len(d.Graders) != 1 || !hasWarning(d.Warnings, "malformed grading.json") {
		t.Errorf("broken grading.json: %+v %v", d.Graders, d.Warnings)
	}
}

// TestDetailSources covers v5 multi-sample grading, the response.md
// wrapper, inline input messages and file changes.
func TestDetailSources(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"run/summary.json": `{"index_path":".internal/index.jsonl"}`,
		"run/.internal/index.jsonl": `{"test_id":"multi","score":0.5,"result_dir":"multi--0123456789ab","response_path":"multi--0123456789ab/response.md",` +
			`"input":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"file_changes_path":"multi--0123456789ab/file_changes.diff",` +
			`"scores":[{"name":"g","type":"contains","score":0.5}],` +
			`"samples":[{"sample":1,"sample_path":"sample-1","score":1,"status":"passed","scores":[{"name":"g","type":"contains","score":1,"pass":true}]},` +
			`{"sample":2,"sample_path":"sample-2","score":0,"status":"failed"},{"sample":3,"score":0,"status":"skipped"}]}` + "\n",
		"run/multi--0123456789ab/response.md":           "@[assistant]:\nfirst try\n\n@[user]:\nagain\n\n@[assistant]:\nfinal answer\n",
		"run/multi--0123456789ab/file_changes.diff":     "--- a/x\n+++ b/x\n",
		"run/multi--0123456789ab/sample-1/grading.json": `{"pass":true,"score":1,"component_results":[{"pass":true,"score":1,"reason":"s1","assertion":{"name":"g","type":"contains","value":"has x"}}]}`,
		"run/multi--0123456789ab/sample-2/grading.json": `{"pass":false,"score":0,"component_results":[{"pass":false,"score":0,"reason":"s2","assertion":{"name":"g","type":"contains","value":"has x"}}]}`,
	})
	r := mustOpen(t, filepath.Join(tmp, "run"), Options{})
	c := r.Cases[0]
	if len(c.Samples) != 3 || !*c.Samples[0].Pass || *c.Samples[1].Pass || c.Samples[2].Pass != nil || c.Samples[2].Label != "sample-3" || !c.HasWorkspace {
		t.Errorf("samples %+v", c.Samples)
	}
	d := mustDetail(t, r, "multi")
	if d.Answer.Content != "final answer" {
		t.Errorf("answer %q", d.Answer.Content)
	}
	if want := "@[system]:\nbe brief\n\n@[user]:\nhi"; d.Input.Content != want {
		t.Errorf("input %q, want %q", d.Input.Content, want)
	}
	if d.FileChanges.Content != "--- a/x\n+++ b/x\n" {
		t.Errorf("file changes %+v", d.FileChanges)
	}
	s1, s2 := d.Samples[0], d.Samples[1]
	if len(s1.Graders) != 1 || len(s1.Graders[0].Checks) != 1 || s1.Graders[0].Reason != "s1" || s1.Graders[0].Checks[0].Text != "has x" || !s1.Graders[0].Checks[0].Passed {
		t.Errorf("sample 1 graders %+v", s1.Graders)
	}
	if len(s2.Graders) != 1 || s2.Graders[0].Reason != "s2" || *s2.Graders[0].Pass {
		t.Errorf("sample 2 graders (from grading.json only) %+v", s2.Graders)
	}
	if len(d.Samples[2].Graders) != 0 || len(d.Warnings) != 0 {
		t.Errorf("sample 3 %+v, warnings %v", d.Samples[2], d.Warnings)
	}
}
