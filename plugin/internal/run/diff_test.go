package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffFromPrompt(t *testing.T) {
	r := mustOpen(t, filepath.Join(corpus, "runs/workspace-file-changes"), Options{})
	d := mustDetail(t, r, "ws-add-docs")
	df, prob := r.Diff(d, mustTask(t, r, d), 0)
	if prob != nil || df.Source != DiffSourcePrompt || !df.Complete {
		t.Fatalf("diff %+v, %v", df, prob)
	}
	want := []DiffFile{{"NOTES.txt", "deleted", 0, 1}, {"docs/USAGE.md", "added", 3, 0}}
	if len(df.Files) != 2 || df.Files[0] != want[0] || df.Files[1] != want[1] || df.FileCount != 2 {
		t.Fatalf("files %+v (%d), want %+v", df.Files, df.FileCount, want)
	}
	if df, _ := r.Diff(d, nil, 0); df != nil {
		t.Fatalf("no task, no file: %+v", df)
	}
}

func TestDiffFiles(t *testing.T) {
	diff := `diff --git a/old.go b/new.go
similarity index 90%
rename from old.go
rename to new.go
--- a/old.go
+++ b/new.go
@@ -1,3 +1,3 @@
 package x
--- not a header: a deleted line "-- not a header"
+--- an added line
 end
\ No newline at end of file
--- a/plain.txt	2026-01-01
+++ b/plain.txt	2026-01-02
@@ -1 +1,2 @@
-diff --git is content here
+a
+b
`
	got := diffFiles([]byte(diff))
	want := []DiffFile{{"new.go", "renamed", 1, 1}, {"plain.txt", "modified", 2, 1}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("files %+v, want %+v", got, want)
	}
}

func TestDiffSidecar(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	index := filepath.Join(dir, "index.jsonl")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// Give capital-france a file_changes_path, as v5 rows have.
	b = []byte(strings.Replace(string(b), `"test_id":"capital-france",`, `"test_id":"capital-france","file_changes_path":"core/capital-france/outputs/file_changes.diff",`, 1))
	if err := os.WriteFile(index, b, 0o644); err != nil {
		t.Fatal(err)
	}
	body := "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+" + strings.Repeat("y", 5000) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "core/capital-france/outputs/file_changes.diff"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, Options{})
	df, prob := r.Diff(mustDetail(t, r, "capital-france"), nil, 100)
	if prob != nil || df.Source != "core/capital-france/outputs/file_changes.diff" || df.Complete || len(df.Content) != 100 || df.Size != int64(len(body)) {
		t.Fatalf("diff %+v, %v", df, prob)
	}
	if len(df.Files) != 1 || df.Files[0] != (DiffFile{"a", "modified", 1, 1}) || df.FileCount != 1 {
		t.Fatalf("files of the kept head: %+v (%d in all)", df.Files, df.FileCount)
	}
	if err := os.Remove(filepath.Join(dir, "core/capital-france/outputs/file_changes.diff")); err != nil {
		t.Fatal(err)
	}
	if df, prob = r.Diff(mustDetail(t, r, "capital-france"), nil, 0); df != nil || prob.Problem != ProblemMissing {
		t.Fatalf("missing diff: %+v, %+v", df, prob)
	}
}
