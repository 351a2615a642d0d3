// Package evidence draws one case's evidence for a person: outcome, why the
// case was put up for review, what the test asked, each grader with its
// configuration, reason and every check, samples, the error, the
// trajectory, the workspace diff, the input and the answer. Every string
// that comes from the run passes through termtext before it is written.
package evidence

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// Options shape the screen.
type Options struct {
	Width       int    // display cells; <= 0 means 100
	AnswerLines int    // lines of answer (and of a whole diff) to show; <= 0 means all
	InputLines  int    // lines of input to show; <= 0 means all
	Heading     string // e.g. "case 3 of 12"; may be empty
	PagerHint   string // shown when the answer is cut, e.g. "choose 'Read the whole answer'"
	// Whole draws the trajectory turn by turn and the diff itself (for a
	// pager); else their counts, the first ToolCalls calls and the files.
	Whole     bool
	ToolCalls int // tool calls listed on the case screen; <= 0 means 3
	// Color colours the diff. Only the caller knows whether it may: set it
	// from ColorAllowed, never by default.
	Color bool
	// Blind hides the machine's verdict — outcome, score, why the case is
	// here, grader results, checks and sample results — for a blind-first
	// review; RenderVerdicts shows it once the reviewer has committed.
	Blind bool
}

// ColorAllowed is whether colour may be used on an output that is (or is
// not) a terminal: never when NO_COLOR is set to anything non-empty
// (https://no-color.org), given its value.
func ColorAllowed(isTerminal bool, noColor string) bool { return isTerminal && noColor == "" }

// Render writes the evidence. It reports whether the answer was cut short.
func (ev *Evidence) Render(w io.Writer, opt Options) (answerCut bool) {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	p := &printer{w: w, width: opt.Width}

	title := termtext.SanitizeLine(ev.TestID)
	if ev.Target != "" {
		title += " @ " + termtext.SanitizeLine(ev.Target)
	}
	if ev.Variant != "" {
		title += " #" + termtext.SanitizeLine(ev.Variant)
	}
	if opt.Heading != "" {
		title = opt.Heading + " · " + title
	}
	p.rule(title)

	if opt.Blind {
		p.field("outcome", "hidden until you commit a verdict (blind-first review)")
		if ev.Suite != "" {
			p.field("suite", termtext.SanitizeLine(ev.Suite))
		}
		p.task(ev.Task, true)
	} else {
		p.machine(ev)
	}
	p.transcript(ev.Trace, opt)
	p.diff(ev.Diff, opt)
	label := "input"
	if ev.Input.From != "" {
		label = "input (from the " + ev.Input.From + ")"
	}
	p.text(label, ev.Input, opt.InputLines, "")
	answerCut = p.text("answer", ev.Answer, opt.AnswerLines, opt.PagerHint)
	if ev.WorkspacePath != "" {
		p.field("workspace", termtext.SanitizeLine(ev.WorkspacePath))
	}
	for _, pr := range ev.Problems {
		p.field("missing", termtext.SanitizeLine(problemText(pr)))
	}
	for _, w := range ev.Warnings {
		p.field("note", termtext.SanitizeLine(w.Msg))
	}
	return answerCut
}

// RenderVerdicts writes the machine's verdict alone: what a blind-first
// review hid until the reviewer committed.
func (ev *Evidence) RenderVerdicts(w io.Writer, opt Options) {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	p := &printer{w: w, width: opt.Width}
	p.rule("revealed: the machine's verdict")
	p.machine(ev)
}

// machine writes the outcome, why the case is here, the error, the test's
// configuration beside the graders, the checks and the samples.
func (p *printer) machine(ev *Evidence) {
	line := fmt.Sprintf("%s  score %s", strings.ToUpper(string(ev.Outcome)), triage.FormatScore(ev.Score))
	if ev.Suite != "" {
		line += "  suite " + termtext.SanitizeLine(ev.Suite)
	}
	if ev.Pattern != "" {
		line += "  samples " + ev.Pattern
	}
	p.field("outcome", line)
	if len(ev.Why) > 0 {
		p.field("why here", termtext.SanitizeLine(strings.Join(ev.Why, "; ")))
	}
	if e := ev.Error; e != nil {
		var tags []string
		for _, t := range []string{e.Stage, e.Code} {
			if t != "" {
				tags = append(tags, termtext.SanitizeLine(t))
			}
		}
		msg := termtext.SanitizeLine(e.Message)
		if len(tags) > 0 {
			msg = "(" + strings.Join(tags, ", ") + ") " + msg
		}
		p.field("error", msg)
	}
	p.task(ev.Task, len(ev.Graders) == 0)
	if len(ev.Graders) > 0 {
		p.section("graders")
		for _, g := range ev.Graders {
			p.grader(g, 1)
		}
	}
	if len(ev.Checks) > 0 || ev.Reason != "" {
		p.section("checks")
		p.checks(ev.Checks, 1)
		if ev.Reason != "" {
			p.wrapped(2, "reasoning: "+termtext.SanitizeLine(ev.Reason))
		}
	}
	if len(ev.Samples) > 1 {
		p.section("samples")
		for _, s := range ev.Samples {
			p.wrapped(1, fmt.Sprintf("%s %s %s", mark(s.Pass), termtext.SanitizeLine(s.Label), fmtScorePtr(s.Score)))
		}
	}
}

