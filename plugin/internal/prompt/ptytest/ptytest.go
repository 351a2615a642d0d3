//go:build linux || darwin

// Package ptytest drives an interactive program through a real
// pseudo-terminal with a terminal emulator (vt10x) behind it, for end-to-end
// tests of survey prompts:
//
//	term := ptytest.Start(t, exec.Command(bin, "review", runDir), 100, 30)
//	term.ExpectString("Verdict")
//	term.Send(ptytest.Down + ptytest.Enter)
//	if code := term.Wait(); code != 0 { ... }
//
// A reader goroutine feeds everything the program writes to the emulator at
// once, so survey's cursor-position request (ESC[6n) is always answered, even
// between expectations. (github.com/Netflix/go-expect, which survey's own
// tests use, feeds its emulator only inside an Expect call, so a prompt that
// queries the cursor while the test is between expectations stalls; that is
// why this package talks to creack/pty and vt10x directly.)
//
// Send never races those answers: survey reads the answer to a cursor query
// with a fresh buffered reader and drops whatever the same read returned
// after it, so keys that reach the terminal after an answer the program has
// not read yet are lost. Send therefore types only when the program reads
// key by key (raw mode) and has read every byte typed or answered so far,
// and it types under the same lock the emulator answers under. Nothing
// depends on timing; every wait has a timeout (DefaultTimeout), on any
// failure the test stops with the emulated screen in the message, and the
// program is killed when the test ends.
package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"golang.org/x/sys/unix"
)

// DefaultTimeout bounds every wait of a new Term.
// It is generous so a loaded CI machine does not fail a correct program;
// a missing prompt still fails the test instead of hanging it.
const DefaultTimeout = 30 * time.Second

// killWait bounds the wait for a killed program to be reaped, whatever the
// expectation timeout (a loaded machine can take a while).
const killWait = 5 * time.Second

// Keys as a terminal sends them.
const (
	Enter     = "\r"
	Up        = "\x1b[A"
	Down      = "\x1b[B"
	Right     = "\x1b[C"
	Left      = "\x1b[D"
	Space     = " "
	Tab       = "\t"
	Backspace = "\x7f"
	Esc       = "\x1b"
	CtrlC     = "\x03"
	CtrlD     = "\x04"
)

// pollEvery is how often Send looks again whether the program is ready for
// keys (that state shows in no output).
const pollEvery = 2 * time.Millisecond

// Term is a program running on a pseudo-terminal.
type Term struct {
	t       testing.TB
	timeout time.Duration
	ptm     *os.File // our side of the pseudo-terminal
	vt      vt10x.Terminal
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd has exited; waitErr is set
	waitErr error
	eof     chan struct{} // closed once all output has been read

	// inMu orders everything written to the program's input: the keys
	// Send types and the emulator's answers.
	inMu sync.Mutex

	ttyMu sync.Mutex
	tty   *os.File // the program's side, kept to read its mode and input queue; nil once it exited

	mu      sync.Mutex
	out     []byte        // everything the program wrote
	matched int           // out[:matched] was consumed by ExpectString
	wrote   chan struct{} // closed and replaced on every write
}

// Start runs cmd with its stdin, stdout and stderr on a new cols×rows
// pseudo-terminal, which becomes its controlling terminal.
func Start(t testing.TB, cmd *exec.Cmd, cols, rows int) *Term {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("ptytest: open pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptm, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptm.Close()
		tty.Close()
		t.Fatalf("ptytest: set terminal size: %v", err)
	}
	tm := &Term{
		t: t, timeout: DefaultTimeout, ptm: ptm, tty: tty, cmd: cmd,
		exited: make(chan struct{}), eof: make(chan struct{}), wrote: make(chan struct{}),
	}
	// The emulator's answers (cursor position, device status) are typed
	// back into the program's input.
	tm.vt = vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(answers{tm}))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty = true, true // Ctty 0 is stdin
	if err := cmd.Start(); err != nil {
		ptm.Close()
		tty.Close()
		t.Fatalf("ptytest: start %s: %v", cmd.Path, err)
	}
	go tm.read()
	go func() {
		tm.waitErr = cmd.Wait()
		tm.ttyMu.Lock()
		tm.tty.Close() // with the program gone, reading ptm ends after its last output
		tm.tty = nil
		tm.ttyMu.Unlock()
		close(tm.exited)
	}()
	t.Cleanup(tm.stop)
	return tm
}

// answers writes the emulator's answers to the program's input, ordered
// with the keys Send types.
type answers struct{ tm *Term }

func (a answers) Write(p []byte) (int, error) {
	a.tm.inMu.Lock()
	defer a.tm.inMu.Unlock()
	return a.tm.ptm.Write(p)
}

// SetTimeout changes the bound of each later wait.
func (tm *Term) SetTimeout(d time.Duration) { tm.timeout = d }

