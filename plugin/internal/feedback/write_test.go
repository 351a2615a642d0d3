package feedback

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
)

func sample(notes string) *File {
	return &File{
		RunID: "r", Reviewer: "ann", Timestamp: "2026-03-14T12:00:00.000Z", OverallNotes: notes,
		PerCase: []Case{{TestID: "a", Verdict: Acceptable}},
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func wantCode(t *testing.T, err error, code int, hint string) {
	t.Helper()
	if clierr.Code(err) != code {
		t.Fatalf("error %v: exit code %d, want %d", err, clierr.Code(err), code)
	}
	if !strings.Contains(clierr.HintOf(err), hint) {
		t.Errorf("error %v: hint %q, want it to contain %q", err, clierr.HintOf(err), hint)
	}
}

func TestPathsFor(t *testing.T) {
	tests := []struct {
		runDir, out string
		want        Paths
	}{
		{"/runs/r1", "", Paths{"/runs/r1/feedback.json", "/runs/r1/feedback.draft.json", "/runs/r1/feedback.history", "/runs/r1/feedback.lock"}},
		{"/runs/r1", "/x/my.json", Paths{"/x/my.json", "/x/my.draft.json", "/x/my.history", "/x/my.lock"}},
		{"/runs/r1", "notes", Paths{"notes", "notes.draft.json", "notes.history", "notes.lock"}},
	}
	for _, tt := range tests {
		if got := PathsFor(tt.runDir, tt.out); got != tt.want {
			t.Errorf("PathsFor(%q, %q) = %+v, want %+v", tt.runDir, tt.out, got, tt.want)
		}
	}
}

func TestWriteReplacesByRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feedback.json")
	if err := Write(path, sample("v1")); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := Write(path, sample("v2")); err != nil {
		t.Fatal(err)
	}
	// The old inode was never written to: the new content arrived by rename.
	oldData := make([]byte, 4096)
	n, _ := old.Read(oldData)
	if !strings.Contains(string(oldData[:n]), `"v1"`) {
		t.Errorf("old file was modified in place: %s", oldData[:n])
	}
	got := readString(t, path)
	if !strings.Contains(got, `"overall_notes": "v2"`) || !strings.HasSuffix(got, "}\n") || !strings.HasPrefix(got, "{\n  \"run_id\"") {
		t.Errorf("written file =\n%s", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"feedback.json"}) {
		t.Errorf("folder holds %v, want only feedback.json", names)
	}
}

func TestWriteRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	if err := Write(target, sample("target")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "feedback.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := Write(link, sample("through the link"))
	wantCode(t, err, clierr.CodeFailure, "--out")
	if !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("error = %v, want it to name the symbolic link", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link was replaced: %v %v", fi, err)
	}
	if !strings.Contains(readString(t, target), `"target"`) {
		t.Error("link target was modified")
	}
}

func TestWriteRefusesInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feedback.json")
	f := sample("")
	f.PerCase[0].Verdict = "meh"
	wantCode(t, Write(path, f), clierr.CodeFailure, "")
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an invalid file was written: %v", err)
	}
}

// TestWriteInvalidKeepsOldFile: an invalid file, found so only once it is
// written out (Write writes the entries as they are encoded), leaves the
// old file and no temp file; refused before it is written (a symbolic
// link), it is still reported as invalid, as when it was checked first.
func TestWriteInvalidKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feedback.json")
	if err := Write(path, sample("old")); err != nil {
		t.Fatal(err)
	}
	before := readString(t, path)
	f := sample("")
	f.PerCase[0].Verdict = "meh"
	err := Write(path, f)
	wantCode(t, err, clierr.CodeFailure, "")
	if !strings.Contains(err.Error(), "not written: invalid feedback: per_case.0.verdict") {
		t.Errorf("error = %v", err)
	}
	if readString(t, path) != before || !slices.Equal(dirNames(t, dir), []string{"feedback.json"}) {
		t.Errorf("a failed write changed the folder: %v", dirNames(t, dir))
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, f); err == nil || !strings.Contains(err.Error(), "not written: invalid feedback") {
		t.Errorf("an invalid file to a link: %v", err)
	}
}

// Tests run as root, where chmod cannot make a folder read-only; a path
// under a regular file fails the same way (the folder cannot hold files).
func TestWriteUnwritableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(filepath.Join(file, "feedback.json"), sample(""))
	wantCode(t, err, clierr.CodeFailure, "use --out FILE")
}

var errInjected = errors.New("injected failure")

func TestArchive(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, "")
	if rel, err := Archive(p); rel != "" || err != nil {
		t.Fatalf("Archive without feedback = %q, %v; want \"\", nil", rel, err)
	}
	f := sample("v1")
	f.Timestamp = "2026-03-14T13:00:00.5+01:00"
	if err := Write(p.Feedback, f); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"feedback.history/feedback.2026-03-14T12-00-00.500Z.json",
		"feedback.history/feedback.2026-03-14T12-00-00.500Z.2.json",
		"feedback.history/feedback.2026-03-14T12-00-00.500Z.3.json",
	}
	for _, w := range want {
		rel, err := Archive(p)
		if err != nil {
			t.Fatal(err)
		}
		if rel != w {
			t.Errorf("Archive = %q, want %q", rel, w)
		}
		if readString(t, filepath.Join(dir, rel)) != readString(t, p.Feedback) {
			t.Errorf("%s differs from the feedback file", rel)
		}
	}
	if names := dirNames(t, p.HistoryDir); len(names) != len(want) {
		t.Errorf("history holds %v, want %d files and no temp file", names, len(want))
	}
}