func problemText(p run.FileProblem) string {
	s := p.Path + " " + p.Problem
	switch p.Problem {
	case run.ProblemMissing:
		s = p.Path + " is not on disk"
	case run.ProblemUnreadable:
		s = "cannot read " + p.Path
	}
	if p.Field != "" {
		s += " (" + p.Field + ")"
	}
	if p.Cause != "" {
		s += ": " + p.Cause
	}
	return s
}

type printer struct {
	w     io.Writer
	width int
}

func (p *printer) rule(title string) {
	title = termtext.Truncate("── "+title+" ", p.width, "… ")
	fmt.Fprintln(p.w, title+strings.Repeat("─", max(0, p.width-termtext.Width(title))))
}

func (p *printer) section(name string) { fmt.Fprintln(p.w, name) }

// field prints "label  value", wrapping the value under itself.
func (p *printer) field(label, value string) {
	const col = 10
	pad := strings.Repeat(" ", max(1, col-termtext.Width(label)))
	lines := termtext.Wrap(value, max(20, p.width-col))
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintln(p.w, label+pad+l)
		} else {
			fmt.Fprintln(p.w, strings.Repeat(" ", col)+l)
		}
	}
}

// wrapped prints s indented by depth levels, wrapped to the width.
func (p *printer) wrapped(depth int, s string) {
	indent := strings.Repeat("  ", depth)
	for _, l := range termtext.Wrap(s, max(20, p.width-len(indent))) {
		fmt.Fprintln(p.w, indent+l)
	}
}

// line prints s indented by depth levels on one line, cut to the width.
func (p *printer) line(depth int, s string) {
	indent := strings.Repeat("  ", depth)
	fmt.Fprintln(p.w, indent+termtext.Truncate(s, max(20, p.width-len(indent)), "…"))
}

// task prints what the test asked; the assertions too when no grader ran
// (their configuration is otherwise shown with each grader).
func (p *printer) task(t *run.Task, assertions bool) {
	if t == nil {
		return
	}
	if t.Criteria != "" || t.Expected != "" || assertions && len(t.Assertions) > 0 {
		p.section("asked")
	}
	if t.Criteria != "" {
		p.wrapped(1, "criteria: "+termtext.SanitizeLine(t.Criteria))
	}
	if t.Expected != "" {
		p.wrapped(1, "expected: "+termtext.SanitizeLine(t.Expected))
	}
	if assertions {
		for _, a := range t.Assertions {
			p.wrapped(1, "assertion "+termtext.SanitizeLine(a.Type+":"+a.Name)+"  "+config(&a))
		}
	}
	for _, pr := range t.Problems {
		p.field("missing", termtext.SanitizeLine(problemText(pr)))
	}
}

// config is an assertion's configuration on one line (sanitised).
func config(a *run.Assertion) string {
	var parts []string
	if a.Negate {
		parts = append(parts, "not")
	}
	if a.Value != "" {
		parts = append(parts, strconv.Quote(a.Value))
	}
	if a.Required == "true" {
		parts = append(parts, "REQUIRED")
	} else if a.Required != "" {
		parts = append(parts, "REQUIRED ≥ "+a.Required)
	}
	if a.Weight != nil && *a.Weight != 1 {
		parts = append(parts, "weight "+triage.FormatScore(*a.Weight))
	}
	for _, s := range a.Settings {
		parts = append(parts, s.Key+"="+s.Value)
	}
	return termtext.SanitizeLine(strings.Join(parts, "  "))
}

