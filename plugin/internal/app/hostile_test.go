package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
)

// TestHostileEnvironments: a scripted writer (set) in a broken environment
// fails with a one-line error naming the file, exits with the documented
// code, and loses nothing already saved.
//
// Tests run as root, where chmod stops nothing, so an unwritable folder is
// simulated by a path under a regular file (every create fails with
// ENOTDIR, as a read-only folder fails with EACCES or EROFS); the real
// permission and file-size failures run in a child process, in
// plugin/cmd/agentv-review/hostile_test.go.
func TestHostileEnvironments(t *testing.T) {
	earlier := &feedback.File{
		RunID: "core-pass-fail-error", Reviewer: "earlier", Timestamp: "2026-01-01T00:00:00.000Z",
		PerCase: []feedback.Case{{TestID: "capital-france", Target: "canned", Verdict: feedback.Flaky, Notes: "keep me"}},
	}
	tests := []struct {
		name string
		// setup breaks the environment of run dir and returns extra flags
		// for set and the file whose bytes must survive ("" for none).
		setup func(t *testing.T, dir string) (flags []string, keep string)
		code  int
		msg   string
	}{
		{"feedback.json is a directory", func(t *testing.T, dir string) ([]string, string) {
			mkdir(t, filepath.Join(dir, "feedback.json"))
			return nil, ""
		}, clierr.CodeInvalid, "feedback.json: cannot read feedback file: is a directory"},
		{"out folder cannot hold files", func(t *testing.T, dir string) ([]string, string) {
			file := filepath.Join(t.TempDir(), "a-file")
			writeFile(t, file, "")
			return []string{"--out", filepath.Join(file, "feedback.json")}, file
		}, clierr.CodeInvalid, "a-file/feedback.json: cannot read feedback file: not a directory"},
		{"feedback.json is a symbolic link", func(t *testing.T, dir string) ([]string, string) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			if err := feedback.Write(target, earlier); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, "feedback.json")); err != nil {
				t.Fatal(err)
			}
			return nil, target
		}, clierr.CodeInvalid, "feedback.json: cannot read feedback file: points outside the run directory; not followed"},
		{"draft path is a directory", func(t *testing.T, dir string) ([]string, string) {
			if err := feedback.Write(filepath.Join(dir, "feedback.json"), earlier); err != nil {
				t.Fatal(err)
			}
			mkdir(t, filepath.Join(dir, "feedback.draft.json"))
			return nil, filepath.Join(dir, "feedback.json")
		}, clierr.CodeInvalid, "feedback.draft.json: cannot read feedback file: is a directory"},
		{"history path is a file", func(t *testing.T, dir string) ([]string, string) {
			if err := feedback.Write(filepath.Join(dir, "feedback.json"), earlier); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "feedback.history"), "not a folder")
			return nil, filepath.Join(dir, "feedback.json")
		}, clierr.CodeFailure, "feedback.history: cannot write: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyRun(t, "core-pass-fail-error")
			flags, keep := tt.setup(t, dir)
			var before []byte
			if keep != "" {
				before = readBytes(t, keep)
			}
			args := append(append([]string{"set", "--reviewer", "x", "--verdict", "acceptable"}, flags...), dir, "date-format")
			code, _, stderr := runApp(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tt.code, tt.msg)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) > 2 || len(lines) == 2 && !strings.Contains(lines[1], "hint:") {
				t.Errorf("want one error line and at most a hint, got:\n%s", stderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace:\n%s", stderr)
			}
			if keep != "" && string(readBytes(t, keep)) != string(before) {
				t.Errorf("%s changed", keep)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
