//go:build unix

package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// perCase is what See records for every case of r, reading each case on
// its own (Detail, Task).
func perCase(t *testing.T, r *run.Run) ([]Seen, []*run.Task) {
	t.Helper()
	seen, tasks := make([]Seen, len(r.Cases)), make([]*run.Task, len(r.Cases))
	for i, c := range r.Cases {
		d, err := r.Detail(c)
		if err != nil {
			t.Fatal(err)
		}
		if tasks[i], err = r.Task(d); err != nil {
			t.Fatal(err)
		}
		if seen[i], err = SeeWith(d, tasks[i]); err != nil {
			t.Fatal(err)
		}
		if want := refSeen(t, d, tasks[i]); !reflect.DeepEqual(seen[i], want) {
			t.Errorf("case %d (%s): sees %+v, the reference %+v", i, r.Ref(c), seen[i], want)
		}
	}
	return seen, tasks
}

// refSeen is what SeeWith was before its room was reused: the machine
// verdict built field by field, the answer and input read from fresh
// readers, the test definition written by json.Marshal.
func refSeen(t *testing.T, d *run.Detail, task *run.Task) Seen {
	t.Helper()
	c := d.Case
	score := c.Score
	auto := &feedback.Automated{Score: &score, Outcome: string(c.Outcome), ExecutionStatus: c.ExecutionStatus, Samples: triage.SamplePattern(c.Samples)}
	for _, g := range c.Graders {
		auto.Graders = append(auto.Graders, feedback.GraderResult{Key: g.Type + ":" + g.Name, Score: g.Score, Pass: g.Pass})
	}
	open := func(tx run.Text) io.Reader {
		if tx.Path != "" && !tx.Missing {
			f, err := tx.Open()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}
		return strings.NewReader(tx.Content)
	}
	var test feedback.Test
	if d.Input.Present {
		test.Input = open(d.Input)
	}
	if def := (testDef{task.Criteria, task.Input, task.Expected, task.Assertions}); def.Criteria != "" || def.Input != "" || def.Expected != "" || len(def.Assertions) > 0 {
		b, err := json.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		test.Task = bytes.NewReader(b)
	}
	fp, err := feedback.FingerprintV2(open(d.Answer), test, auto.Graders)
	if err != nil {
		t.Fatal(err)
	}
	return Seen{Automated: auto, Fingerprint: fp}
}

// batch is perCase through run.Bases, with the cases given in reverse
// order (Bases sorts them by offset itself).
func batch(t *testing.T, r *run.Run) ([]Seen, []*run.Task) {
	t.Helper()
	n := len(r.Cases)
	cs := make([]*run.Case, n)
	for i, c := range r.Cases {
		cs[n-1-i] = c
	}
	seen, tasks := make([]Seen, n), make([]*run.Task, n)
	var mu sync.Mutex
	err := r.Bases(cs, func(i int, b *run.Basis) error {
		if b.Case != cs[i] {
			t.Errorf("case %d: basis of %s, want %s", i, b.Case.TestID, cs[i].TestID)
		}
		s, err := SeeBasis(b)
		mu.Lock()
		defer mu.Unlock()
		seen[n-1-i], tasks[n-1-i] = s, b.Task
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen, tasks
}

// sameAsPerCase checks that reading every case of the run at dir in one
// batch records what reading each on its own records.
func sameAsPerCase(t *testing.T, dir string) *run.Run {
	t.Helper()
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) == 0 {
		t.Fatalf("%s: no cases", dir)
	}
	want, wantTasks := perCase(t, r)
	got, gotTasks := batch(t, r)
	for i, c := range r.Cases {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: case %d (%s): batch sees %+v, per case %+v", filepath.Base(dir), i, r.Ref(c), got[i], want[i])
		}
		// A Basis holds the test definition, not what the row recorded per
		// grader.
		want := *wantTasks[i]
		want.Graders, want.FileChanges = nil, ""
		if !reflect.DeepEqual(*gotTasks[i], want) {
			t.Errorf("%s: case %d (%s): batch task %+v, per case %+v", filepath.Base(dir), i, r.Ref(c), *gotTasks[i], want)
		}
	}
	return r
}

func TestBasesMatchPerCase(t *testing.T) {
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) { sameAsPerCase(t, filepath.Join(corpus, e.Name())) })
	}
	for _, name := range []string{"01-v5-samples-pass", "04-v5next-trials-22rows-root-index", "06-flat-jsonl-v4-wire/suite.baseline.jsonl", "07-flat-jsonl-v1-legacy/dataset.baseline.jsonl"} {
		dir := filepath.Join("../../../../shared/fixtures/agentv-upstream", name)
		if _, err := os.Stat(dir); err != nil && os.Getenv("CI") == "" {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) { sameAsPerCase(t, dir) })
	}
}

// A generated run: many targets sharing a test's folder (answers reported
// missing for all but the last), resume duplicates, and answers bigger than
// a Basis holds (hashed from the file).
func TestBasesMatchPerCaseGenerated(t *testing.T) {
	for name, write := range map[string]func(string, genrun.Options) (genrun.Stats, error){"4.42.4": genrun.Write442, "v5": genrun.WriteV5} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
			st, err := write(dir, genrun.Options{Rows: 600, Seed: 3, BigAnswers: 2, BigAnswerBytes: 5 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if st.Duplicates == 0 {
				t.Fatalf("the run has no duplicate rows: %+v", st)
			}
			sameAsPerCase(t, dir)
		})
	}
}