func (p *printer) grader(g Grader, depth int) {
	head := fmt.Sprintf("%s %s  %s", mark(g.Pass), termtext.SanitizeLine(g.Key()), fmtScorePtr(g.Score))
	if g.Pass == nil && g.Verdict != "" {
		head += "  (" + termtext.SanitizeLine(g.Verdict) + ")"
	}
	if g.Weight != nil && *g.Weight != 1 {
		head += "  weight " + triage.FormatScore(*g.Weight)
	}
	p.wrapped(depth, head)
	if g.Gate != "" {
		p.wrapped(depth+1, "▲ "+g.Gate)
	}
	if a := g.Config; a != nil {
		if c := config(a); c != "" {
			p.wrapped(depth+1, "asks: "+c)
		}
		for _, rb := range a.Rubrics {
			t := "rubric " + rb.ID
			if rb.Operator != "" {
				t += " (" + rb.Operator + ")"
			}
			if rb.Required {
				t += " REQUIRED"
			}
			if rb.Weight != nil && *rb.Weight != 1 {
				t += " weight " + triage.FormatScore(*rb.Weight)
			}
			p.wrapped(depth+1, termtext.SanitizeLine(t+": "+rb.Outcome))
		}
	}
	if g.Reason != "" {
		p.wrapped(depth+1, "reason: "+termtext.SanitizeLine(g.Reason))
	}
	if g.Details != "" {
		p.wrapped(depth+1, "details: "+termtext.SanitizeLine(g.Details))
	}
	p.checks(g.Checks, depth+1)
	for _, ch := range g.Children {
		p.grader(ch, depth+1)
	}
}

// checks prints every check with its evidence, passed ones too.
func (p *printer) checks(cs []run.Check, depth int) {
	for _, ch := range cs {
		t := mark(&ch.Passed) + " " + termtext.SanitizeLine(ch.Text)
		if ch.Evidence != "" {
			t += " — " + termtext.SanitizeLine(ch.Evidence)
		}
		p.wrapped(depth, t)
	}
}

// text prints a block of run text: the first maxLines wrapped lines, a note
// of what was cut, or why it is missing. It reports whether text was cut.
// Only what is shown is sanitised and wrapped.
func (p *printer) text(label string, t Text, maxLines int, moreHint string) (cut bool) {
	switch {
	case !t.Present:
		return false
	case t.Missing:
		msg := "missing"
		switch {
		case t.Problem != nil:
			msg += ": " + termtext.SanitizeLine(problemText(*t.Problem))
		case t.Path != "":
			msg += ": " + termtext.SanitizeLine(t.Path) + " is not on disk"
		}
		p.field(label, msg)
		return false
	}
	size := ""
	if t.Size > 0 {
		size = " (" + humanBytes(t.Size) + ")"
	}
	p.section(label + size)
	lines, more, unknown := head(t.Content, maxLines, max(20, p.width-2))
	for _, l := range lines {
		fmt.Fprintln(p.w, "  "+l)
	}
	if more > 0 || unknown || t.Truncated {
		note := "  …"
		switch {
		case more > 0 && unknown:
			note += fmt.Sprintf(" %d+ more line(s)", more)
		case more > 0:
			note += fmt.Sprintf(" %d more line(s)", more)
		case unknown:
			note += " more"
		}
		if t.Truncated {
			note += " (only the start of the file was read)"
		}
		if moreHint != "" {
			note += ": " + moreHint
		}
		fmt.Fprintln(p.w, note)
	}
	return more > 0 || unknown || t.Truncated
}

func mark(pass *bool) string {
	switch {
	case pass == nil:
		return "?"
	case *pass:
		return "✓"
	default:
		return "✗"
	}
}

func fmtScorePtr(f *float64) string {
	if f == nil {
		return "-"
	}
	return triage.FormatScore(*f)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// RenderJudgment writes a recorded human judgment of the case.
func RenderJudgment(w io.Writer, j *feedback.Case, width int) {
	p := &printer{w: w, width: max(width, 40)}
	who := ""
	if j.Reviewer != "" {
		who = " by " + termtext.SanitizeLine(j.Reviewer)
	}
	if j.ReviewedAt != "" {
		who += " at " + termtext.SanitizeLine(j.ReviewedAt)
	}
	p.rule("reviewed" + who)
	p.field("verdict", termtext.SanitizeLine(j.Verdict))
	if len(j.Signals) > 0 {
		p.field("signals", termtext.SanitizeLine(strings.Join(j.Signals, ", ")))
	}
	if j.Notes != "" {
		p.field("notes", termtext.SanitizeLine(j.Notes))
	}
	for _, k := range slices.Sorted(maps.Keys(j.EvaluatorOverrides)) {
		p.field("grader", termtext.SanitizeLine(k+": "+j.EvaluatorOverrides[k]))
	}
	if j.WorkspaceNotes != "" {
		p.field("workspace", termtext.SanitizeLine(j.WorkspaceNotes))
	}
	if j.CarriedFrom != nil {
		p.field("carried", "from run "+termtext.SanitizeLine(j.CarriedFrom.RunID))
	}
}
