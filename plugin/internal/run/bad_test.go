package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

// TestOpenRejects: every refusal is one clear line naming the file (and
// line and field when known) with a hint, and exits 3.
func TestOpenRejects(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		target string
		want   []string // substrings of the message
		code   int
	}{
		{name: "missing path", target: "nope", want: []string{"nope", "no such file"}},
		{name: "empty directory", files: map[string]string{"empty/.keep": ""}, target: "empty", want: []string{"empty", "no AgentV run found"}},
		{name: "start-stub summary.json", files: map[string]string{"run/summary.json": `{"run_id":"run","counts":{"total_tests":0}}`}, target: "run", want: []string{"summary.json", "no results yet"}},
		{name: "empty manifest", files: map[string]string{"run/index.jsonl": "\n\n"}, target: "run", want: []string{"index.jsonl", "no results yet"}},
		{name: "malformed JSON line", files: map[string]string{"run/index.jsonl": okRow + "\n{\"score\": 1,,}\n" + okRow + "\n"}, target: "run", want: []string{"index.jsonl:2:", "malformed JSON"}},
		{name: "row without score", files: map[string]string{"run/index.jsonl": okRow + "\n" + `{"test_id":"b"}` + "\n"}, target: "run", want: []string{"index.jsonl:2:", `field "score"`, "missing score"}},
		{name: "score null", files: map[string]string{"r.jsonl": `{"test_id":"b","score":null}`}, target: "r.jsonl", want: []string{"r.jsonl:1:", `field "score"`}},
		{name: "score not a number", files: map[string]string{"run/index.jsonl": `{"test_id":"b","score":"0.9"}` + "\n"}, target: "run", want: []string{"index.jsonl:1:", `field "score"`, "not a number"}},
		{name: "array line", files: map[string]string{"run/index.jsonl": "[1,2]\n"}, target: "run", want: []string{"index.jsonl:1:", "not a JSON object"}},
		{name: "string line", files: map[string]string{"run/index.jsonl": okRow + "\n\"x\"\n"}, target: "run", want: []string{"index.jsonl:2:", "not a JSON object"}},
		{name: "manifest outside the run", files: map[string]string{"run/summary.json": `{"index_path":"../x/index.jsonl"}`, "x/index.jsonl": okRow}, target: "run", want: []string{"summary.json", `field "index_path"`, "outside the run directory"}},
		{name: "manifest is a directory", files: map[string]string{"run/index.jsonl/x": ""}, target: "run", want: []string{"index.jsonl", "is a directory, not a file"}},
		{name: "not a results file", files: map[string]string{"notes.txt": "hi"}, target: "notes.txt", want: []string{"notes.txt", "not an AgentV results file"}},
		{name: "no cache.json", files: map[string]string{"p/x": ""}, target: "", want: []string{"no run given", ".agentv/cache.json"}, code: clierr.CodeUsage},
		{name: "cache.json malformed", files: map[string]string{".agentv/cache.json": "{"}, target: "", want: []string{"cache.json", "malformed JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			writeFiles(t, tmp, tt.files)
			target := tt.target
			if target != "" {
				target = filepath.Join(tmp, target)
			}
			_, err := Open(target, Options{Cwd: tmp})
			assertUserError(t, err, tt.code, tt.want...)
		})
	}
}

func assertUserError(t *testing.T, err error, code int, want ...string) {
	t.Helper()
	if code == 0 {
		code = clierr.CodeInvalid
	}
	if err == nil {
		t.Fatal("no error")
	}
	if got := clierr.Code(err); got != code {
		t.Errorf("exit code %d, want %d (%v)", got, code, err)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "\n") || clierr.HintOf(err) == "" {
		t.Errorf("want one line with a hint: %q, hint %q", msg, clierr.HintOf(err))
	}
}

func TestOpenUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode; TestOpenRejects/manifest_is_a_directory covers a read failure")
	}
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{"run/index.jsonl": okRow})
	if err := os.Chmod(filepath.Join(tmp, "run", "index.jsonl"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(tmp, "run"), Options{})
	assertUserError(t, err, 0, "index.jsonl", "permission denied")
}

