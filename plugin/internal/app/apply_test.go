package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

func TestApplyValidation(t *testing.T) {
	iter := copyRun(t, "iterations-3")
	multi := copyRun(t, "multi-target-v1-v2")
	tmp := t.TempDir()
	tests := []struct {
		name     string
		run      string
		input    string
		inStderr []string // the file name is checked for every case
	}{
		{"unknown case", iter, `{"test_id":"nope","verdict":"acceptable"}`, []string{`:1: field "test_id": no case "nope"`}},
		{"bad verdict", iter, "{\"test_id\":\"it-fixed\",\"verdict\":\"acceptable\"}\n{\"test_id\":\"it-regressed\",\"verdict\":\"great\"}",
			[]string{`:2: field "verdict": unknown verdict "great"`, "hint: verdicts: acceptable"}},
		{"bad signal", iter, `[{"test_id":"it-fixed","verdict":"acceptable","signals":["vibes"]}]`, []string{`:1: field "0.signals.0": unknown signal "vibes"`}},
		{"unknown override key", iter, `{"run_id":"r","reviewer":"x","timestamp":"2026-11-30T10:00:00Z","per_case":[
  {"test_id":"it-fixed","verdict":"acceptable"},
  {"test_id":"it-regressed","verdict":"acceptable","evaluator_overrides":{"regex:nope":"x"}}]}`,
			[]string{`:3: field "per_case.1.evaluator_overrides.regex:nope": no grader`, `its graders: regex:regex-\bAu\b`}},
		{"ambiguous test id", multi, `{"test_id":"mt-v1-only","verdict":"acceptable"}`,
			[]string{`field "test_id": "mt-v1-only" could be 2 cases (mt-v1-only@agent-v1, mt-v1-only@agent-v2)`, `hint: add suite, target or variant`}},
		{"unknown target", multi, `{"test_id":"mt-v1-only","target":"agent-v9","verdict":"acceptable"}`, []string{`field "test_id": no case "mt-v1-only@agent-v9"`}},
		{"malformed JSONL line", iter, "{\"test_id\":\"it-fixed\",\"verdict\":\"acceptable\"}\n\n{\"test_id\":\"it-regressed\",\"verdict\":\n",
			[]string{":3: not a JSON object", "hint: one answer object per line"}},
		{"unknown field", iter, `{"test_id":"it-fixed","verdict":"acceptable","signal":["false_positive"]}`, []string{`:1: field "signal": unknown field`, "hint: fields: test_id"}},
		{"wrong type", iter, `{"test_id":"it-fixed","verdict":"acceptable","signals":"false_positive"}`, []string{`field "signals": expected []string, found string`}},
		{"same case twice", iter, "{\"test_id\":\"it-fixed\",\"verdict\":\"acceptable\"}\n{\"test_id\":\"it-fixed\",\"verdict\":\"flaky\"}", []string{":2:", "the same case is judged on line 1"}},
		{"several problems", iter, "{\"test_id\":\"nope\",\"verdict\":\"acceptable\"}\n{\"test_id\":\"it-fixed\",\"verdict\":\"great\"}",
			[]string{":1:", ":2:", "2 invalid answers; nothing was written"}},
		{"empty", iter, " \n", []string{"no answers"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := writeFile(t, filepath.Join(tmp, "answers"+string(rune('a'+i))+".jsonl"), tt.input)
			code, _, stderr := runApp(t, "apply", "--reviewer", "ana", "--from", in, tt.run)
			if code != clierr.CodeInvalid {
				t.Errorf("exit %d, want 3\n%s", code, stderr)
			}
			for _, s := range append(tt.inStderr, in) {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
	for _, dir := range []string{iter, multi} {
		if _, err := os.Stat(filepath.Join(dir, "feedback.json")); err == nil {
			t.Errorf("a refused apply wrote %s/feedback.json", dir)
		}
	}
}

// TestApplyAllOrNothing: one bad answer among good ones leaves the
// existing feedback byte for byte unchanged, with no history entry.
func TestApplyAllOrNothing(t *testing.T) {
	dir := copyRun(t, "iterations-2")
	mustRun(t, "apply", "--reviewer", "ana", "--from", writeFile(t, filepath.Join(t.TempDir(), "ok.jsonl"),
		`{"test_id":"it-fixed","verdict":"acceptable"}`), dir)
	before, err := os.ReadFile(filepath.Join(dir, "feedback.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.jsonl"),
		"{\"test_id\":\"it-regressed\",\"verdict\":\"incorrect\"}\n{\"test_id\":\"it-reworded\",\"verdict\":\"incorrect\",\"evaluator_overrides\":{\"contains:nope\":\"x\"}}\n")
	if code, _, stderr := runApp(t, "apply", "--reviewer", "ana", "--from", bad, dir); code != clierr.CodeInvalid {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "feedback.json"))
	if !bytes.Equal(before, after) {
		t.Error("feedback.json changed although an answer was invalid")
	}
	if hist, _ := filepath.Glob(filepath.Join(dir, "feedback.history", "*")); len(hist) != 0 {
		t.Errorf("history written: %v", hist)
	}
}

func TestApplyFromStdin(t *testing.T) {
	fixClock(t)
	dir := copyRun(t, "multi-target-v1-v2")
	in, err := os.Open(writeFile(t, filepath.Join(t.TempDir(), "in.jsonl"),
		"{\"test_id\":\"mt-v1-only\",\"target\":\"agent-v2\",\"verdict\":\"incorrect\"}\n{\"test_id\":\"mt-both-pass\",\"target\":\"agent-v1\",\"verdict\":\"acceptable\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errOut bytes.Buffer
	s := &Streams{In: in, Out: &out, Err: &errOut, Getenv: func(k string) string {
		return map[string]string{"AGENTV_REVIEWER": "env-name"}[k]
	}}
	if code := Main([]string{"agentv-review", "apply", "--json", "--agent", "--from", "-", dir}, s); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	var rep writeReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 2 || rep.Reviewer != "env-name" || rep.ReviewerKind != feedback.Agent || rep.Archived != nil {
		t.Errorf("report %+v: want 2 entries by $AGENTV_REVIEWER as an agent", rep)
	}
	f, err := feedback.Load(rep.Path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j := entryOf(t, f, r, "mt-v1-only@agent-v2"); j == nil || j.Verdict != feedback.Incorrect || j.ReviewerKind != feedback.Agent {
		t.Errorf("entry for mt-v1-only@agent-v2: %+v", j)
	}
	if j := entryOf(t, f, r, "mt-v1-only@agent-v1"); j != nil {
		t.Errorf("agent-v1 judged too: %+v", j)
	}
}

// entryOf is the entry of f that judges the case ref names in r, nil when none.
func entryOf(t *testing.T, f *feedback.File, r *run.Run, ref string) *feedback.Case {
	t.Helper()
	c, err := r.Find(ref)
	if err != nil {
		t.Fatal(err)
	}
	return feedback.Bind(f, r.CaseIDs()).Entry(int(c.Index))
}

var linesSeeds = []string{
	"{\"test_id\":\"a\",\"verdict\":}\n{\"test_id\":\"a\"}}\n{} x\n{\"test_id\":\"a\",\"signals\":\"x\"}\n{\"test_id\":\"a\",\"scope\":{\"mode\":1}}\n{\"test_id\":\"\xff\"}\n{\"Test_ID\":\"a\",\"x\":1}",
	"{\"test_id\":\"a\",\"verdict\":\"acceptable\"}\n\n{\"test_id\":\"b\",\"verdict\":\"x\",\"extra\":1}\r\n[1]\n{\"test_id\":\"c\",\"notes\":3}\n  \n{bad\n{\"test_id\":\"d\"}",
	"\n\n\n{\"test_id\":\"a\"}\n",
	"{\"test_id\":\"a\"}\n{\"test_id\":\"b\"}\n{\"test_id\":\"c\"}\n{\"test_id\":\"d\"}\n{\"test_id\":\"e\"}\n",
	"",
	"{\"test_id\":\"a\",\"blind_verdict\":\"acceptable\"}",
}

// FuzzLinesFromAsBefore: linesFrom, which leaves checking a line's JSON to
// the Case's UnmarshalJSON, gives the answers and problems it gave when it
// checked each line with json.Valid and decoded it with json.Unmarshal
// (go test runs the seeds).
func FuzzLinesFromAsBefore(f *testing.F) {
	for _, s := range linesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLinesFromAsBefore(t, data) })
}

func checkLinesFromAsBefore(t *testing.T, data []byte) {
	t.Helper()
	var want []answer
	var wantProblems []*clierr.Error
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) || line[0] != '{' {
			wantProblems = append(wantProblems, clierr.Input("in.jsonl", 1+i, "", "not a JSON object", inputHint))
			continue
		}
		a := answer{line: 1 + i}
		if err := json.Unmarshal(line, &a.Case); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				wantProblems = append(wantProblems, clierr.Input("in.jsonl", 1+i, a.path(te.Field), "expected "+te.Type.String()+", found "+te.Value, "fields: "+answerFields))
			} else {
				wantProblems = append(wantProblems, clierr.Input("in.jsonl", 1+i, "", err.Error(), inputHint))
			}
			continue
		}
		switch {
		case len(a.Extra) > 0:
			k := slices.Sorted(maps.Keys(a.Extra))[0]
			wantProblems = append(wantProblems, clierr.Input("in.jsonl", 1+i, a.path(k), "unknown field: apply would drop it", "fields: "+answerFields))
		case a.BlindVerdict != "":
			wantProblems = append(wantProblems, clierr.Input("in.jsonl", 1+i, a.path("blind_verdict"), "only a blind-first guided review records blind_verdict", "remove it"))
		default:
			want = append(want, a)
		}
	}
	got := make([]answer, bytes.Count(data, []byte("\n"))+1)
	n, problems := linesFrom("in.jsonl", data, 1, got)
	if got = got[:n]; len(got) == 0 && len(want) == 0 {
		got, want = nil, nil
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(problems, wantProblems) {
		t.Fatalf("%q: %+v %v; before: %+v %v", data, got, problems, want, wantProblems)
	}
}

// FuzzParseLinesInParts: JSON Lines decoded in parts on several
// goroutines give the answers and problems one part gives, in order (go
// test runs the seeds).
func FuzzParseLinesInParts(f *testing.F) {
	for _, s := range linesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLinesInParts(t, data) })
}

func checkLinesInParts(t *testing.T, data []byte) {
	t.Helper()
	want, wantProblems := parseLinesIn("in.jsonl", data, 1)
	for n := 2; n <= 7; n++ {
		got, problems := parseLinesIn("in.jsonl", data, n)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(problems, wantProblems) {
			t.Fatalf("%q in %d parts: %+v %v; in one: %+v %v", data, n, got, problems, want, wantProblems)
		}
	}
}