func TestArchiveWithoutTimestamp(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, filepath.Join(dir, "my.json"))
	if err := os.WriteFile(p.Feedback, []byte(`{"reviews":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p.Feedback, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	rel, err := Archive(p)
	if want := "my.history/my.2026-01-02T03-04-05.000Z.json"; rel != want || err != nil {
		t.Errorf("Archive = %q, %v; want %q (named after the modification time)", rel, err, want)
	}
}

func TestArchiveStamp(t *testing.T) {
	tests := []struct{ data, want string }{
		{`{"timestamp":"2026-03-14T12:00:00Z"}`, "2026-03-14T12-00-00.000Z"},
		{`{"timestamp":"2026/03/14 12:00"}`, "2026-03-14-12-00"},
		{`{"timestamp":"../../etc/passwd"}`, "etc-passwd"},
		{`{"timestamp":""}`, ""},
		{`{"reviews":[]}`, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := archiveStamp([]byte(tt.data)); got != tt.want {
			t.Errorf("archiveStamp(%s) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

func TestDrafts(t *testing.T) {
	p := PathsFor(t.TempDir(), "")
	if f, err := LoadDraft(p); f != nil || err != nil {
		t.Fatalf("LoadDraft without draft = %v, %v; want nil, nil", f, err)
	}
	if err := SaveDraft(p, sample("half done")); err != nil {
		t.Fatal(err)
	}
	f, err := LoadDraft(p)
	if err != nil || f == nil || f.OverallNotes != "half done" {
		t.Fatalf("LoadDraft = %+v, %v", f, err)
	}
	bad := sample("")
	bad.RunID = ""
	bad.PerCase[0].Verdict = "meh"
	if err := SaveDraft(p, bad); err == nil {
		t.Error("SaveDraft accepted a file that fails the schema")
	}
}

// Lock uses flock(2), whose locks belong to the open file description: a
// second open of the lock file in the same process conflicts like another
// process would.
func TestLockRefusesSecondHolder(t *testing.T) {
	p := PathsFor(t.TempDir(), "")
	release, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(p)
	wantCode(t, err, clierr.CodeFailure, "finish or quit the other agentv-review session")
	if !strings.Contains(err.Error(), "another review of this run is in progress") {
		t.Errorf("error = %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	release, err = Lock(p)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
}

func TestLockUnwritableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Lock(PathsFor(file, ""))
	wantCode(t, err, clierr.CodeFailure, "use --out FILE")
}

// TestLockRemovesStaleTemps: temp files of a writer killed mid-write are
// removed once the lock is held; other files are left alone.
func TestLockRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, "")
	if err := os.MkdirAll(p.HistoryDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := []string{
		filepath.Join(dir, ".feedback.json.tmp-123"),
		filepath.Join(dir, ".feedback.draft.json.tmp-456"),
		filepath.Join(p.HistoryDir, ".feedback.20261130T100000Z.json.tmp-789"),
	}
	kept := []string{filepath.Join(dir, "feedback.json"), filepath.Join(dir, ".other.tmp-1"), filepath.Join(dir, "index.jsonl")}
	for _, f := range append(stale, kept...) {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, f := range stale {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s should be removed", f)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s should be kept: %v", f, err)
		}
	}
}

// fullWriter takes up to room bytes, then fails every write.
type fullWriter struct {
	b     []byte
	room  int
	after int // writes after the first that failed
}

var errFull = errors.New("full")

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(w.b)+len(p) > w.room {
		if w.room >= 0 {
			w.room = -1
		} else {
			w.after++
		}
		return 0, errFull
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// TestWriteErrorStopsWriting: with the blocks of entries written by the
// cores that finish them, what is written before the writer's first error
// is the start of the file, nothing is written after it, and it is the
// error returned.
func TestWriteErrorStopsWriting(t *testing.T) {
	f := &File{RunID: "r", Reviewer: "a", Timestamp: "2026-01-01T00:00:00Z"}
	for i := range 5 * entryBlock {
		f.PerCase = append(f.PerCase, Case{TestID: strconv.Itoa(i), Verdict: Acceptable})
	}
	want, _, err := encodeChecked(f)
	if err != nil {
		t.Fatal(err)
	}
	w := &fullWriter{room: len(want) / 2}
	problems, err, werr := writeChecked(w, f)
	if err != nil || len(problems) > 0 || !errors.Is(werr, errFull) || w.after > 0 || !bytes.HasPrefix(want, w.b) || len(w.b) == 0 {
		t.Fatalf("writeChecked = %v, %v, %v; %d bytes written (a prefix: %v), %d writes after the error",
			problems, err, werr, len(w.b), bytes.HasPrefix(want, w.b), w.after)
	}
}
