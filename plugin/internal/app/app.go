// Package app is the agentv-review command line: flags, help, and the
// mapping of errors to exit codes.
//
// UI contract: data a script reads goes to stdout (with --json, exactly one
// JSON document); messages go to stderr prefixed "agentv review: ",
// lowercase, with a "hint:" line when the fix is known. Interactive screens
// need a terminal on stdin and stdout. Nothing read from a run reaches the
// terminal without termtext sanitising it.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
	"golang.org/x/term"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
)

// Version is set at build time with -ldflags "-X agentv-review/plugin/internal/app.Version=…".
var Version = "0.1.0-dev"

const prog = "agentv review"

// Streams is the command's IO and environment, a value so tests can
// replace any of it: nothing in the app reads the clock, the environment
// or the process's files but through it.
type Streams struct {
	In  io.Reader // standard input (apply --from -)
	Out io.Writer
	Err io.Writer
	// TTYIn and TTYOut are the terminal behind In and Out, nil when they
	// are not a terminal (the guided review needs both).
	TTYIn, TTYOut *os.File
	Getenv        func(string) string
	// Now is the clock of recorded judgments and written files (nil: the
	// system clock).
	Now func() time.Time
	// LockWait is how long set and apply wait for another writer of the
	// same feedback file (0: DefaultLockWait).
	LockWait time.Duration
	// ASCII is set when the locale is not UTF-8 (LC_ALL, LC_CTYPE, LANG):
	// what reaches a terminal is then ASCII only (termtext.ASCIIWriter), so
	// no byte an 8-bit terminal reads as a C1 control is printed.
	ASCII bool
}

// DefaultLockWait is how long set and apply wait for another writer: a
// set or apply holds the lock for milliseconds, a guided review for its
// whole session.
const DefaultLockWait = 3 * time.Second

// Std returns the process's streams. Under a locale that is not UTF-8,
// what goes to a terminal is written as ASCII.
func Std() *Streams {
	s := &Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Now: time.Now,
		ASCII: termtext.CharsetFromEnv(os.Getenv) == termtext.ASCII}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		s.TTYIn = os.Stdin
	}
	if term.IsTerminal(int(os.Stdout.Fd())) {
		s.TTYOut = os.Stdout
		if s.ASCII {
			s.Out = termtext.NewASCIIWriter(os.Stdout)
		}
	}
	if s.ASCII && term.IsTerminal(int(os.Stderr.Fd())) {
		s.Err = termtext.NewASCIIWriter(os.Stderr)
	}
	return s
}

// now is the streams' clock.
func (s *Streams) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Streams) lockWait() time.Duration {
	if s.LockWait <= 0 {
		return DefaultLockWait
	}
	return s.LockWait
}

// Main runs the command line and returns the exit code. With --json, a
// failure before the command printed its document — a usage error
// included — prints {"error": {code, message, hint}} on stdout, so scripts
// always get JSON.
func Main(args []string, s *Streams) int {
	out := &countingWriter{w: s.Out}
	sc := *s
	sc.Out = out
	err := New(&sc).Run(args)
	if err == nil {
		return clierr.CodeOK
	}
	var ce *clierr.Error
	if !errors.As(err, &ce) && !errors.Is(err, clierr.ErrInterrupted) {
		// Everything our actions return is a *clierr.Error (see act);
		// anything else comes from urfave's flag parsing.
		err = clierr.Usage(err.Error(), "see '"+prog+" --help'")
	}
	if out.n == 0 && wantsJSON(args) && !errors.Is(err, clierr.ErrInterrupted) {
		writeJSON(s.Out, jsonError{jsonErrorOf(err)})
	}
	report(s.Err, err)
	return clierr.Code(err)
}

// wantsJSON reports whether --json was given (before a "--").
func wantsJSON(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
	}
	return false
}

func report(w io.Writer, err error) {
	msg := err.Error()
	if errors.Is(err, clierr.ErrInterrupted) {
		msg = "interrupted"
	}
	fmt.Fprintf(w, "%s: %s\n", prog, termtext.SanitizeLine(msg))
	var amb *run.AmbiguousError
	if errors.As(err, &amb) {
		for _, c := range amb.Candidates { // newest first
			fmt.Fprintf(w, "  %s\n", termtext.SanitizeLine(c))
		}
	}
	if h := clierr.HintOf(err); h != "" {
		fmt.Fprintf(w, "%s: hint: %s\n", prog, termtext.SanitizeLine(h))
	}
}

// jsonError is what --json commands print on stdout when they fail before
// printing their document, so scripts always get JSON.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func jsonErrorOf(err error) jsonErrorBody {
	return jsonErrorBody{Code: clierr.Code(err), Message: err.Error(), Hint: clierr.HintOf(err)}
}

