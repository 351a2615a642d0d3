package evidence

import (
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// Evidence is everything a reviewer needs to judge one case: what the test
// asked, every grader with its configuration and checks, the trajectory,
// the workspace diff, the answer and why anything is missing. It is what
// `show --json` prints; Render draws it. Strings are raw run text.
type Evidence struct {
	TestID  string          `json:"test_id"`
	Target  string          `json:"target,omitempty"`
	Variant string          `json:"variant,omitempty"`
	Suite   string          `json:"suite,omitempty"`
	Outcome run.Outcome     `json:"outcome"`
	Score   float64         `json:"score"`
	Why     []string        `json:"why_here,omitempty"`       // why triage put the case up for review
	Pattern string          `json:"sample_pattern,omitempty"` // pass/fail of each sample, e.g. "P F P"
	Error   *Error          `json:"error,omitempty"`          // errored cases
	Task    *run.Task       `json:"task,omitempty"`
	Graders []Grader        `json:"graders"`
	Checks  []run.Check     `json:"checks,omitempty"` // row-level checks not tied to a grader
	Reason  string          `json:"reasoning,omitempty"`
	Samples []run.Sample    `json:"samples,omitempty"`
	Input   Text            `json:"input"`
	Answer  Text            `json:"answer"`
	Trace   *run.Transcript `json:"transcript,omitempty"`
	Diff    *run.Diff       `json:"diff,omitempty"`
	// Problems are sidecars named by the row that could not be read
	// (transcript, diff); the answer's and input's are on their Text.
	Problems      []run.FileProblem `json:"problems,omitempty"`
	WorkspacePath string            `json:"workspace_path,omitempty"`
	Warnings      []run.Warning     `json:"warnings,omitempty"`
}

// Error is an errored case's failure, structured.
type Error struct {
	Stage   string `json:"stage,omitempty"` // failure_stage: agent, evaluator, ...
	Code    string `json:"code,omitempty"`  // failure_reason_code
	Message string `json:"message"`
}

// Grader is one grader's result with the assertion that configured it.
type Grader struct {
	run.GraderSummary
	Reason   string         `json:"reason,omitempty"`
	Checks   []run.Check    `json:"checks,omitempty"`
	Details  string         `json:"details,omitempty"` // the grader's structured details, compact JSON
	Config   *run.Assertion `json:"config,omitempty"`  // from the task bundle, nil when unknown
	Gate     string         `json:"gate,omitempty"`    // set when a required gate failed and so decided the outcome
	Children []Grader       `json:"children,omitempty"`
}

// Text is a piece of run text with why it is absent, when it is.
type Text struct {
	run.Text
	Problem *run.FileProblem `json:"problem,omitempty"`
	From    string           `json:"from,omitempty"` // "transcript" when the input is its first user turn
}

// CollectOptions tune what Collect reads.
type CollectOptions struct {
	// Whole reads the transcript and diff up to their full limits (for a
	// pager); else only what the case screen shows.
	Whole bool
}

// Case-screen limits: the diff's Files always cover the whole diff.
const screenDiffBytes = 64 << 10

// Collect gathers the evidence of d from r: d plus the task bundle, the
// transcript and the diff. Unreadable sidecars are reported in the
// Evidence; the error is for a row that can no longer be re-read.
func Collect(r *run.Run, d *run.Detail, item triage.Item, opt CollectOptions) (*Evidence, error) {
	ev := FromDetail(d, item)
	task, err := r.Task(d)
	if err != nil {
		return nil, err
	}
	ev.Task = task
	ev.Graders = graders(d.Graders, task)
	ev.Input.Problem, ev.Answer.Problem = r.Problem(d, d.Input), r.Problem(d, d.Answer)

	trLimit, diffLimit := int64(run.TranscriptScreenLimit), int64(screenDiffBytes)
	if opt.Whole {
		trLimit, diffLimit = run.TranscriptFullLimit, 0
	}
	var prob *run.FileProblem
	if ev.Trace, prob = r.Transcript(d, trLimit); prob != nil {
		ev.Problems = append(ev.Problems, *prob)
	}
	if !ev.Input.Present && ev.Trace != nil {
		if s := ev.Trace.FirstUser(); s != "" {
			ev.Input = Text{Text: run.Text{Present: true, Content: s, Size: int64(len(s))}, From: "transcript"}
		}
	}
	if ev.Diff, prob = r.Diff(d, task, diffLimit); prob != nil {
		ev.Problems = append(ev.Problems, *prob)
	}
	return ev, nil
}

// FromDetail is the evidence d alone holds (no task bundle, transcript or
// diff, and no reading of files).
func FromDetail(d *run.Detail, item triage.Item) *Evidence {
	c := d.Case
	ev := &Evidence{
		TestID: c.TestID, Target: c.Target, Variant: c.Variant, Suite: c.Suite,
		Outcome: c.Outcome, Score: c.Score, Graders: graders(d.Graders, nil),
		Checks: d.Checks, Reason: d.Reasoning, Samples: d.Samples,
		Input: Text{Text: d.Input}, Answer: Text{Text: d.Answer},
		WorkspacePath: d.WorkspacePath, Warnings: d.Warnings, Pattern: triage.SamplePattern(c.Samples),
	}
	for _, r := range item.Reasons() {
		ev.Why = append(ev.Why, r.Text)
	}
	if c.Error != "" || c.Outcome == run.Errored {
		ev.Error = &Error{Stage: c.FailureStage, Code: d.FailureReason, Message: c.Error}
	}
	if ev.Graders == nil {
		ev.Graders = []Grader{}
	}
	return ev
}

// graders pairs each grader with its assertion (by name, first unused:
// names repeat) and the row's record of it (by position), and marks the
// required gates that failed.
func graders(gs []run.Grader, task *run.Task) []Grader {
	var config []run.Assertion
	var records []run.GraderRecord
	if task != nil {
		config, records = task.Assertions, task.Graders
	}
	return pair(gs, config, records)
}

func pair(gs []run.Grader, config []run.Assertion, records []run.GraderRecord) []Grader {
	if len(gs) == 0 {
		return nil
	}
	used := make([]bool, len(config))
	out := make([]Grader, len(gs))
	for i, g := range gs {
		e := Grader{GraderSummary: g.GraderSummary, Reason: g.Reason, Checks: g.Checks}
		var childConfig []run.Assertion
		for j, a := range config {
			if !used[j] && a.Name == g.Name {
				used[j], e.Config, childConfig = true, &config[j], a.Children
				break
			}
		}
		var childRecords []run.GraderRecord
		if i < len(records) && records[i].Name == g.Name {
			e.Details, childRecords = records[i].Details, records[i].Children
		}
		e.Gate = gate(e)
		e.Children = pair(g.Children, childConfig, childRecords)
		out[i] = e
	}
	return out
}

// gate explains a failed required assertion: in AgentV it forces the
// case's score to 0 whatever the other graders say. A failed llm-grader
// with required rubric items failed one of them (rubric items are required
// unless they say otherwise).
func gate(g Grader) string {
	if g.Pass == nil || *g.Pass || g.Config == nil {
		return ""
	}
	if g.Config.Required != "" {
		if g.Config.Required == "true" {
			return "required gate failed: the case fails and scores 0 whatever the other graders say"
		}
		return "required gate (minimum score " + g.Config.Required + ") failed: the case fails and scores 0"
	}
	for _, rb := range g.Config.Rubrics {
		if rb.Required {
			return "a required rubric item failed: the grader fails whatever its score"
		}
	}
	return ""
}
