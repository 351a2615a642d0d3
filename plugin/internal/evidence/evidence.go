// Package evidence draws one case's evidence for a person: outcome, why the
// case was put up for review, each grader with its reason and failed checks,
// samples, the error, the input and the answer. Every string that comes from
// the run passes through termtext before it is written.
package evidence

import (
	"maps"
	"slices"

	"agentv-review/plugin/internal/feedback"
	"fmt"
	"io"
	"strings"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// Options shape the screen.
type Options struct {
	Width       int    // display cells; <= 0 means 100
	AnswerLines int    // lines of answer to show; <= 0 means all
	InputLines  int    // lines of input to show; <= 0 means all
	Heading     string // e.g. "case 3 of 12"; may be empty
	PagerHint   string // shown when the answer is cut, e.g. "choose 'Read the whole answer'"
}

// Render writes the evidence of d. It reports whether the answer was cut
// short (so the caller can offer to show it whole).
func Render(w io.Writer, d *run.Detail, item triage.Item, opt Options) (answerCut bool) {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	p := &printer{w: w, width: opt.Width}
	c := d.Case

	title := termtext.SanitizeLine(c.TestID)
	if c.Target != "" {
		title += " @ " + termtext.SanitizeLine(c.Target)
	}
	if c.Variant != "" {
		title += " #" + termtext.SanitizeLine(c.Variant)
	}
	if opt.Heading != "" {
		title = opt.Heading + " · " + title
	}
	p.rule(title)

	line := fmt.Sprintf("%s  score %s", strings.ToUpper(string(c.Outcome)), triage.FormatScore(c.Score))
	if c.Suite != "" {
		line += "  suite " + termtext.SanitizeLine(c.Suite)
	}
	if pat := triage.SamplePattern(c.Samples); pat != "" {
		line += "  samples " + pat
	}
	p.field("outcome", line)
	if reasons := item.Reasons(); len(reasons) > 0 {
		texts := make([]string, len(reasons))
		for i, r := range reasons {
			texts[i] = r.Text
		}
		p.field("why here", strings.Join(texts, "; "))
	}
	if c.Error != "" {
		stage := ""
		if c.FailureStage != "" {
			stage = "(" + termtext.SanitizeLine(c.FailureStage) + ") "
		}
		p.field("error", stage+termtext.SanitizeLine(c.Error))
	}
	if len(d.Graders) > 0 {
		p.section("graders")
		for _, g := range d.Graders {
			p.grader(g, 1)
		}
	}
	if len(d.Checks) > 0 || d.Reasoning != "" {
		p.section("checks")
		p.checks(d.Checks, 1, false)
		if d.Reasoning != "" {
			p.wrapped(2, "reasoning: "+termtext.SanitizeLine(d.Reasoning))
		}
	}
	if len(d.Samples) > 1 {
		p.section("samples")
		for _, s := range d.Samples {
			p.wrapped(1, fmt.Sprintf("%s %s %s", mark(s.Pass), termtext.SanitizeLine(s.Label), fmtScorePtr(s.Score)))
		}
	}
	p.text("input", d.Input, opt.InputLines, "")
	answerCut = p.text("answer", d.Answer, opt.AnswerLines, opt.PagerHint)
	p.text("workspace changes", d.FileChanges, opt.AnswerLines, "")
	if d.WorkspacePath != "" {
		p.field("workspace", termtext.SanitizeLine(d.WorkspacePath))
	}
	for _, w := range d.Warnings {
		p.field("note", termtext.SanitizeLine(w.Msg))
	}
	return answerCut
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

func (p *printer) grader(g run.Grader, depth int) {
	head := fmt.Sprintf("%s %s  %s", mark(g.Pass), termtext.SanitizeLine(g.Key()), fmtScorePtr(g.Score))
	if g.Pass == nil && g.Verdict != "" {
		head += "  (" + termtext.SanitizeLine(g.Verdict) + ")"
	}
	if g.Weight != nil && *g.Weight != 1 {
		head += "  weight " + triage.FormatScore(*g.Weight)
	}
	p.wrapped(depth, head)
	if g.Reason != "" {
		p.wrapped(depth+1, "reason: "+termtext.SanitizeLine(g.Reason))
	}
	p.checks(g.Checks, depth+1, g.Pass != nil && *g.Pass)
	for _, ch := range g.Children {
		p.grader(ch, depth+1)
	}
}

// checks prints failed checks always, passed ones only when the grader did
// not pass (then they show what it did accept) or has no verdict.
func (p *printer) checks(cs []run.Check, depth int, graderPassed bool) {
	for _, ch := range cs {
		if ch.Passed && graderPassed {
			continue
		}
		t := mark(&ch.Passed) + " " + termtext.SanitizeLine(ch.Text)
		if ch.Evidence != "" {
			t += " — " + termtext.SanitizeLine(ch.Evidence)
		}
		p.wrapped(depth, t)
	}
}

// text prints a block of run text: the first maxLines wrapped lines, a note
// of what was cut, or why it is missing. It reports whether text was cut.
func (p *printer) text(label string, t run.Text, maxLines int, moreHint string) (cut bool) {
	switch {
	case !t.Present:
		return false
	case t.Missing:
		msg := "missing"
		if t.Path != "" {
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
	body := termtext.Sanitize(t.Content)
	var lines []string
	more := 0
	if maxLines > 0 {
		lines, more = termtext.Head(body, maxLines, max(20, p.width-2))
	} else {
		lines = termtext.Wrap(body, max(20, p.width-2))
	}
	for _, l := range lines {
		fmt.Fprintln(p.w, "  "+l)
	}
	if more > 0 || t.Truncated {
		note := "  …"
		if more > 0 {
			note += fmt.Sprintf(" %d more line(s)", more)
		}
		if t.Truncated {
			note += " (only the start of the file was read)"
		}
		if moreHint != "" {
			note += ": " + moreHint
		}
		fmt.Fprintln(p.w, note)
	}
	return more > 0 || t.Truncated
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
