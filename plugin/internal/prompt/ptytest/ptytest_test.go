//go:build linux || darwin

package ptytest_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/prompt/internal/tbtest"
	"agentv-review/plugin/internal/prompt/ptytest"
)

func TestExpectScreenWait(t *testing.T) {
	term := ptytest.Start(t, exec.Command("sh", "-c", `printf 'hello wörld 日本\n'; exit 7`), 40, 5)
	term.ExpectString("wörld")
	if code := term.Wait(); code != 7 {
		t.Errorf("Wait() = %d, want 7", code)
	}
	if got, want := term.Screen(), "hello wörld 日本\n"; got != want {
		t.Errorf("Screen() = %q, want %q", got, want)
	}
}

// TestFailuresStopWithScreen proves that every wait ends at its timeout
// (the message names the 300ms set, not DefaultTimeout) and reports the
// screen, and that the program is killed afterwards. (No wall-clock check:
// a loaded machine can take seconds to start and reap the programs.)
func TestFailuresStopWithScreen(t *testing.T) {
	tests := []struct {
		name   string
		script string
		act    func(*ptytest.Term)
		want   string
	}{
		{"missing text", "echo ready; sleep 60", func(tm *ptytest.Term) { tm.ExpectString("nope") }, `no "nope" after 300ms`},
		{"program exits", "echo ready", func(tm *ptytest.Term) { tm.ExpectString("nope") }, `program closed the terminal without writing "nope"`},
		{"line mode", "echo ready; sleep 60", func(tm *ptytest.Term) { tm.Send("x") }, `program not waiting for keys after 300ms`},
		// Raw mode, but the program never reads: the first key is typed,
		// the second waits for the first to be read.
		{"unread input", "stty raw -echo; echo ready; sleep 60", func(tm *ptytest.Term) { tm.Send("x"); tm.Send("y") }, `program not waiting for keys after 300ms (it is in line mode or has unread input), cannot send "y"`},
		{"no exit", "echo ready; sleep 60", func(tm *ptytest.Term) { tm.Wait() }, `program still running after 300ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cmd *exec.Cmd
			failures := tbtest.Run(func(tb *tbtest.TB) {
				cmd = exec.Command("sh", "-c", tt.script)
				tm := ptytest.Start(tb, cmd, 40, 5)
				tm.ExpectString("ready") // with the default timeout: a loaded machine may be slow to start sh
				tm.SetTimeout(300 * time.Millisecond)
				tt.act(tm)
				tb.Errorf("%s did not stop the test", tt.name)
			})
			if len(failures) != 1 || !strings.Contains(failures[0], tt.want) || !strings.Contains(failures[0], "--- screen ---\nready\n") {
				t.Errorf("failures = %q, want one containing %q and the screen", failures, tt.want)
			}
			if cmd.ProcessState == nil {
				t.Error("program still running after the test ended")
			}
		})
	}
}

// TestResize: the program sees the new size (SIGWINCH, then its terminal's
// size), and so does the emulated screen.
func TestResize(t *testing.T) {
	script := `trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.05; done`
	term := ptytest.Start(t, exec.Command("sh", "-c", script), 40, 5)
	term.ExpectString("ready")
	term.Resize(20, 4)
	term.ExpectString("4 20")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, term.Screen())
	}
	if got, want := term.Screen(), "ready\n4 20\n"; got != want {
		t.Errorf("Screen() = %q, want %q", got, want)
	}
}

func TestBuildBinaryNeedsMain(t *testing.T) {
	failures := tbtest.Run(func(tb *tbtest.TB) { ptytest.BuildBinary(tb, "./testdata/none") })
	if len(failures) != 1 || !strings.Contains(failures[0], "ptytest.Main") {
		t.Errorf("failures = %q, want one naming ptytest.Main", failures)
	}
}