// countingWriter notes whether anything was written.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// New builds the urfave/cli app.
func New(s *Streams) *cli.App {
	a := &cli.App{
		Name:                   prog,
		HelpName:               prog,
		Usage:                  "the human review checkpoint for AgentV runs",
		Version:                versionText(),
		Writer:                 s.Out,
		ErrWriter:              s.Err,
		UseShortOptionHandling: false,
		EnableBashCompletion:   true, // shell-init's completion asks --generate-bash-completion
		CustomAppHelpTemplate:  appHelpTemplate(),
		ExitErrHandler:         func(*cli.Context, error) {}, // we map errors to codes in Main
		OnUsageError:           usageError,
		Flags:                  guidedFlags(),
		Action:                 act(s, guidedAction, 0, 1, "[run]"),
		Commands: []*cli.Command{
			demoCommand(s),
			statusCommand(s),
			listCommand(s),
			showCommand(s),
			validateCommand(s),
			historyCommand(s),
			setCommand(s),
			applyCommand(s),
			exportCommand(s),
			agreeCommand(s),
			calibrateCommand(s),
			handoffCommand(s),
			docsCommand(s),
			skillCommand(s),
			schemaCommand(s),
			shellInitCommand(s),
		},
	}
	for _, c := range a.Commands {
		c.OnUsageError = a.OnUsageError
		c.HideHelpCommand = true // no subcommands: 'help' is not an argument to complete
	}
	return a
}

// usageError is urfave's flag-parsing error as a usage error; a mistyped
// flag gets "did you mean".
func usageError(c *cli.Context, err error, _ bool) error {
	hint := "see '" + prog + " --help'"
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok && c != nil {
		flags := c.App.Flags
		if c.Command != nil && c.Command.Name != "" {
			flags = c.Command.Flags
		}
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		if best, ok := closest(strings.TrimLeft(name, "-"), names); ok {
			hint = "did you mean --" + best + "? (" + hint + ")"
		}
	}
	return clierr.Usage(err.Error(), hint)
}

// closest is the name most like word (Jaro–Winkler, as urfave/cli
// suggests), and whether it is like enough to suggest.
func closest(word string, names []string) (string, bool) {
	best, score := "", 0.0
	for _, n := range names {
		if d := smetrics.JaroWinkler(word, n, 0.7, 4); d > score {
			best, score = n, d
		}
	}
	return best, score >= 0.8
}

// action is a command body: positional arguments already checked.
type action func(s *Streams, c *cli.Context, args []string) error

// act wraps an action: it checks the positional argument count, rejects
// flags written after positional arguments (urfave/cli v2 would silently
// treat them as arguments), and makes every error a *clierr.Error.
func act(s *Streams, fn action, min, max int, usage string) cli.ActionFunc {
	return func(c *cli.Context) error {
		args := c.Args().Slice()
		for _, a := range args {
			if len(a) > 1 && strings.HasPrefix(a, "-") {
				return clierr.Usage(fmt.Sprintf("flag %s comes after the arguments", a),
					fmt.Sprintf("put flags before arguments: %s %s [flags] %s", prog, c.Command.Name, usage))
			}
		}
		if len(args) < min || (max >= 0 && len(args) > max) {
			return clierr.Usage(fmt.Sprintf("expected %s, got %d argument(s)", usage, len(args)),
				fmt.Sprintf("see '%s %s --help'", prog, c.Command.Name))
		}
		err := fn(s, c, args)
		if err == nil || errors.Is(err, clierr.ErrInterrupted) {
			return err
		}
		var ce *clierr.Error
		if !errors.As(err, &ce) {
			err = clierr.Failure(err, err.Error(), "")
		}
		return err // Main prints the --json error document
	}
}

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout"}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func usageConflict(a, b string) error {
	return clierr.Usage(fmt.Sprintf("%s and %s cannot be used together", a, b), "pick one")
}

// width is the terminal width for text layout; 100 when not a terminal.
func (s *Streams) width() int {
	if s.TTYOut != nil {
		if w, _, err := term.GetSize(int(s.TTYOut.Fd())); err == nil && w >= 40 {
			return w
		}
	}
	return 100
}

// requireFlag fails with a usage error when flag was not given. (urfave's
// own Required check runs before act's, so a flag written after the
// arguments would be reported as missing instead of misplaced.)
func requireFlag(c *cli.Context, flag string) error {
	if c.IsSet(flag) {
		return nil
	}
	return clierr.Usage("missing --"+flag, fmt.Sprintf("see '%s %s --help'", prog, c.Command.Name))
}

// printf writes a formatted message with everything in it sanitised: run
// ids, test ids and paths come from files and may hold escape sequences.
func printf(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, termtext.Sanitize(fmt.Sprintf(format, args...)))
}
