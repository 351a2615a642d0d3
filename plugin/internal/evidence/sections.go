package evidence

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
)

// head sanitises and wraps only the start of s that maxLines wrapped lines
// of cells need (all of s when maxLines <= 0), so a 5 MB answer costs what
// 13 lines cost. more counts the lines left out: wrapped lines of the
// source lines it wrapped plus the source lines after them; unknown is set
// when a single source line was too long to wrap whole (then more is a
// lower bound).
func head(s string, maxLines, cells int) (lines []string, more int, unknown bool) {
	if maxLines <= 0 {
		return termtext.Wrap(termtext.Sanitize(s), cells), 0, false
	}
	// No shown line needs more bytes than this: a cell is at least one
	// byte, and sanitising only ever makes text longer.
	lineCap := maxLines * cells * utf8.UTFMax
	rest := s
	for rest != "" && len(lines) < maxLines {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if len(line) > lineCap {
			line, unknown = cutRunes(line, lineCap), true
		}
		wrapped := termtext.Wrap(termtext.Sanitize(line), cells)
		if len(wrapped) == 0 {
			wrapped = []string{""}
		}
		n := min(len(wrapped), maxLines-len(lines))
		lines = append(lines, wrapped[:n]...)
		more += len(wrapped) - n
	}
	more += strings.Count(rest, "\n")
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		more++
	}
	return lines, more, unknown
}

// cutRunes cuts s to at most n bytes without splitting a rune.
func cutRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// transcript prints the trajectory: counts and the first few tool calls,
// or (Whole) every turn and call.
func (p *printer) transcript(t *run.Transcript, opt Options) {
	if t == nil {
		return
	}
	turns, calls := len(t.Turns), t.ToolCalls()
	plus := ""
	if !t.Complete {
		plus = "+"
	}
	head := fmt.Sprintf("%d%s turn(s), %d%s tool call(s)", turns, plus, calls, plus)
	if t.SummaryTurns > turns {
		head = fmt.Sprintf("%d turn(s) (%d read), %d%s tool call(s)", t.SummaryTurns, turns, calls, plus)
	}
	p.field("trace", head+" · "+termtext.SanitizeLine(t.Source))
	if !t.Complete {
		p.wrapped(1, fmt.Sprintf("(only the first %s of %s was read)", humanBytes(readBytes(t, opt)), humanBytes(t.Size)))
	}
	for _, f := range []struct {
		label string
		list  []string
	}{{"files modified", t.FilesModified}, {"files read", t.FilesRead}, {"shell", t.ShellCommands}, {"errors", t.Errors}} {
		if len(f.list) > 0 {
			p.wrapped(1, f.label+": "+termtext.SanitizeLine(strings.Join(f.list, ", ")))
		}
	}
	if opt.Whole {
		for i, tu := range t.Turns {
			p.wrapped(1, fmt.Sprintf("[%d] %s", i+1, termtext.SanitizeLine(tu.Role)))
			for _, l := range termtext.Wrap(termtext.Sanitize(tu.Text), max(20, p.width-4)) {
				fmt.Fprintln(p.w, "    "+l)
			}
			for _, c := range tu.Calls {
				p.wrapped(2, callText(c))
			}
		}
		return
	}
	shown := opt.ToolCalls
	if shown <= 0 {
		shown = 3
	}
	n := 0
	for _, tu := range t.Turns {
		for _, c := range tu.Calls {
			if n < shown {
				p.line(1, callText(c))
			}
			n++
		}
	}
	if n > shown {
		p.wrapped(1, fmt.Sprintf("… %d more tool call(s)", n-shown))
	}
}

// readBytes is how much of the transcript Collect read.
func readBytes(t *run.Transcript, opt Options) int64 {
	if opt.Whole {
		return min(t.Size, run.TranscriptFullLimit)
	}
	return min(t.Size, run.TranscriptScreenLimit)
}

// callText is one tool call on one line: "→ name args ⇒ result [status]".
func callText(c run.ToolCall) string {
	s := "→ " + termtext.SanitizeLine(c.Name)
	if c.Arguments != "" {
		s += " " + termtext.SanitizeLine(c.Arguments)
	}
	if c.Result != "" {
		s += " ⇒ " + termtext.SanitizeLine(c.Result)
	}
	if c.Error != "" && c.Error != c.Result {
		s += " ✗ " + termtext.SanitizeLine(c.Error)
	}
	if c.Status != "" {
		s += "  [" + termtext.SanitizeLine(c.Status) + "]"
	}
	return s
}