// read copies the program's output to the emulator and to tm.out until the
// terminal closes.
func (tm *Term) read() {
	defer close(tm.eof)
	buf := make([]byte, 32*1024)
	var partial []byte // an incomplete UTF-8 sequence held back from the emulator
	for {
		n, err := tm.ptm.Read(buf)
		if n > 0 {
			data := append(partial, buf[:n]...)
			cut := completeUTF8(data)
			tm.vt.Write(data[:cut])
			partial = append([]byte(nil), data[cut:]...)

			tm.mu.Lock()
			tm.out = append(tm.out, buf[:n]...)
			close(tm.wrote)
			tm.wrote = make(chan struct{})
			tm.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// completeUTF8 returns the length of the longest prefix of p that does not
// end inside a UTF-8 sequence.
func completeUTF8(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return len(p)
			}
			return i
		}
	}
	return len(p)
}

// ExpectString waits until the program writes s (escape sequences included)
// after the previous match, and consumes the output up to it.
func (tm *Term) ExpectString(s string) {
	tm.t.Helper()
	timeout := time.NewTimer(tm.timeout)
	defer timeout.Stop()
	for {
		tm.mu.Lock()
		i := bytes.Index(tm.out[tm.matched:], []byte(s))
		if i >= 0 {
			tm.matched += i + len(s)
		}
		wrote := tm.wrote
		tm.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-wrote:
		case <-tm.eof:
			if tm.found(s) {
				return
			}
			tm.fail("program closed the terminal without writing %q", s)
		case <-timeout.C:
			tm.fail("no %q after %v", s, tm.timeout)
		}
	}
}

// found consumes s if it is in the unmatched output.
func (tm *Term) found(s string) bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	i := bytes.Index(tm.out[tm.matched:], []byte(s))
	if i >= 0 {
		tm.matched += i + len(s)
	}
	return i >= 0
}

// Send types keys once the program reads the terminal key by key (raw mode,
// as a survey prompt does) and has read all its input so far, so keys never
// reach the terminal's line editor or the read that fetches the answer to a
// cursor-position request.
func (tm *Term) Send(keys string) {
	tm.t.Helper()
	deadline := time.Now().Add(tm.timeout)
	for {
		sent, err := tm.trySend(keys)
		switch {
		case err != nil:
			tm.fail("send %q: %v", keys, err)
		case sent:
			return
		case time.Now().After(deadline):
			tm.fail("program not waiting for keys after %v (it is in line mode or has unread input), cannot send %q", tm.timeout, keys)
		}
		time.Sleep(pollEvery)
	}
}

// trySend types keys if the program is waiting for them. It holds inMu, so
// no emulator answer can slip in between the check and the keys.
func (tm *Term) trySend(keys string) (bool, error) {
	tm.inMu.Lock()
	defer tm.inMu.Unlock()
	if !tm.waitingForKeys() {
		return false, nil
	}
	_, err := tm.ptm.WriteString(keys)
	return err == nil, err
}

// waitingForKeys reports whether the program's terminal is in raw mode with
// nothing left to read.
func (tm *Term) waitingForKeys() bool {
	tm.ttyMu.Lock()
	defer tm.ttyMu.Unlock()
	if tm.tty == nil {
		return false
	}
	fd := int(tm.tty.Fd())
	mode, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil || mode.Lflag&unix.ICANON != 0 {
		return false
	}
	// poll, unlike the FIONREAD ioctl, first moves bytes still on their way
	// from our side into the program's input queue (Linux hands pty writes
	// to the line discipline asynchronously).
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 0
}

// Resize changes the terminal's size; the program gets SIGWINCH.
func (tm *Term) Resize(cols, rows int) {
	tm.t.Helper()
	tm.vt.Resize(cols, rows)
	if err := pty.Setsize(tm.ptm, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		tm.fail("resize to %dx%d: %v", cols, rows, err)
	}
}

// Screen returns the emulated screen, each line without trailing spaces and
// without the empty lines at the bottom.
func (tm *Term) Screen() string {
	lines := strings.Split(tm.vt.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// Wait waits for the program to exit and for its last output to reach the
// screen, and returns its exit code (-1 when a signal killed it).
func (tm *Term) Wait() int {
	tm.t.Helper()
	timeout := time.NewTimer(tm.timeout)
	defer timeout.Stop()
	for _, c := range []chan struct{}{tm.exited, tm.eof} {
		select {
		case <-c:
		case <-timeout.C:
			tm.fail("program still running after %v", tm.timeout)
		}
	}
	var exit *exec.ExitError
	if errors.As(tm.waitErr, &exit) {
		return exit.ExitCode()
	}
	if tm.waitErr != nil {
		tm.fail("wait: %v", tm.waitErr)
	}
	return 0
}

func (tm *Term) fail(format string, args ...any) {
	tm.t.Helper()
	tm.t.Fatalf("ptytest: %s\n--- screen ---\n%s--- end of screen ---", fmt.Sprintf(format, args...), tm.Screen())
}

// stop kills the program if it still runs and closes the terminal.
func (tm *Term) stop() {
	select {
	case <-tm.exited:
	default:
		_ = tm.cmd.Process.Kill()
		select {
		case <-tm.exited:
		case <-time.After(max(tm.timeout, killWait)):
			tm.t.Errorf("ptytest: %s did not exit after being killed", tm.cmd.Path)
		}
	}
	tm.ptm.Close()
}
