// Package prompt asks the reviewer questions on the terminal. It is the only
// package that imports survey/v2; everything else speaks to the Prompter
// interface, which takes and returns plain values.
//
// Text passed in (messages, options, help) must already be sanitised by the
// caller (see termtext); survey adds its own colours.
//
// Select and MultiSelect show their options numbered ("1. acceptable"), and
// typing a number filters the list to that option, so any option is at most
// two keystrokes away ("2", Enter); typing other text filters by substring as
// usual, and Enter alone accepts the highlighted default.
package prompt

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/term"

	"agentv-review/plugin/internal/clierr"
)

// Prompter asks one question at a time. Every method returns an error
// wrapping clierr.ErrInterrupted when the user presses Ctrl-C or the input
// ends.
type Prompter interface {
	// Select returns the index of the chosen option; def is preselected.
	Select(msg string, options []string, def int, help string) (int, error)
	// MultiSelect returns the indices of the checked options, ascending;
	// defaults are checked at the start.
	MultiSelect(msg string, options []string, defaults []int, help string) ([]int, error)
	// Input returns one line of text; Enter alone returns def.
	Input(msg, def, help string) (string, error)
	// Confirm returns a yes/no answer; Enter alone returns def.
	Confirm(msg string, def bool, help string) (bool, error)
	// Editor returns a longer text edited in $VISUAL or $EDITOR, opened on
	// def; with neither set it reads lines until two empty ones.
	Editor(msg, def, help string) (string, error)
}

// PageSize is how many options a Select or MultiSelect shows at once.
const PageSize = 8

// New returns a Prompter that reads keys from in and draws on out, with
// errOut for survey's error output.
func New(in terminal.FileReader, out terminal.FileWriter, errOut io.Writer) Prompter {
	return &surveyPrompter{in: in, out: out, errOut: errOut}
}

// CanPrompt reports whether in and out are both terminals.
func CanPrompt(in, out *os.File) bool {
	return term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

type surveyPrompter struct {
	in     terminal.FileReader
	out    terminal.FileWriter
	errOut io.Writer
}

func (p *surveyPrompter) ask(q survey.Prompt, answer any) error {
	err := survey.AskOne(q, answer,
		survey.WithStdio(p.in, p.out, p.errOut),
		survey.WithPageSize(PageSize),
		survey.WithFilter(numberOrText),
	)
	return interrupted(err)
}

func (p *surveyPrompter) Select(msg string, options []string, def int, help string) (int, error) {
	var i int
	err := p.ask(&survey.Select{Message: msg, Options: numbered(options), Default: def, Help: help}, &i)
	return i, err
}

func (p *surveyPrompter) MultiSelect(msg string, options []string, defaults []int, help string) ([]int, error) {
	var is []int
	err := p.ask(&survey.MultiSelect{Message: msg, Options: numbered(options), Default: defaults, Help: help}, &is)
	return is, err
}

func (p *surveyPrompter) Input(msg, def, help string) (string, error) {
	var s string
	err := p.ask(&survey.Input{Message: msg, Default: def, Help: help}, &s)
	return s, err
}

func (p *surveyPrompter) Confirm(msg string, def bool, help string) (bool, error) {
	var ok bool
	err := p.ask(&survey.Confirm{Message: msg, Default: def, Help: help}, &ok)
	return ok, err
}

func (p *surveyPrompter) Editor(msg, def, help string) (string, error) {
	var q survey.Prompt = &survey.Multiline{Message: msg, Default: def, Help: help}
	if editor := cmp.Or(os.Getenv("VISUAL"), os.Getenv("EDITOR")); editor != "" {
		q = &survey.Editor{
			Message: msg, Default: def, Help: help, Editor: editor,
			HideDefault: true, AppendDefault: true, FileName: "agentv-review-*.md",
		}
	}
	var s string
	err := p.ask(q, &s)
	return s, err
}

// numbered prefixes each option with its 1-based number.
func numbered(options []string) []string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = strconv.Itoa(i+1) + ". " + o
	}
	return out
}

// numberOrText is the option filter: a typed number keeps only the option
// with that number, other text keeps the options containing it (ignoring case).
func numberOrText(filter, option string, index int) bool {
	if n, err := strconv.Atoi(filter); err == nil {
		return n == index+1
	}
	return strings.Contains(strings.ToLower(option), strings.ToLower(filter))
}

// interrupted maps survey's Ctrl-C error and the end of input to
// clierr.ErrInterrupted.
func interrupted(err error) error {
	switch {
	case errors.Is(err, terminal.InterruptErr):
		return fmt.Errorf("%w: ctrl-c", clierr.ErrInterrupted)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: input ended", clierr.ErrInterrupted)
	}
	return err
}
