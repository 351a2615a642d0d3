package evidence

import (
	"bytes"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
)

func TestRenderPrevious(t *testing.T) {
	prev := &Previous{RunID: "run-\x1b[2J1", Outcome: run.Passed, Score: 1, Verdict: "acceptable",
		Changes: LineDiff("same\nold one\nold two\nend\n", "same\nnew \x1b]0;x\x07one\nend\n")}
	var screen, whole, blind bytes.Buffer
	RenderPrevious(&screen, prev, Options{Width: 80, AnswerLines: 2}, "open it whole")
	RenderPrevious(&whole, prev, Options{Width: 80, Whole: true}, "")
	RenderPrevious(&blind, prev, Options{Width: 80, Blind: true, AnswerLines: 5}, "")
	want := "previous  run run-␛[2J1: PASSED score 1 · reviewed acceptable\n" +
		"          answer changed since: −2 +1 line(s)\n" +
		"  - old one\n  - old two\n  … 1 more changed line(s): open it whole\n"
	if screen.String() != want {
		t.Errorf("case screen:\n%s\nwant:\n%s", screen.String(), want)
	}
	if w := whole.String(); !strings.Contains(w, "    same\n") || !strings.Contains(w, "  + new ␛]0;x␇one\n") || strings.Contains(w, "more changed") {
		t.Errorf("whole diff:\n%s", w)
	}
	if b := blind.String(); strings.Contains(b, "PASSED") || strings.Contains(b, "acceptable") || !strings.Contains(b, "+ new") {
		t.Errorf("a blind review shows the answer diff, not the verdicts:\n%s", b)
	}
	var same bytes.Buffer
	RenderPrevious(&same, &Previous{RunID: "r", Outcome: run.Failed, Changes: LineDiff("a\n", "a\n")}, Options{}, "")
	if !strings.Contains(same.String(), "answer unchanged since") {
		t.Errorf("unchanged answer:\n%s", same.String())
	}
}

func TestSections(t *testing.T) {
	ev := &Evidence{Answer: Text{Text: run.Text{Present: true, Content: "l1\nl2\nl3\n"}}, Task: &run.Task{Expected: "42"}}
	if got := ev.Sections(); len(got) != 2 || got[0] != SectionAnswer || got[1] != SectionTest {
		t.Errorf("sections %v, want answer and test", got)
	}
	var b bytes.Buffer
	ev.RenderSection(&b, SectionAnswer, Options{Width: 40})
	ev.RenderSection(&b, SectionTest, Options{Width: 40})
	if got := b.String(); !strings.Contains(got, "  l3\n") || !strings.Contains(got, "expected: 42") {
		t.Errorf("sections rendered:\n%s", got)
	}
}