// hostile is a 4.42.4-style run whose cases name sidecars that are
// missing, symlinks out of the run, a FIFO, a folder, and an EVAL.yaml.
func hostile(t *testing.T) (dir, outside string) {
	t.Helper()
	tmp := t.TempDir()
	dir, outside = filepath.Join(tmp, "2026-07-06T11-31-36-988Z"), filepath.Join(tmp, "outside")
	row := func(id, extra string) string {
		return `{"test_id":"` + id + `","suite":"s","target":"x","score":1,"execution_status":"ok",` +
			`"scores":[{"name":"g","type":"llm-grader","score":1,"input":{"userPrompt":"[[ ## criteria ## ]]\nbe right ` + id + `\n\n[[ ## reference_answer ## ]]\n42"}}]` + extra + "}\n"
	}
	paths := func(id string) string {
		return `,"output_path":"` + id + `/answer.md","input_path":"` + id + `/input.md","eval_path":"` + id + `/task/EVAL.yaml"`
	}
	files := map[string]string{
		"index.jsonl": row("ok", paths("ok")) +
			row("missing", paths("missing")) +
			row("linked-out", paths("linked-out")) +
			row("dir-out", paths("dir-out/x")) +
			row("fifo", paths("fifo")) +
			row("folder", paths("folder")) +
			row("dotdot", `,"output_path":"../outside/answer.md","input_path":"/etc/hostname","eval_path":"../outside/EVAL.yaml"`) +
			row("inline", `,"output":[{"role":"assistant","content":"inline answer"}],"input":"inline input"`) +
			row("response", `,"response_path":"ok/response.md","testId":"ignored"`) +
			row("dup", paths("ok")) + row("dup", paths("missing")) +
			// One bundle of two tests, named by three rows (read once).
			row("shared-a", `,"eval_path":"shared/task/EVAL.yaml"`) +
			strings.Replace(row("shared-a", `,"eval_path":"shared/task/EVAL.yaml"`), `"target":"x"`, `"target":"y"`, 1) +
			row("shared-b", `,"eval_path":"shared/task/EVAL.yaml"`),
		"shared/task/EVAL.yaml": "tests:\n  - id: shared-a\n    criteria: criteria a\n  - id: shared-b\n    criteria: criteria b\n",
		"ok/answer.md":          "the answer  \r\n\n",
		"ok/input.md":           "the input",
		"ok/response.md":        "@[user]:\nq\n\n@[assistant]:\nthe answer\n",
		"ok/task/EVAL.yaml":     "tests:\n  - id: ok\n    criteria: from the bundle\n    assertions:\n      - type: contains\n        value: x\n",
		"folder/input.md/x":     "a folder where a file should be",
		"folder/answer.md/x":    "a folder where a file should be",
		"../outside/answer.md":  "SECRET",
		"../outside/input.md":   "SECRET",
		"../outside/EVAL.yaml":  "tests:\n  - id: linked-out\n    criteria: SECRET\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct{ link, target string }{
		{"linked-out/answer.md", filepath.Join(outside, "answer.md")},
		{"linked-out/input.md", "../../outside/input.md"},
		{"linked-out/task/EVAL.yaml", filepath.Join(outside, "EVAL.yaml")},
		{"dir-out", outside},
	} {
		p := filepath.Join(dir, l.link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l.target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fifo/answer.md", "fifo/input.md", "fifo/task/EVAL.yaml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, outside
}

func TestBasesHostile(t *testing.T) {
	dir, _ := hostile(t)
	r := sameAsPerCase(t, dir)
	err := r.Bases(r.Cases, func(i int, b *run.Basis) error {
		for _, s := range []string{b.Answer.Content, b.Input.Content, b.Task.Criteria} {
			if strings.Contains(s, "SECRET") {
				t.Errorf("%s: read %q from outside the run", b.Case.TestID, s)
			}
		}
		if b.Case.TestID == "ok" && (b.Answer.Content != "the answer  \r\n\n" || b.Task.Criteria != "from the bundle") {
			t.Errorf("ok: answer %q, criteria %q", b.Answer.Content, b.Task.Criteria)
		}
		if id := b.Case.TestID; strings.HasPrefix(id, "shared-") && b.Task.Criteria != "criteria "+id[len(id)-1:] {
			t.Errorf("%s@%s: criteria %q from the shared bundle", id, b.Case.Target, b.Task.Criteria)
		}
		if b.Case.TestID == "response" && !strings.HasPrefix(b.Answer.Content, "@[user]") {
			t.Errorf("response.md is hashed raw, as its file; got %q", b.Answer.Content)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A row that changed after Open fails the batch with the row's line, and
// fn's own error is returned; fn is never called with another case's row.
func TestBasesErrors(t *testing.T) {
	dir, _ := hostile(t)
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "index.jsonl")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, another test id on line 2 ("missing" → "mIssing").
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(data), `"test_id":"missing"`, `"test_id":"mIssing"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	called := map[string]bool{}
	err = r.Bases(r.Cases, func(i int, b *run.Basis) error {
		mu.Lock()
		defer mu.Unlock()
		called[b.Case.TestID] = true
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "index.jsonl:2") || !strings.Contains(err.Error(), `expected test_id "missing" here, found "mIssing"`) {
		t.Fatalf("error %v, want one naming index.jsonl:2 and the changed test_id", err)
	}
	if called["missing"] || called["mIssing"] {
		t.Error("fn was called for the changed row")
	}

	os.WriteFile(manifest, data, 0o644)
	stop := errors.New("stop")
	err = r.Bases(r.Cases, func(i int, b *run.Basis) error {
		if i >= 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want fn's", err)
	}

	// A manifest cut short after Open: the rows past the end cannot be read.
	os.WriteFile(manifest, data[:len(data)/2], 0o644)
	if err := r.Bases(r.Cases, func(int, *run.Basis) error { return nil }); err == nil || !strings.Contains(err.Error(), "cannot re-read the row") {
		t.Fatalf("error %v, want cannot re-read", err)
	}
}