// maxFiles is how many changed files the case screen lists.
const maxFiles = 20

// diff prints the files a workspace diff changes, and (Whole) the diff.
func (p *printer) diff(d *run.Diff, opt Options) {
	if d == nil {
		return
	}
	added, deleted := 0, 0
	for _, f := range d.Files {
		added, deleted = added+f.Added, deleted+f.Deleted
	}
	counts := fmt.Sprintf("%d file(s), +%d −%d", d.FileCount, added, deleted)
	if !d.Complete {
		counts = fmt.Sprintf("%d file(s), +%d −%d in the first %s of %s", d.FileCount, added, deleted, humanBytes(int64(len(d.Content))), humanBytes(d.Size))
	}
	p.field("changes", counts+" · "+termtext.SanitizeLine(d.Source))
	for i, f := range d.Files {
		if i == maxFiles && !opt.Whole {
			break
		}
		p.line(1, fmt.Sprintf("%-8s %s  +%d −%d", f.Status, termtext.SanitizeLine(f.Path), f.Added, f.Deleted))
	}
	if shown := min(len(d.Files), maxFiles); !opt.Whole && d.FileCount > shown {
		p.wrapped(1, fmt.Sprintf("… %d more file(s)", d.FileCount-shown))
	}
	if !opt.Whole {
		return
	}
	for line := range strings.Lines(d.Content) {
		on, off := diffColor(line, opt.Color)
		for _, l := range termtext.Wrap(termtext.Sanitize(strings.TrimSuffix(line, "\n")), max(20, p.width-2)) {
			fmt.Fprintln(p.w, "  "+on+l+off)
		}
	}
	if !d.Complete {
		p.wrapped(1, fmt.Sprintf("… (only the first %s of %s was read)", humanBytes(int64(len(d.Content))), humanBytes(d.Size)))
	}
}

// diffColor is the SGR colour of a unified diff line, when colour is on.
// The escape codes are ours: the line itself was sanitised.
func diffColor(line string, color bool) (on, off string) {
	if !color {
		return "", ""
	}
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "):
		return "\x1b[1m", "\x1b[0m"
	case strings.HasPrefix(line, "@@"):
		return "\x1b[36m", "\x1b[0m"
	case strings.HasPrefix(line, "+"):
		return "\x1b[32m", "\x1b[0m"
	case strings.HasPrefix(line, "-"):
		return "\x1b[31m", "\x1b[0m"
	}
	return "", ""
}

// Section is a part of the evidence a reviewer can open whole (in a pager).
type Section string

const (
	SectionAnswer     Section = "answer"
	SectionInput      Section = "input"
	SectionTranscript Section = "transcript"
	SectionDiff       Section = "diff"
	SectionTest       Section = "test" // what the test asked: criteria, expected output, every assertion
)

// Sections lists the sections ev has, in screen order.
func (ev *Evidence) Sections() []Section {
	var out []Section
	has := func(s Section, ok bool) {
		if ok {
			out = append(out, s)
		}
	}
	has(SectionAnswer, ev.Answer.Present && !ev.Answer.Missing)
	has(SectionInput, ev.Input.Present && !ev.Input.Missing)
	has(SectionTranscript, ev.Trace != nil)
	has(SectionDiff, ev.Diff != nil)
	has(SectionTest, ev.Task != nil)
	return out
}

// RenderSection writes one section whole. ev should be collected with
// CollectOptions.Whole, and its answer and input read whole (ReadWhole).
func (ev *Evidence) RenderSection(w io.Writer, s Section, opt Options) {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	opt.Whole = true
	p := &printer{w: w, width: opt.Width}
	switch s {
	case SectionAnswer:
		p.text("answer", ev.Answer, 0, "")
	case SectionInput:
		p.text("input", ev.Input, 0, "")
	case SectionTranscript:
		p.transcript(ev.Trace, opt)
	case SectionDiff:
		p.diff(ev.Diff, opt)
	case SectionTest:
		p.task(ev.Task, true)
	}
}

// ReadWhole returns t with its whole content: a sidecar is read again in
// full (Content is only its head when Truncated).
func ReadWhole(t run.Text) (run.Text, error) {
	if t.Path == "" || t.Missing || !t.Truncated {
		return t, nil
	}
	f, err := t.Open()
	if err != nil {
		return t, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return t, err
	}
	t.Content, t.Truncated, t.Size = string(data), false, int64(len(data))
	return t, nil
}
