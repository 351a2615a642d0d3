package evidence_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// bigCase writes a 30-row 4.42.4 run with one 5 MB answer and returns the
// run dir and that case's reference.
func bigCase(b *testing.B) (dir, id string) {
	dir = b.TempDir() + "/2026-07-06T11-31-36-988Z"
	if _, err := genrun.Write442(dir, genrun.Options{Rows: 30, Seed: 1, BigAnswers: 1, BigAnswerBytes: 5 << 20}); err != nil {
		b.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range r.Cases {
		if d, err := r.Detail(c); err == nil && d.Answer.Size >= 5<<20 && c.OverwrittenBy == "" {
			return dir, r.Ref(c)
		}
	}
	b.Fatal("no case with a 5 MB answer")
	return "", ""
}

func openCase(b *testing.B, dir, id string) (*run.Run, *run.Case) {
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := r.Find(id)
	if err != nil {
		b.Fatal(err)
	}
	return r, c
}

// cpuTime is the process's user+system CPU time so far. Benchmarks report
// it per op as cpu-ms/op: on a machine shared with other work, wall time
// per op measures the neighbours too.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs op b.N times and reports CPU time per op.
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkNextCaseBigAnswer is moving to a case whose answer is 5 MB:
// Detail (which reads at most AnswerLimit of it) and the evidence screen
// as the guided review draws it (a 100-cell wide terminal, 13 answer lines).
func BenchmarkNextCaseBigAnswer(b *testing.B) {
	dir, id := bigCase(b)
	r, big := openCase(b, dir, id)
	item := triage.Rank([]*run.Case{big})[0]
	loop(b, func() {
		d, err := r.Detail(big)
		if err != nil {
			b.Fatal(err)
		}
		if !evidence.FromDetail(d, item).Render(io.Discard, evidence.Options{Width: 100, AnswerLines: 13, InputLines: 4}) {
			b.Fatal("a 5 MB answer was not cut")
		}
	})
}

// BenchmarkNextCaseAllBig is the whole case screen (Detail, Collect,
// Render) of a case with a 5 MB answer, a 10 MB transcript.jsonl with
// tool calls and a 5 MB file_changes.diff.
func BenchmarkNextCaseAllBig(b *testing.B) {
	dir, id := bigCase(b)
	r, c := openCase(b, dir, id)
	d, err := r.Detail(c)
	if err != nil {
		b.Fatal(err)
	}
	var transcript string
	for _, s := range d.Sidecars {
		if s.Field == "transcript_path" {
			transcript = s.Path
		}
	}
	if transcript == "" {
		b.Fatal("the generated row names no transcript")
	}
	var tr strings.Builder
	for i := 0; tr.Len() < 10<<20; i++ {
		fmt.Fprintf(&tr, `{"schema_version":"agentv.transcript.v1","role":"assistant","content":"step %d %s","tool_calls":[{"tool":"shell","input":{"cmd":"ls %d"},"output":"%s","status":"ok"}]}`+"\n",
			i, strings.Repeat("x", 200), i, strings.Repeat("y", 300))
	}
	var diff strings.Builder
	for i := 0; diff.Len() < 5<<20; i++ {
		fmt.Fprintf(&diff, "diff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n@@ -1,2 +1,2 @@\n-old line %d\n+new line %d\n context\n", i, i, i, i, i, i)
	}
	rel := filepath.Join(filepath.Dir(transcript), "file_changes.diff")
	for file, body := range map[string]string{transcript: tr.String(), rel: diff.String()} {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	index := filepath.Join(dir, "index.jsonl")
	raw, err := os.ReadFile(index)
	if err != nil {
		b.Fatal(err)
	}
	relDiff, _ := filepath.Rel(dir, rel)
	key := fmt.Sprintf(`"test_id":%q,`, c.TestID) // every target's row: they share the folder
	raw = []byte(strings.ReplaceAll(string(raw), key, key+fmt.Sprintf(`"file_changes_path":%q,`, filepath.ToSlash(relDiff))))
	if err := os.WriteFile(index, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	r, c = openCase(b, dir, id)
	item := triage.Rank([]*run.Case{c})[0]
	loop(b, func() {
		d, err := r.Detail(c)
		if err != nil {
			b.Fatal(err)
		}
		ev, err := evidence.Collect(r, d, item, evidence.CollectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if ev.Diff == nil || ev.Diff.FileCount < 1000 || ev.Trace == nil || ev.Trace.Complete {
			b.Fatalf("diff %v, transcript %v", ev.Diff != nil, ev.Trace != nil)
		}
		if !ev.Render(io.Discard, evidence.Options{Width: 100, AnswerLines: 13, InputLines: 4}) {
			b.Fatal("a 5 MB answer was not cut")
		}
	})
}
