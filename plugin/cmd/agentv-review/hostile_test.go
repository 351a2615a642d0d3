package main

// Real permission and file-size failures, in child processes: the run
// directory is made read-only and, when the tests run as root (where
// permissions stop nothing), the binary runs as user nobody; a full disk is
// a file-size limit (RLIMIT_FSIZE via the shell's ulimit -f: writes past it
// fail with EFBIG, which Go reports instead of dying of SIGXFSZ), the same
// short-write failure ENOSPC causes. feedback's injected-failure tests cover
// ENOSPC itself at every step of the durable write.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agentv-review/plugin/internal/feedback"
)

// earlierFeedback writes a valid earlier feedback.json into dir and
// returns its bytes.
func earlierFeedback(t *testing.T, dir string) []byte {
	t.Helper()
	path := filepath.Join(dir, "feedback.json")
	f := &feedback.File{
		RunID: filepath.Base(dir), Reviewer: "earlier", Timestamp: "2026-01-01T00:00:00.000Z",
		PerCase: []feedback.Case{{TestID: "capital-france", Target: "canned", Verdict: feedback.Flaky, Notes: "keep me"}},
	}
	if err := feedback.Write(path, f); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runCmd runs cmd and returns its exit code and combined output.
func runCmd(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// oneLineError checks that out is one error line naming what, and a hint.
func oneLineError(t *testing.T, out, what string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], what) || len(lines) > 2 || len(lines) == 2 && !strings.Contains(lines[1], "hint:") {
		t.Errorf("output:\n%s\nwant one error line containing %q and a hint", out, what)
	}
}

// noTempFiles checks that no durable-write temp file is left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file %s left in %s", e.Name(), dir)
		}
	}
}

func TestReadOnlyRunDirectory(t *testing.T) {
	// Everything the child touches must be reachable by nobody.
	root := t.TempDir()
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(root, "agentv-review")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "core-pass-fail-error")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, "core-pass-fail-error"))); err != nil {
		t.Fatal(err)
	}
	before := earlierFeedback(t, dir)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	out := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(out, 0o777); err != nil {
		t.Fatal(err)
	}

	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "AGENTV_REVIEWER=script")
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		return cmd
	}
	code, msg := runCmd(t, command("set", "--verdict", "acceptable", dir, "date-format"))
	if code != 1 {
		t.Errorf("set on a read-only run: exit %d, want 1\n%s", code, msg)
	}
	oneLineError(t, msg, "feedback.lock: cannot lock: permission denied")
	if got, _ := os.ReadFile(filepath.Join(dir, "feedback.json")); string(got) != string(before) {
		t.Error("feedback.json changed")
	}

	// Reading still works, and the hint's --out does.
	if code, msg := runCmd(t, command("status", dir)); code != 0 {
		t.Errorf("status on a read-only run: exit %d\n%s", code, msg)
	}
	if code, msg := runCmd(t, command("set", "--verdict", "acceptable", "--out", filepath.Join(out, "feedback.json"), dir, "date-format")); code != 0 {
		t.Errorf("set --out: exit %d\n%s", code, msg)
	}
}

func TestDiskFull(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh for ulimit -f")
	}
	dir := copyRun(t, "core-pass-fail-error")
	before := earlierFeedback(t, dir)
	bin := binary(t)
	// 2 KiB: the earlier file fits, the new one with a long note does not.
	note := strings.Repeat("long note ", 300)
	cmd := exec.Command("sh", "-c", `ulimit -f 2 && exec "$0" "$@"`, bin, "set", "--verdict", "incorrect", "--note", note, dir, "date-format")
	cmd.Env = append(os.Environ(), "AGENTV_REVIEWER=script")
	code, msg := runCmd(t, cmd)
	if code != 1 {
		t.Errorf("set on a full disk: exit %d, want 1\n%s", code, msg)
	}
	oneLineError(t, msg, "feedback.json: cannot write: file too large")
	if got, _ := os.ReadFile(filepath.Join(dir, "feedback.json")); string(got) != string(before) {
		t.Error("feedback.json changed")
	}
	noTempFiles(t, dir)
	noTempFiles(t, filepath.Join(dir, "feedback.history"))
}
