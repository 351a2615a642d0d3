package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"agentv-review/bench/gen/genrun"
)

// benchRun is a generated 4.42.4 run of rows manifest rows and a JSONL file
// with one agent answer per case, written once per size to a fixed folder
// in the temp directory that later benchmark runs reuse (100k rows is 1.5 GB).
type benchRun struct {
	dir, answers string
	cases        int
}

var benchRuns sync.Map // rows → func() (benchRun, error)

func generatedRun(b *testing.B, rows int) benchRun {
	b.Helper()
	once, _ := benchRuns.LoadOrStore(rows, sync.OnceValues(func() (benchRun, error) {
		root := filepath.Join(os.TempDir(), "agentv-review-app-bench-"+strconv.Itoa(rows))
		br := benchRun{dir: filepath.Join(root, "2026-07-06T11-31-36-988Z"), answers: filepath.Join(root, "answers.jsonl")}
		if _, err := os.Stat(br.answers); err != nil {
			os.RemoveAll(root)
			if _, err := genrun.Write442(br.dir, genrun.Options{Rows: rows, Seed: 1, BigAnswers: 3}); err != nil {
				return br, err
			}
			if err := writeAnswers(filepath.Join(br.dir, "index.jsonl"), br.answers+".tmp"); err != nil {
				return br, err
			}
			if err := os.Rename(br.answers+".tmp", br.answers); err != nil {
				return br, err
			}
		}
		data, err := os.ReadFile(br.answers)
		for _, c := range data {
			if c == '\n' {
				br.cases++
			}
		}
		return br, err
	}))
	br, err := once.(func() (benchRun, error))()
	if err != nil {
		b.Fatal(err)
	}
	return br
}

// writeAnswers writes one answer per distinct case of a manifest.
func writeAnswers(manifest, out string) error {
	r, err := os.Open(manifest)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	verdicts := []string{"acceptable", "acceptable", "needs_improvement", "incorrect", "flaky"}
	seen := map[[3]string]bool{}
	for n := 0; sc.Scan(); {
		var row struct {
			TestID string `json:"test_id"`
			Suite  string `json:"suite"`
			Target string `json:"target"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return err
		}
		k := [3]string{row.TestID, row.Suite, row.Target}
		if seen[k] {
			continue
		}
		seen[k] = true
		a, _ := json.Marshal(map[string]string{"test_id": row.TestID, "suite": row.Suite, "target": row.Target,
			"verdict": verdicts[n%len(verdicts)], "notes": fmt.Sprintf("checked (%d)", n%7)})
		fmt.Fprintf(bw, "%s\n", a)
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return w.Close()
}

// benchApp runs the command line with output discarded.
func benchApp(b *testing.B, args ...string) {
	b.Helper()
	s := &Streams{Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }, LockWait: time.Minute,
		Now: func() time.Time { return time.Date(2026, 7, 6, 12, 0, 0, 0, time.UTC) }}
	if code := Main(append([]string{"agentv-review"}, args...), s); code != 0 {
		b.Fatalf("%v: exit %d", args, code)
	}
}

// benchApply applies the first n answers (every case's when n is 0) to
// the run of rows rows, into a new feedback file each time.
func benchApply(b *testing.B, rows, n int) {
	br := generatedRun(b, rows)
	answers := br.answers
	if n > 0 {
		data, err := os.ReadFile(br.answers)
		if err != nil {
			b.Fatal(err)
		}
		end := 0
		for range n {
			end += bytes.IndexByte(data[end:], '\n') + 1
		}
		data = data[:end]
		answers = filepath.Join(b.TempDir(), "answers.jsonl")
		if err := os.WriteFile(answers, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out := filepath.Join(b.TempDir(), "feedback.json")
	for b.Loop() {
		os.Remove(out)
		benchApp(b, "apply", "--agent", "--from", answers, "--out", out, br.dir)
	}
}

// BenchmarkApply applies 10k answers and one per case (98k) to a run of
// 100k rows into a new feedback file: apply must grow linearly.
func BenchmarkApply(b *testing.B) {
	b.Run("10k", func(b *testing.B) { benchApply(b, 100_000, 10_000) })
	b.Run("All", func(b *testing.B) { benchApply(b, 100_000, 0) })
}

// BenchmarkStatus100k is status --json of a 100k-row run without feedback
// (Bare) and with the feedback file apply writes for every case.
func BenchmarkStatus100k(b *testing.B) {
	br := generatedRun(b, 100_000)
	fb := filepath.Join(filepath.Dir(br.dir), "feedback.json")
	if _, err := os.Stat(fb); err != nil {
		benchApp(b, "apply", "--agent", "--from", br.answers, "--out", fb, br.dir)
	}
	b.Run("Bare", func(b *testing.B) {
		for b.Loop() {
			benchApp(b, "status", "--json", "--out", filepath.Join(b.TempDir(), "none.json"), br.dir)
		}
	})
	b.Run("Reviewed", func(b *testing.B) {
		for b.Loop() {
			benchApp(b, "status", "--json", "--out", fb, br.dir)
		}
	})
}

// BenchmarkList100k is list --json of a 100k-row run without feedback:
// issue 14 wants it within 1.5× BenchmarkStatus100k/Bare.
func BenchmarkList100k(b *testing.B) {
	br := generatedRun(b, 100_000)
	for b.Loop() {
		benchApp(b, "list", "--json", "--out", filepath.Join(b.TempDir(), "none.json"), br.dir)
	}
}

// BenchmarkParseAnswers reads 10k and 100k answers given as a feedback
// file's per_case array: the cost must grow linearly.
func BenchmarkParseAnswers(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		var buf bytes.Buffer
		buf.WriteString(`{"run_id":"r","reviewer":"x","timestamp":"2026-07-06T12:00:00Z","per_case":[` + "\n")
		for i := range n {
			if i > 0 {
				buf.WriteString(",\n")
			}
			fmt.Fprintf(&buf, `  {"test_id":"case-%06d","verdict":"acceptable","notes":"fine"}`, i)
		}
		buf.WriteString("\n]}\n")
		b.Run(strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			for b.Loop() {
				if in, problems := parseAnswers("answers.json", buf.Bytes()); len(problems) > 0 || len(in.answers) != n {
					b.Fatal(problems)
				}
			}
		})
	}
	// JSONL is the bench's answers.jsonl: 100k lines of ~100 bytes, one
	// answer per case naming test_id, suite and target.
	var lines bytes.Buffer
	suites, targets := []string{"billing", "support-triage", "code-review", "sql-gen"}, []string{"gpt-5-mini", "claude-sonnet-4", "local-qwen3"}
	for i := range 100_000 {
		fmt.Fprintf(&lines, `{"test_id":"explain-refund-%06d","suite":%q,"target":%q,"verdict":"acceptable"}`+"\n", i/3, suites[i/3%4], targets[i%3])
	}
	b.Run("JSONL", func(b *testing.B) {
		b.SetBytes(int64(lines.Len()))
		for b.Loop() {
			if in, problems := parseAnswers("answers.jsonl", lines.Bytes()); len(problems) > 0 || len(in.answers) != 100_000 {
				b.Fatal(problems)
			}
		}
	})
}
