//go:build unix

package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

// The run files of a hostile-run fixture, relative to the run directory;
// {{who}} and {{year}} mark what a copy outside the run says instead.
var hostileFiles = map[string]string{
	"index.jsonl": `{"test_id":"t-{{who}}","score":1,"execution_status":"ok","timestamp":"{{year}}-07-06T11:31:36.988Z",` +
		`"result_dir":"t","grading_path":"t/grading.json","output_path":"t/outputs/answer.md","input_path":"t/input.md",` +
		`"transcript_path":"t/outputs/transcript.jsonl","file_changes_path":"t/outputs/file_changes.diff",` +
		`"eval_path":"t/task/EVAL.yaml","timing_path":"t/timing.json",` +
		`"scores":[{"name":"g","type":"contains","score":1}],"samples":[{"sample":1,"sample_path":"sample-1","score":1}]}` + "\n",
	"summary.json":                `{"run_id":"R-{{who}}","metadata":{"timestamp":"{{year}}-07-06T11:31:36.988Z"}}`,
	"benchmark.json":              `{"metadata":{"timestamp":"{{year}}-07-06T11:31:36.988Z"}}`,
	"timing.json":                 `{"total_duration_seconds":1}`,
	"t/grading.json":              `{"graders":[{"name":"g","type":"contains","score":1,"reasoning":"graded by {{who}}"}]}`,
	"t/sample-1/grading.json":     `{"graders":[{"name":"g","type":"contains","score":1,"reasoning":"sample graded by {{who}}"}]}`,
	"t/outputs/answer.md":         "answer from {{who}}",
	"t/input.md":                  "input from {{who}}",
	"t/outputs/transcript.jsonl":  `{"role":"user","content":"transcript from {{who}}"}` + "\n",
	"t/outputs/file_changes.diff": "diff --git a/{{who}} b/{{who}}\n--- a/{{who}}\n+++ b/{{who}}\n@@ -1 +1 @@\n-a\n+b\n",
	"t/task/EVAL.yaml":            "tests:\n  - id: t-{{who}}\n    criteria: criteria from {{who}}\n",
	"t/timing.json":               `{"duration_ms":1}`,
}

// hostileRun writes a project whose one run (lastRunDir of its
// .agentv/cache.json) has every file above, with the manifest at manifest,
// and a copy of each file outside the project that says SECRET and 1999.
// It returns the project root, the run directory and the outside copy.
func hostileRun(t *testing.T, manifest string) (project, dir, outside string) {
	t.Helper()
	tmp := t.TempDir()
	project, outside = filepath.Join(tmp, "project"), filepath.Join(tmp, "outside")
	dir = filepath.Join(project, ".agentv", "results", "runs", "default", "R-inside")
	in := strings.NewReplacer("{{who}}", "inside", "{{year}}", "2026")
	out := strings.NewReplacer("{{who}}", "SECRET", "{{year}}", "1999")
	files := map[string]string{}
	for name, content := range hostileFiles {
		if name == "index.jsonl" {
			name = manifest
		}
		files["project/.agentv/results/runs/default/R-inside/"+name] = in.Replace(content)
		files["outside/"+name] = out.Replace(content)
	}
	files["project/.agentv/cache.json"] = `{"lastRunDir":".agentv/results/runs/default/R-inside"}`
	writeFiles(t, tmp, files)
	return project, dir, outside
}

