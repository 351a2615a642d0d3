package main

// Smoke tests of what only a real terminal shows, through a pseudo-terminal
// with a vt10x terminal emulator behind it (ptytest): the screens survey
// draws, keys and typed text (survey queries the cursor position for
// every typed character), Ctrl-C, a resize, and escape sequences from a run
// staying inert. Every expectation has a timeout; a failure prints the
// emulated screen. The flow itself (questions, defaults, resume) is tested
// with the scripted prompter in flow_test.go.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/prompt/ptytest"
)

// startSized runs agentv-review with args on a cols×rows pseudo-terminal.
func startSized(t *testing.T, cols, rows int, args ...string) *ptytest.Term {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "VISUAL=", "EDITOR=", "PAGER=cat", "AGENTV_REVIEWER=", "NO_COLOR=1")
	return ptytest.Start(t, cmd, cols, rows)
}

// start runs agentv-review with args on a 120×40 pseudo-terminal.
func start(t *testing.T, args ...string) *ptytest.Term {
	t.Helper()
	return startSized(t, 120, 40, args...)
}

// TestDemoOnTerminal: the demo draws its opening, refuses Enter alone on a
// suspicious case, takes a verdict's number, Enter and typed notes, and Ctrl-C stops it with exit 130, the answer kept in
// the draft and the way to resume on screen.
func TestDemoOnTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	term := start(t, "demo", "--dir", dir)
	term.ExpectString("15 cases: 6 passed · 6 failed · 3 errored")
	term.ExpectString("Reviewer name")
	term.Send(ptytest.Enter)
	term.ExpectString("What do you want to review?")
	term.Send(ptytest.Enter)
	term.ExpectString("10 case(s) to review")
	term.ExpectString("? Verdict")
	term.Send(ptytest.Enter) // a suspicious case: Enter alone records nothing
	term.ExpectString("No verdict recorded")
	term.Send("2") // the verdicts are numbered 1–4: this filters to "2. Needs improvement"
	term.Send(ptytest.Enter)
	term.ExpectString("What did you notice?")
	term.Send(ptytest.Enter)
	term.ExpectString("? Notes")
	term.Send("looks fine")
	term.Send(ptytest.Enter)
	term.ExpectString("case 2 of 10")
	term.ExpectString("? Verdict")
	term.Send(ptytest.CtrlC)
	term.ExpectString("resume with: agentv review")
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", code, term.Screen())
	}
	if screen := term.Screen(); !strings.Contains(screen, "? Notes (optional; :e opens your editor) looks fine") {
		t.Errorf("the typed notes are not on the screen:\n%s", screen)
	}
	draft, err := feedback.LoadDraft(feedback.PathsFor(dir, ""))
	if err != nil || draft == nil || len(draft.PerCase) != 1 {
		t.Fatalf("draft after Ctrl-C: %+v, %v; want 1 answered case", draft, err)
	}
	if c := draft.PerCase[0]; c.Verdict != feedback.NeedsImprovement || c.Notes != "looks fine" {
		t.Errorf("draft entry: verdict %s, notes %q; want needs_improvement, \"looks fine\"", c.Verdict, c.Notes)
	}
}

// TestHazardsInertOnTerminal: an answer full of escape sequences (clear
// screen, window title, colours, a hyperlink) is shown as text with ␛ for
// ESC: the terminal neither clears nor colours anything.
func TestHazardsInertOnTerminal(t *testing.T) {
	dir := copyRun(t, "terminal-hazards")
	term := startSized(t, 120, 60, "--reviewer", "ana", "--filter", "ansi-output", dir)
	term.ExpectString("? Verdict")
	screen := term.Screen()
	for _, want := range []string{
		"agentv review · run terminal-hazards", // still there: ESC[2J did not clear the screen
		"␛[2J␛[H␛]0;pwned-title␇␛[31mRED ALERT␛[0m status: ok",
		"␛]8;;https://example.invalid/phish␛\\click here",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	term.Send(ptytest.CtrlC)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", code, term.Screen())
	}
}

// TestResizeMidReview: the terminal shrinks while a prompt is open; the
// review goes on (survey measures the terminal again for the next line
// prompt) and the next case is drawn.
func TestResizeMidReview(t *testing.T) {
	term := start(t, "--reviewer", "ana", "--scope", "all", copyRun(t, "core-pass-fail-error"))
	term.ExpectString("? Verdict")
	term.Resize(70, 30)
	term.Send("2")
	term.Send(ptytest.Enter)
	term.ExpectString("What did you notice?")
	term.Send(ptytest.Enter)
	term.ExpectString("? Notes")
	term.Send("narrow")
	term.Send(ptytest.Enter)
	term.ExpectString("case 2 of 15")
	term.ExpectString("? Verdict")
	term.Send(ptytest.CtrlC)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", code, term.Screen())
	}
}
