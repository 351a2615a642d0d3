package evidence

import (
	"bytes"
	"strings"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

func TestRender(t *testing.T) {
	pass, fail := true, false
	score := 0.3
	c := &run.Case{TestID: "t\x1b[31m1", Target: "gpt", Outcome: run.Errored, Error: "boom\nline2", FailureStage: "agent",
		Samples: []run.SampleSummary{{Pass: &pass}, {Pass: &fail}}}
	d := &run.Detail{
		Case: c,
		Graders: []run.Grader{{
			GraderSummary: run.GraderSummary{Type: "llm-grader", Name: "judge", Score: &score, Pass: &fail},
			Reason:        "too short",
			Checks:        []run.Check{{Text: "mentions Paris", Passed: false, Evidence: "says Lyon"}, {Text: "polite", Passed: true}},
		}},
		Input:    run.Text{Present: true, Missing: true, Path: "/r/input.md"},
		Answer:   run.Text{Present: true, Content: strings.Repeat("word ", 400), Size: 2000},
		Warnings: []run.Warning{{Msg: "folder overwritten by target v2"}},
	}
	var b bytes.Buffer
	cut := FromDetail(d, triage.Rank([]*run.Case{c})[0]).Render(&b,
		Options{Width: 60, AnswerLines: 3, Heading: "case 1 of 2", PagerHint: "press p"})
	out := b.String()
	if !cut {
		t.Error("a 2,000-byte answer in 3 lines must be reported cut")
	}
	for _, want := range []string{
		"case 1 of 2 · t␛[31m1 @ gpt", "ERRORED", "samples P F", "why here  execution error",
		"error     (agent) boom⏎line2", "✗ llm-grader:judge  0.3", "reason: too short",
		"✗ mentions Paris — says Lyon", "✓ polite", // a failing grader shows what it did accept
		"input     missing: /r/input.md is not on disk", "more line(s): press p", "note      folder overwritten by target v2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := termtext.Width(line); w > 60 {
			t.Errorf("line %d is %d cells wide, over 60: %q", i+1, w, line)
		}
	}
	if strings.ContainsRune(out, '\x1b') {
		t.Error("an escape byte reached the screen")
	}
}

func TestRenderJudgment(t *testing.T) {
	var b bytes.Buffer
	RenderJudgment(&b, &feedback.Case{Verdict: "flaky", Reviewer: "ana", Signals: []string{"flaky_results"},
		EvaluatorOverrides: map[string]string{"contains:x": "lucky substring"}, CarriedFrom: &feedback.CarriedFrom{RunID: "r1"}}, 80)
	for _, want := range []string{"reviewed by ana", "verdict   flaky", "signals   flaky_results", "grader    contains:x: lucky substring", "carried   from run r1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("judgment lacks %q:\n%s", want, b.String())
		}
	}
}
