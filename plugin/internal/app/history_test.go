package app

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const goldenDir = "../../../testdata/golden"

// golden compares got with testdata/golden/name; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// iterationRuns are the corpus runs of one experiment, under the run ids
// AgentV gave them (which order them oldest first).
var iterationRuns = []struct{ name, id string }{
	{"iterations-1", "2026-11-30T07-51-38-262Z"},
	{"iterations-2", "2026-11-30T07-51-40-206Z"},
	{"iterations-3", "2026-11-30T07-51-45-414Z"},
}

// copyIterations copies the three iteration runs into one folder, as
// .agentv/results/runs/iterations/<run id>, and returns it.
func copyIterations(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "iterations")
	for _, r := range iterationRuns {
		if err := os.CopyFS(filepath.Join(root, r.id), os.DirFS(filepath.Join(corpus, r.name))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// clocks holds the clock fixClock gave a test (runApp passes it in the
// test's Streams), so tests can run in parallel with their own clocks.
var clocks sync.Map // *testing.T → func() time.Time

// fixClock makes the judgments t records carry fixed times, a minute apart.
func fixClock(t *testing.T) {
	t.Helper()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clocks.Store(t, func() time.Time { at = at.Add(time.Minute); return at })
	t.Cleanup(func() { clocks.Delete(t) })
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runApp(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
	}
	return out
}

// reviewIterations judges every case of the three runs: run 1 by apply
// (JSONL) over an AgentV dashboard notes file, run 2 by apply (JSON array),
// run 3 by set, partly as an agent.
func reviewIterations(t *testing.T) string {
	t.Helper()
	fixClock(t)
	root := copyIterations(t)
	run := func(i int) string { return filepath.Join(root, iterationRuns[i].id) }
	tmp := t.TempDir()

	writeFile(t, filepath.Join(run(0), "feedback.json"),
		`{"reviews":[{"test_id":"it-fixed","comment":"says \"not found\" for a file that exists","updated_at":"2026-11-30T07:55:00.000Z"}]}`)
	mustRun(t, "apply", "--reviewer", "ana", "--from", writeFile(t, filepath.Join(tmp, "run1.jsonl"), `
{"test_id":"it-stable-pass","verdict":"acceptable"}
{"test_id":"it-stable-fail","verdict":"incorrect","notes":"names Saturn"}
{"test_id":"it-fixed","verdict":"incorrect","signals":["false_positive"],"evaluator_overrides":{"llm-grader:judge":"passed an answer that says not found"}}
{"test_id":"it-regressed","verdict":"acceptable"}
{"test_id":"it-reworded","verdict":"acceptable"}
{"test_id":"it-error-then-recovered","verdict":"acceptable"}
`), run(0))

	mustRun(t, "apply", "--reviewer", "ana", "--from", writeFile(t, filepath.Join(tmp, "run2.json"), `[
  {"test_id":"it-stable-pass","verdict":"acceptable"},
  {"test_id":"it-stable-fail","verdict":"incorrect"},
  {"test_id":"it-fixed","verdict":"acceptable"},
  {"test_id":"it-regressed","verdict":"acceptable"},
  {"test_id":"it-reworded","verdict":"needs_improvement","signals":["qualitative_regression"],"notes":"terse"},
  {"test_id":"it-error-then-recovered","verdict":"flaky","signals":["flaky_results"],"notes":"HTTP 503 upstream"}
]`), run(1))

	for _, args := range [][]string{
		{"--agent", "--verdict", "acceptable", run(2), "it-stable-pass"},
		{"--agent", "--verdict", "incorrect", run(2), "it-stable-fail"},
		{"--agent", "--verdict", "acceptable", run(2), "it-fixed"},
		{"--reviewer", "bob", "--verdict", "acceptable", "--signal", "false_negative", "--signal", "grader_miscalibration",
			"--override", `regex:regex-\bAu\b=too strict: "Au," is the symbol`, run(2), "it-regressed"},
		{"--reviewer", "bob", "--verdict", "incorrect", "--signal", "false_positive",
			"--override", "contains:contains-Tokyo=passes on a mention, the answer names Kyoto", run(2), "it-reworded"},
		{"--reviewer", "bob", "--verdict", "acceptable", run(2), "it-error-then-recovered"},
	} {
		mustRun(t, append([]string{"set"}, args...)...)
	}
	return root
}

func TestHistoryGolden(t *testing.T) {
	root := reviewIterations(t)
	golden(t, "history.txt", strings.ReplaceAll(mustRun(t, "history", root), root, "<root>"))
	golden(t, "history.json", strings.ReplaceAll(mustRun(t, "history", "--json", root), root, "<root>"))
}

func TestHistoryWithoutReviews(t *testing.T) {
	root := copyIterations(t)
	out := mustRun(t, "history", root)
	if !strings.Contains(out, "4/6   67%   4/6   67%") || !strings.Contains(out, "none: no judgment names a grader") {
		t.Errorf("unreviewed runs: human-adjusted should equal automated:\n%s", out)
	}
	if code, _, stderr := runApp(t, "history", t.TempDir()); code != 3 || !strings.Contains(stderr, "no readable AgentV run") {
		t.Errorf("empty folder: exit %d\n%s", code, stderr)
	}
}
