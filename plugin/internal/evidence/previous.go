package evidence

import (
	"fmt"
	"io"
	"strings"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// Previous is the same case in the previous run, beside this one.
type Previous struct {
	RunID   string
	Outcome run.Outcome
	Score   float64
	Verdict string   // the human verdict recorded there, "" when none
	Changes []Change // its answer against this one (LineDiff)
}

// RenderPrevious writes the previous run's outcome and verdict of the case
// and how its answer changed since. On the case screen (not opt.Whole) it
// lists the first opt.AnswerLines changed lines, with moreHint when there
// are more; opt.Whole writes the whole line diff, unchanged lines too. A
// blind review (opt.Blind) hides the outcome and the verdict.
func RenderPrevious(w io.Writer, prev *Previous, opt Options, moreHint string) {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	p := &printer{w: w, width: opt.Width}
	line := "run " + termtext.SanitizeLine(prev.RunID)
	if !opt.Blind {
		line += fmt.Sprintf(": %s score %s", strings.ToUpper(string(prev.Outcome)), triage.FormatScore(prev.Score))
		if prev.Verdict != "" {
			line += " · reviewed " + termtext.SanitizeLine(prev.Verdict)
		}
	}
	p.field("previous", line)
	del, add := Counts(prev.Changes)
	if del+add == 0 {
		p.field("", "answer unchanged since")
		return
	}
	p.field("", fmt.Sprintf("answer changed since: −%d +%d line(s)", del, add))
	shown := 0
	for _, c := range prev.Changes {
		if c.Op == Keep && !opt.Whole {
			continue
		}
		if !opt.Whole && opt.AnswerLines > 0 && shown == opt.AnswerLines {
			more := del + add - shown
			note := fmt.Sprintf("  … %d more changed line(s)", more)
			if moreHint != "" {
				note += ": " + moreHint
			}
			fmt.Fprintln(p.w, note)
			return
		}
		p.line(1, string(c.Op)+" "+termtext.SanitizeLine(c.Line))
		shown++
	}
}