// readEverything runs every reader entry point on the project and its run
// and returns all it reports and shows: errors with hints, warnings,
// problems, texts and times.
func readEverything(project, dir string) string {
	var b strings.Builder
	say := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	sayErr := func(what string, err error) {
		if err != nil {
			say("%s: %v (hint: %s)", what, err, clierr.HintOf(err))
		}
	}
	cands, err := Candidates(filepath.Join(project, ".agentv", "results"))
	sayErr("candidates", err)
	for _, c := range cands {
		tm, src := RanAtDir(c)
		say("candidate %s ran %s (%s)", c, tm.Format(time.RFC3339), src)
	}
	_, err = Open("", Options{Cwd: project})
	sayErr("open last run", err)
	r, err := Open(dir, Options{})
	sayErr("open run", err)
	if r == nil {
		return b.String()
	}
	tm, src := r.RanAt()
	say("ran %s (%s)", tm.Format(time.RFC3339), src)
	for _, w := range r.Warnings {
		say("warning %s:%d: %s", w.File, w.Line, w.Msg)
	}
	for _, c := range r.Cases {
		say("case %s", c.TestID)
		d, err := r.Detail(c)
		sayErr("detail", err)
		if d == nil {
			continue
		}
		for _, w := range d.Warnings {
			say("detail warning %s: %s", w.File, w.Msg)
		}
		for _, g := range d.Graders {
			say("grader %s: %s", g.Key(), g.Reason)
		}
		for _, s := range d.Samples {
			for _, g := range s.Graders {
				say("sample grader %s: %s", g.Key(), g.Reason)
			}
		}
		for _, tx := range []Text{d.Answer, d.Input} {
			say("text %q", tx.Content)
			if p := r.Problem(d, tx); p != nil {
				say("problem %s", p)
			}
		}
		task, err := r.Task(d)
		sayErr("task", err)
		if task != nil {
			say("task %+v", *task)
		}
		tr, prob := r.Transcript(d, 0)
		if prob != nil {
			say("transcript problem %s", prob)
		} else if tr != nil {
			say("transcript %+v", *tr)
		}
		df, prob := r.Diff(d, task, 0)
		if prob != nil {
			say("diff problem %s", prob)
		} else if df != nil {
			say("diff %+v", *df)
		}
	}
	return b.String()
}

// within runs f in a goroutine and fails the test when it has not returned
// after a minute (a reader blocked on a FIFO never returns).
func within(t *testing.T, f func() string) string {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- f() }()
	select {
	case s := <-done:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the reader blocked (it opened a FIFO as a file?)")
		return ""
	}
}

// manifestPlaces are where a run's manifest can be; the flat *.jsonl of
// E0 is the run itself (see TestFlatFileIsNotFIFO).
var manifestPlaces = []string{"index.jsonl", ".internal/index.jsonl", "run_manifest.jsonl"}

// TestNoRunFileBlocks replaces, one at a time, every file the reader may
// open with a FIFO that has no writer: nothing blocks, and every file that
// is read (all but the sidecar timing.json and the run's own timing.json,
// which are only listed) is reported as a FIFO.
func TestNoRunFileBlocks(t *testing.T) {
	for _, manifest := range manifestPlaces {
		victims := []string{manifest, "../../../../cache.json"}
		for name := range hostileFiles {
			if name != "index.jsonl" {
				victims = append(victims, name)
			}
		}
		for _, victim := range victims {
			t.Run(manifest+"/"+victim, func(t *testing.T) {
				project, dir, _ := hostileRun(t, manifest)
				p := filepath.Join(dir, filepath.FromSlash(victim))
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Fatal(err)
				}
				got := within(t, func() string { return readEverything(project, dir) })
				silent := strings.HasSuffix(victim, "timing.json") || victim == "benchmark.json"
				if !silent && !strings.Contains(got, "is a FIFO, not a file") {
					t.Errorf("a FIFO at %s is not reported as one:\n%s", victim, got)
				}
			})
		}
	}
}

func TestFlatFileIsNotFIFO(t *testing.T) {
	tmp := t.TempDir()
	p := filepath.Join(tmp, "eval_2026.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	err := within(t, func() string {
		_, err := Open(p, Options{})
		return fmt.Sprint(err)
	})
	if !strings.Contains(err, "eval_2026.jsonl: is a FIFO, not a file") {
		t.Errorf("Open(FIFO) = %s", err)
	}
}

