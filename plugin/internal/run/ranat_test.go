package run

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// copyFixtureRun copies the 4.42.4 corpus run name to dst.
func copyFixtureRun(t *testing.T, name, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(corpus, "runs", name))); err != nil {
		t.Fatal(err)
	}
}

// TestRanAtIgnoresMtime: runs of every era are ordered by what AgentV
// recorded, whatever their folders' modification times say.
func TestRanAtIgnoresMtime(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".agentv", "results")
	row := func(stamp string) string {
		return `{"test_id":"a","score":1,"timestamp":"` + stamp + `"}` + "\n"
	}
	writeFiles(t, root, map[string]string{
		// flat v1–v3 file: the first row's timestamp, not the later one
		"eval_2025-01-01T00-00-00-000Z.jsonl": row("2026-11-29T10:00:00Z") + row("2026-11-01T00:00:00Z"),
		// a --output run with no timestamp in its name
		"runs/default/my-run/index.jsonl": row("2026-11-30T07:00:00.5Z"),
		// the run id only
		"runs/default/2026-12-02T08-00-00-000Z/index.jsonl": okRow + "\n",
		// v5: summary.json beats the rows and the name
		"2026-01-01T00-00-00-000Z/summary.json":          `{"metadata":{"timestamp":"2026-12-03T09:00:00.000Z"},"run_id":"2026-01-01T00-00-00-000Z"}`,
		"2026-01-01T00-00-00-000Z/.internal/index.jsonl": row("2025-01-01T00:00:00Z"),
	})
	copyFixtureRun(t, "iterations-1", filepath.Join(root, "runs", "default", "iter-1")) // benchmark.json 07:51:38.593Z
	copyFixtureRun(t, "iterations-3", filepath.Join(root, "runs", "default", "iter-3")) // benchmark.json 07:51:45.744Z

	want := []struct {
		rel, source, at string
	}{
		{"eval_2025-01-01T00-00-00-000Z.jsonl", RanAtRow, "2026-11-29T10:00:00Z"},
		{"runs/default/my-run", RanAtRow, "2026-11-30T07:00:00.5Z"},
		{"runs/default/iter-1", RanAtBenchmark, "2026-11-30T07:51:38.593Z"},
		{"runs/default/iter-3", RanAtBenchmark, "2026-11-30T07:51:45.744Z"},
		{"runs/default/2026-12-02T08-00-00-000Z", RanAtRunID, "2026-12-02T08:00:00Z"},
		{"2026-01-01T00-00-00-000Z", RanAtSummary, "2026-12-03T09:00:00Z"},
	}
	var order []string
	for i, w := range want {
		p := filepath.Join(root, filepath.FromSlash(w.rel))
		order = append(order, p)
		// The newest run gets the oldest folder time and the other way round.
		lie := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, lie, lie); err != nil {
			t.Fatal(err)
		}
		at, source := RanAtDir(p)
		if wantAt, _ := time.Parse(time.RFC3339Nano, w.at); !at.Equal(wantAt) || source != w.source {
			t.Errorf("RanAtDir(%s) = %v, %q; want %v, %q", w.rel, at, source, wantAt, w.source)
		}
		r := mustOpen(t, p, Options{})
		if rat, rsource := r.RanAt(); !rat.Equal(at) || rsource != source {
			t.Errorf("%s: Run.RanAt = %v, %q; RanAtDir %v, %q", w.rel, rat, rsource, at, source)
		}
	}
	got, err := Candidates(root)
	if err != nil || !slices.Equal(got, order) {
		t.Errorf("Candidates = %v, %v\nwant oldest first %v", got, err, order)
	}
	_, err = Open(root, Options{})
	var ae *AmbiguousError
	if !errors.As(err, &ae) || ae.Candidates[0] != order[len(order)-1] {
		t.Errorf("Open(results) = %v; want the newest run first: %s", err, order[len(order)-1])
	}
}

// TestRanAtFallsThrough: evidence that is missing, malformed or not a time
// gives way to the next kind; with none the run has no time.
func TestRanAtFallsThrough(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/summary.json":   `{"metadata":{"timestamp":"yesterday"}}`,
		"a/benchmark.json": `{"metadata":{"timestamp":"2026-11-30T07:51:13.771Z"`, // truncated
		"a/index.jsonl":    "\n" + `{"score":1,"timestamp":"2026-11-30T07:51:14Z"}` + "\n",
		"b/index.jsonl":    `{"score":1,"timestamp":5}` + "\n",
	})
	if at, source := RanAtDir(filepath.Join(dir, "a")); source != RanAtRow || at.Format(time.RFC3339) != "2026-11-30T07:51:14Z" {
		t.Errorf("a: %v, %q; want the row's time", at, source)
	}
	if at, source := RanAtDir(filepath.Join(dir, "b")); !at.IsZero() || source != "" {
		t.Errorf("b: %v, %q; want no time", at, source)
	}
}

// TestRanAtUpstream reads the real v5 and late-June summaries.
func TestRanAtUpstream(t *testing.T) {
	for rel, want := range map[string]string{
		"01-v5-samples-pass/2026-07-06T11-31-36-988Z":                 "2026-07-06T11:31:44.78Z",
		"04-v5next-trials-22rows-root-index/2026-06-28T10-25-15-380Z": "2026-06-28T10:25:22.342Z",
	} {
		at, source := RanAtDir(upstream(t, rel))
		if source != RanAtSummary || at.Format(time.RFC3339Nano) != want {
			t.Errorf("%s: %v, %q; want %s from summary.json", rel, at, source, want)
		}
	}
}
