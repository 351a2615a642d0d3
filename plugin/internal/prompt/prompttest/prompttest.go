// Package prompttest is a scripted prompt.Prompter for tests: each Step
// expects one prompt (its kind and a substring of its message) and gives the
// answer. An unexpected prompt stops the test; steps never asked fail it at
// cleanup.
package prompttest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/prompt"
)

// Step is one expected prompt and its scripted answer.
type Step struct {
	kind   string // "select", "multiselect", "input", "confirm", "editor"; "" for any
	msg    string // substring of the expected message
	answer func(tb testing.TB, options []string, def any) (any, error)
}

func (s Step) String() string {
	return fmt.Sprintf("%s prompt containing %q", cmp.Or(s.kind, "any"), s.msg)
}

// SelectStep answers a Select with the option at index.
func SelectStep(msg string, index int) Step {
	return Step{"select", msg, func(tb testing.TB, options []string, _ any) (any, error) {
		if index < 0 || index >= len(options) {
			tb.Fatalf("prompttest: scripted index %d, but the select has %d options %q", index, len(options), options)
		}
		return index, nil
	}}
}

// SelectByLabel answers a Select with the first option containing label.
func SelectByLabel(msg, label string) Step {
	return Step{"select", msg, func(tb testing.TB, options []string, _ any) (any, error) {
		return find(tb, options, label), nil
	}}
}

// MultiStep answers a MultiSelect by checking exactly the options containing
// each of labels (none when labels is empty).
func MultiStep(msg string, labels ...string) Step {
	return Step{"multiselect", msg, func(tb testing.TB, options []string, _ any) (any, error) {
		picked := []int{}
		for _, l := range labels {
			picked = append(picked, find(tb, options, l))
		}
		slices.Sort(picked)
		return slices.Compact(picked), nil
	}}
}

// InputStep answers an Input with text.
func InputStep(msg, text string) Step { return Step{"input", msg, value(text)} }

// ConfirmStep answers a Confirm.
func ConfirmStep(msg string, yes bool) Step { return Step{"confirm", msg, value(yes)} }

// EditorStep answers an Editor with text.
func EditorStep(msg, text string) Step { return Step{"editor", msg, value(text)} }

// Interrupt answers a prompt of any kind as if the user pressed Ctrl-C.
func Interrupt(msg string) Step {
	return Step{"", msg, func(testing.TB, []string, any) (any, error) {
		return nil, fmt.Errorf("%w: ctrl-c", clierr.ErrInterrupted)
	}}
}

// Enter answers a prompt of any kind with its default, as pressing Enter does.
func Enter(msg string) Step {
	return Step{"", msg, func(_ testing.TB, _ []string, def any) (any, error) { return def, nil }}
}

func value(v any) func(testing.TB, []string, any) (any, error) {
	return func(testing.TB, []string, any) (any, error) { return v, nil }
}

func find(tb testing.TB, options []string, label string) int {
	i := slices.IndexFunc(options, func(o string) bool { return strings.Contains(o, label) })
	if i < 0 {
		tb.Fatalf("prompttest: no option contains %q in %q", label, options)
	}
	return i
}

// Prompter plays its steps in order.
type Prompter struct {
	tb    testing.TB
	steps []Step
	next  int
}

var _ prompt.Prompter = (*Prompter)(nil)

// New returns a Prompter that expects exactly steps, in order.
func New(tb testing.TB, steps ...Step) *Prompter {
	p := &Prompter{tb: tb, steps: steps}
	tb.Cleanup(func() {
		for _, s := range p.steps[p.next:] {
			tb.Errorf("prompttest: %s was never asked", s)
		}
	})
	return p
}

// play checks the prompt against the next step and returns its answer.
func play[T any](p *Prompter, kind, msg string, options []string, def T) (T, error) {
	p.tb.Helper()
	var zero T
	if p.next == len(p.steps) {
		p.tb.Fatalf("prompttest: unexpected %s prompt %q: no steps left", kind, msg)
	}
	s := p.steps[p.next]
	p.next++
	if s.kind != "" && s.kind != kind || !strings.Contains(msg, s.msg) {
		p.tb.Fatalf("prompttest: step %d expects %s, got %s prompt %q", p.next, s, kind, msg)
	}
	v, err := s.answer(p.tb, options, def)
	if err != nil {
		return zero, err
	}
	return v.(T), nil
}

func (p *Prompter) Select(msg string, options []string, def int, _ string) (int, error) {
	p.tb.Helper()
	return play(p, "select", msg, options, def)
}

func (p *Prompter) MultiSelect(msg string, options []string, defaults []int, _ string) ([]int, error) {
	p.tb.Helper()
	return play(p, "multiselect", msg, options, defaults)
}

func (p *Prompter) Input(msg, def, _ string) (string, error) {
	p.tb.Helper()
	return play(p, "input", msg, nil, def)
}

func (p *Prompter) Confirm(msg string, def bool, _ string) (bool, error) {
	p.tb.Helper()
	return play(p, "confirm", msg, nil, def)
}

func (p *Prompter) Editor(msg, def, _ string) (string, error) {
	p.tb.Helper()
	return play(p, "editor", msg, nil, def)
}