// TestOpenTolerates: what AgentV accepts, the reader accepts, with a
// warning where the user should know.
func TestOpenTolerates(t *testing.T) {
	huge := strings.Repeat("x", 10<<20)
	tests := []struct {
		name     string
		manifest string
		cases    int
		warning  string // "" = no warning
		check    func(t *testing.T, r *Run)
	}{
		{name: "truncated last line", manifest: okRow + "\n" + `{"test_id":"b","sco`, cases: 1, warning: "last line is incomplete"},
		{name: "last line without newline", manifest: okRow + "\n" + `{"test_id":"b","score":0}`, cases: 2},
		{
			name: "10 MB line", manifest: `{"test_id":"big","score":1,"scores":[{"name":"j","type":"llm-grader","score":1,"input":{"userPrompt":"` + huge + `"}}]}` + "\n" + okRow + "\n", cases: 2,
			check: func(t *testing.T, r *Run) {
				if c := r.Cases[1]; c.Loc.Line != 2 || c.Loc.Offset <= 10<<20 {
					t.Errorf("second row at %+v", c.Loc)
				}
				if d := mustDetail(t, r, "big"); len(d.Graders) != 1 || d.Graders[0].Name != "j" {
					t.Errorf("detail graders %+v", d.Graders)
				}
			},
		},
		{
			name: "invalid UTF-8 becomes U+FFFD", manifest: "{\"test_id\":\"bad\xff\xfeid\",\"score\":1}\n", cases: 1,
			check: func(t *testing.T, r *Run) {
				if id := r.Cases[0].TestID; id != "bad\uFFFD\uFFFDid" {
					t.Errorf("test id %q", id)
				}
			},
		},
		{name: "score out of 0..1", manifest: `{"test_id":"a","score":1.5}` + "\n", cases: 1, warning: "outside 0..1"},
		{name: "unexpected field type", manifest: `{"test_id":"a","score":1,"target":7}` + "\n", cases: 1, warning: `"target"`},
		{
			name: "CRLF, blank lines and BOM", manifest: "\ufeff" + okRow + "\r\n\r\n  \n" + `{"test_id":"b","score":0.5}` + "\r\n", cases: 2,
			check: func(t *testing.T, r *Run) {
				if p, f, _ := r.Counts(); p != 1 || f != 1 || r.Cases[1].Loc.Line != 4 {
					t.Errorf("passed %d failed %d, second at line %d", p, f, r.Cases[1].Loc.Line)
				}
				if d := mustDetail(t, r, "b"); d.Case.TestID != "b" {
					t.Errorf("detail %+v", d.Case)
				}
			},
		},
		{
			name: "camelCase and legacy aliases", cases: 2,
			manifest: `{"testId":"c","dataset":"ds","score":0.1,"executionStatus":"ok","workspacePath":"/w"}` + "\n" +
				`{"eval_id":"e","eval_set":"es","score":0.9,"evaluator_results":[{"name":"k","type":"code_judge","score":1,"verdict":"pass"}]}` + "\n",
			check: func(t *testing.T, r *Run) {
				c, e := r.Cases[0], r.Cases[1]
				if c.TestID != "c" || c.Suite != "ds" || c.Outcome != Passed || !c.HasWorkspace {
					t.Errorf("camelCase row %+v", c)
				}
				if e.TestID != "e" || e.Suite != "es" || e.Outcome != Passed || len(e.Graders) != 1 || !*e.Graders[0].Pass {
					t.Errorf("legacy row %+v", e)
				}
				if d := mustDetail(t, r, "c"); d.WorkspacePath != "/w" {
					t.Errorf("detail workspace %q", d.WorkspacePath)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			writeFiles(t, tmp, map[string]string{"run/index.jsonl": tt.manifest})
			r := mustOpen(t, filepath.Join(tmp, "run"), Options{})
			if len(r.Cases) != tt.cases {
				t.Errorf("%d cases, want %d", len(r.Cases), tt.cases)
			}
			if tt.warning == "" && len(r.Warnings) > 0 {
				t.Errorf("unexpected warnings %v", r.Warnings)
			}
			if tt.warning != "" && !hasWarning(r.Warnings, tt.warning) {
				t.Errorf("warnings %v, want %q", r.Warnings, tt.warning)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}