// TestNoSymlinkLeadsOut replaces, one at a time, every file of the run (and
// the result folder holding the sidecars) with a symlink to a copy outside
// the run, absolute and relative: nothing of the copy (SECRET, 1999-07-06) is
// read, and each refusal says the path leads outside the run.
func TestNoSymlinkLeadsOut(t *testing.T) {
	for _, manifest := range manifestPlaces {
		victims := []string{manifest, "t"}
		for name := range hostileFiles {
			if name != "index.jsonl" {
				victims = append(victims, name)
			}
		}
		for _, victim := range victims {
			for _, relative := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/relative=%v", manifest, victim, relative), func(t *testing.T) {
					project, dir, outside := hostileRun(t, manifest)
					p := filepath.Join(dir, filepath.FromSlash(victim))
					target := filepath.Join(outside, filepath.FromSlash(victim))
					if relative {
						var err error
						if target, err = filepath.Rel(filepath.Dir(p), target); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.RemoveAll(p); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(target, p); err != nil {
						t.Fatal(err)
					}
					got := within(t, func() string { return readEverything(project, dir) })
					// The outside year as a date: a temp folder's random name may hold "1999".
					if strings.Contains(got, "SECRET") || strings.Contains(got, "1999-07-06") {
						t.Errorf("read through the symlink %s -> %s:\n%s", victim, target, got)
					}
					silent := strings.HasSuffix(victim, "timing.json") || victim == "benchmark.json"
					if !silent && !strings.Contains(got, "outside the run directory") {
						t.Errorf("the symlink %s -> %s is not reported:\n%s", victim, target, got)
					}
				})
			}
		}
	}
}

// TestNoRowPathLeadsOut names, in the row, every sidecar by a path that
// leaves the run: "..", absolute, and ".." after a folder of the run.
func TestNoRowPathLeadsOut(t *testing.T) {
	for _, form := range []string{"up", "absolute", "down-up"} {
		t.Run(form, func(t *testing.T) {
			project, dir, outside := hostileRun(t, "index.jsonl")
			row := hostileFiles["index.jsonl"]
			for _, field := range []string{"grading_path", "output_path", "input_path", "transcript_path", "file_changes_path", "eval_path", "result_dir"} {
				i := strings.Index(row, `"`+field+`":"`) + len(field) + 4
				rel := row[i : i+strings.IndexByte(row[i:], '"')]
				var escape string
				switch form {
				case "up":
					escape, _ = filepath.Rel(dir, filepath.Join(outside, rel))
				case "absolute":
					escape = filepath.Join(outside, rel)
				case "down-up":
					up, _ := filepath.Rel(filepath.Join(dir, "t"), filepath.Join(outside, rel))
					escape = "t/" + up
				}
				row = row[:i] + filepath.ToSlash(escape) + row[i+len(rel):]
			}
			writeFiles(t, dir, map[string]string{"index.jsonl": strings.NewReplacer("{{who}}", "inside", "{{year}}", "2026").Replace(row)})
			got := readEverything(project, dir)
			if strings.Contains(got, "SECRET") {
				t.Errorf("followed a row path out of the run:\n%s", got)
			}
			if !strings.Contains(got, "outside the run directory") {
				t.Errorf("no path reported as outside the run:\n%s", got)
			}
		})
	}
}

// TestReopenedTextStaysInside: a sidecar read only in part is opened again
// to be read whole (the pager, the fingerprint); replaced meanwhile by a
// symlink out of the run, it is refused, not followed.
func TestReopenedTextStaysInside(t *testing.T) {
	_, dir, outside := hostileRun(t, "index.jsonl")
	writeFiles(t, dir, map[string]string{"t/outputs/answer.md": strings.Repeat("long answer from inside\n", 100)})
	r := mustOpen(t, dir, Options{AnswerLimit: 64})
	d, err := r.Detail(r.Cases[0])
	if err != nil {
		t.Fatal(err)
	}
	if !d.Answer.Truncated {
		t.Fatalf("answer not truncated: %+v", d.Answer)
	}
	f, err := d.Answer.Open()
	if err != nil {
		t.Fatalf("reopening the answer inside the run: %v", err)
	}
	f.Close()
	p := filepath.Join(dir, "t", "outputs", "answer.md")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "t", "outputs", "answer.md"), p); err != nil {
		t.Fatal(err)
	}
	if f, err := d.Answer.Open(); err == nil || !errors.Is(err, safefile.ErrOutside) {
		if f != nil {
			f.Close()
		}
		t.Errorf("reopening through a symlink out of the run: %v, want ErrOutside", err)
	}
	if _, err := (Text{Present: true, Content: "inline"}).Open(); err == nil {
		t.Error("an inline text opened a file")
	}
}
