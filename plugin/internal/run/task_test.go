package run

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustTask(t *testing.T, r *Run, d *Detail) *Task {
	t.Helper()
	tk, err := r.Task(d)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestTaskCore(t *testing.T) {
	r := mustOpen(t, filepath.Join(corpus, "runs/core-pass-fail-error"), Options{})

	tk := mustTask(t, r, mustDetail(t, r, "required-gate"))
	if tk.Source != "core/required-gate/task/EVAL.yaml" || tk.Criteria != "Must deny access to the restricted area." || len(tk.Problems) != 0 {
		t.Fatalf("task %+v", tk)
	}
	if len(tk.Assertions) != 3 || tk.Assertions[0].Required != "true" || tk.Assertions[0].Value != "DENIED" || tk.Assertions[1].Required != "" {
		t.Fatalf("assertions %+v", tk.Assertions)
	}

	tk = mustTask(t, r, mustDetail(t, r, "haiku"))
	if len(tk.Graders) != 2 || tk.Graders[1].Details != `{"syllables":[5,6,5]}` {
		t.Fatalf("grader records %+v", tk.Graders)
	}
	if a := tk.Assertions[1]; a.Type != "llm-grader" || len(a.Settings) != 1 || a.Settings[0] != (Setting{"target", "judge-fail"}) {
		t.Fatalf("llm-grader assertion %+v (prompt: undefined must be dropped)", a)
	}

	tk = mustTask(t, r, mustDetail(t, r, "composite-gate"))
	if a := tk.Assertions[0]; len(a.Children) != 2 || a.Children[0].Value != "30 days" || a.Settings[0].Key != "aggregator" {
		t.Fatalf("composite %+v", a)
	}
	tk = mustTask(t, r, mustDetail(t, r, "rubric-explain"))
	if rb := tk.Assertions[0].Rubrics; len(rb) != 3 || *rb[0].Weight != 3 || !rb[2].Required || rb[0].ID != "accuracy" {
		t.Fatalf("rubrics %+v", rb)
	}
	tk = mustTask(t, r, mustDetail(t, r, "multi-turn"))
	if !strings.HasPrefix(tk.Input, "@[system]:\nYou are a helpful assistant.") || tk.Expected != "Your name is Alice." {
		t.Fatalf("input %q expected %q", tk.Input, tk.Expected)
	}
	tk = mustTask(t, r, mustDetail(t, r, "tool-use"))
	var budget string
	for _, s := range tk.Assertions[3].Settings {
		if s.Key == "budget" {
			budget = s.Value
		}
	}
	if budget != "0.01" {
		t.Fatalf("cost budget %q in %+v", budget, tk.Assertions[3])
	}
}

func TestTaskFileChangesFromPrompt(t *testing.T) {
	r := mustOpen(t, filepath.Join(corpus, "runs/workspace-file-changes"), Options{})
	tk := mustTask(t, r, mustDetail(t, r, "ws-add-docs"))
	if !strings.HasPrefix(tk.FileChanges, "diff --git a/NOTES.txt b/NOTES.txt\n") || !strings.HasSuffix(tk.FileChanges, "+Run `node src/greet.js`.") {
		t.Fatalf("file changes %q", tk.FileChanges)
	}
}

func TestTaskV5(t *testing.T) {
	r := mustOpen(t, upstream(t, "01-v5-samples-pass"), Options{})
	d, err := r.Detail(r.Cases[0])
	if err != nil {
		t.Fatal(err)
	}
	tk := mustTask(t, r, d)
	if !strings.HasPrefix(tk.Input, "@[user]:\nSource note:") || !strings.HasPrefix(tk.Expected, "@[assistant]:\nQ4 revenue") {
		t.Fatalf("input %q expected %q", tk.Input, tk.Expected)
	}
	if len(tk.Assertions) != 2 || tk.Assertions[0].Name != "llm-rubric" || tk.Assertions[0].Rubrics[1].Operator != "contradiction" {
		t.Fatalf("assertions %+v", tk.Assertions)
	}
}

// copyRun copies a corpus run into a temp dir, so a test can break it.
func copyRun(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(corpus, "runs", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestTaskProblems(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	eval := filepath.Join(dir, "core/haiku/task/EVAL.yaml")
	if err := os.WriteFile(eval, []byte("tests: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "core/math-sum/task/EVAL.yaml")); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, Options{})
	for id, want := range map[string]string{"haiku": ProblemMalformed, "math-sum": ProblemMissing} {
		tk := mustTask(t, r, mustDetail(t, r, id))
		if len(tk.Problems) != 1 || tk.Problems[0].Problem != want || tk.Problems[0].Path != "core/"+id+"/task/EVAL.yaml" {
			t.Errorf("%s: problems %+v, want %s", id, tk.Problems, want)
		}
	}
	// An OS error other than "not there" is unreadable, with its cause:
	// a file where the folder should be (root reads every file, so a
	// permission error cannot be made here when running as root).
	outputs := filepath.Join(dir, "core/date-format/outputs")
	if err := os.RemoveAll(outputs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outputs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := mustDetail(t, r, "date-format")
	if p := r.Problem(d, d.Answer); p == nil || p.Problem != ProblemUnreadable || !strings.Contains(p.Cause, "not a directory") {
		t.Fatalf("unreadable answer: %+v", p)
	}
	if os.Geteuid() == 0 {
		return
	}
	input := filepath.Join(dir, "core/date-format/input.md")
	if err := os.Chmod(input, 0); err != nil {
		t.Fatal(err)
	}
	d = mustDetail(t, r, "date-format")
	if p := r.Problem(d, d.Input); p == nil || p.Problem != ProblemUnreadable || !strings.Contains(p.Cause, "permission") {
		t.Fatalf("unreadable input: %+v", p)
	}
}

func TestProblemMissingAnswer(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	if err := os.Remove(filepath.Join(dir, "core/date-format/outputs/answer.md")); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, Options{})
	d := mustDetail(t, r, "date-format")
	if p := r.Problem(d, d.Answer); p == nil || p.Problem != ProblemMissing || p.Path != "core/date-format/outputs/answer.md" || p.Field != "answer_path" && p.Field != "output_path" {
		t.Fatalf("missing answer: %+v", p)
	}
	if p := r.Problem(d, d.Input); p != nil {
		t.Fatalf("input was read, yet %+v", p)
	}
}

// sectionsByMap is how the grader prompts' sections were read before
// promptSection: every section into a map, the last of a name winning.
func sectionsByMap(p string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(p, "[[ ## ")[1:] {
		name, body, ok := strings.Cut(part, " ## ]]")
		if ok {
			out[name] = strings.TrimSpace(body)
		}
	}
	return out
}

var promptSeeds = []string{
	"", "no sections", "[[ ## criteria ## ]]\nbe right\n\n[[ ## reference_answer ## ]]\n42\n",
	"[[ ## criteria ## ]] a [[ ## criteria ## ]] b", "[[ ## criteria ## ]", "[[ ## [[ ## criteria ## ]]x",
	"[[ ## criteria ## ]] ## ]] y", "pre [[ ## file_changes ## ]]\n--- a\n+++ b\n[[ ## ",
}

func FuzzPromptSection(f *testing.F) {
	for _, s := range promptSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) { checkPromptSection(t, p) })
}

func TestPromptSection(t *testing.T) {
	for _, p := range promptSeeds {
		checkPromptSection(t, p)
	}
}

// FuzzPromptOf: a prompt's sections read from its JSON string (prompt,
// which decodes only a section's text when the string has no \u escape)
// are promptSection's of the decoded prompt, for the string as
// encoding/json writes it with and without HTML escapes, and for any
// valid JSON string body.
func FuzzPromptOf(f *testing.F) {
	for _, s := range promptSeeds {
		f.Add(s)
	}
	f.Add(`[[ ## criteria ## ]]\n  \"q\" \\[[ ## reference_answer ## ]]\t\u0041\r\n`)
	f.Add(`[[\u0020## criteria ## ]] a [[ ## criteria\/ ## ]] b \ud83d\ude00`)
	f.Add("[[ ## criteria ## ]] \xff\xfe bad")
	f.Fuzz(func(t *testing.T, p string) {
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		html, _ := json.Marshal(p)
		quoted := [][]byte{bytes.TrimSuffix(plain.Bytes(), []byte("\n")), html}
		if q := []byte(`"` + p + `"`); json.Valid(q) {
			quoted = append(quoted, q)
		}
		for _, q := range quoted {
			var text string
			if err := json.Unmarshal(q, &text); err != nil {
				t.Fatal(err)
			}
			got := promptOf(q)
			if has, want := bytes.Contains(got.text, []byte(sectionOpen)), strings.Contains(text, sectionOpen); has != want {
				t.Errorf("%s: has sections %v, want %v", q, has, want)
			}
			for _, names := range [][]string{sectionNames[:], {"reference_answer"}, {"file_changes", "criteria"}} {
				out := make([]string, len(names))
				got.sections(names, out)
				for i, name := range names {
					if want := promptSection(text, name); out[i] != want {
						t.Errorf("%s: section %q = %q, want %q", q, name, out[i], want)
					}
				}
			}
		}
	})
}

// checkPromptSection: promptSection finds every section the map does.
func checkPromptSection(t *testing.T, p string) {
	t.Helper()
	want := sectionsByMap(p)
	for _, name := range []string{"criteria", "reference_answer", "file_changes", "", "x"} {
		if got := promptSection(p, name); got != want[name] {
			t.Errorf("%q: section %q = %q, want %q", p, name, got, want[name])
		}
	}
	for name, body := range want {
		if got := promptSection(p, name); got != body {
			t.Errorf("%q: section %q = %q, want %q", p, name, got, body)
		}
	}
}
