// Package history is the cross-run view of reviews: each case's verdict
// trail across runs, how often reviewers disagreed with each grader, each
// run's automated pass rate beside the human-adjusted one, the export rows
// of every judgment, and the agreement of two reviewers of one run.
//
// Everything here works on runs and feedback already loaded; reading the
// disk is the caller's business, so the logic is testable on hand-made data.
package history

import (
	"cmp"
	"maps"
	"slices"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// Run is one run with its review record.
type Run struct {
	Run      *run.Run
	Feedback *feedback.File        // nil when the run has no review yet
	Notes    []feedback.LegacyNote // notes in older shapes (dashboard, skill-creator)
}

// Report is the history of a folder of runs.
type Report struct {
	Runs    []RunRate     `json:"runs"`    // oldest first
	Graders []GraderCount `json:"graders"` // most disagreed-with first
	// Unattributed counts judgments with a grader signal (false_positive,
	// false_negative, grader_miscalibration) but no evaluator_overrides
	// naming the grader.
	Unattributed int     `json:"unattributed"`
	Cases        []Trail `json:"cases"` // in order of first appearance
}

// RunRate is one run's automated pass rate beside the human-adjusted one.
// Human-adjusted: a case a human reviewed passes when its verdict is
// acceptable (needs_improvement, incorrect and flaky do not); every other
// case keeps its automated outcome. An agent's proposal is not a review:
// it is counted apart (Proposed) and changes no rate until a human
// confirms it.
type RunRate struct {
	RunID    string `json:"run_id"`
	RunDir   string `json:"run_dir"`
	Cases    int    `json:"cases"`
	Reviewed int    `json:"reviewed"` // cases with a human verdict
	Proposed int    `json:"proposed"` // cases with only an agent's proposal
	// TestDebt counts the human verdicts that mark the test itself
	// defective (test_defect), by kind: what to fix in the evals, apart
	// from the agent's quality.
	TestDebt map[string]int `json:"test_debt"`
	// Blind counts the human verdicts of a blind-first review; Anchored
	// those the revealed machine verdict changed (blind_verdict ≠
	// verdict). Anchored/Blind is the anchoring rate.
	Blind           int     `json:"blind"`
	Anchored        int     `json:"anchored"`
	AutomatedPassed int     `json:"automated_passed"`
	AutomatedRate   float64 `json:"automated_pass_rate"`
	HumanPassed     int     `json:"human_passed"`
	HumanRate       float64 `json:"human_pass_rate"`
}

// GraderCount is how often reviewers disagreed with one grader, by the
// signals of the judgments whose evaluator_overrides name it.
type GraderCount struct {
	Key            string `json:"key"` // "type:name"
	Disagreements  int    `json:"disagreements"`
	FalsePositive  int    `json:"false_positive"`
	FalseNegative  int    `json:"false_negative"`
	Miscalibration int    `json:"grader_miscalibration"`
	Other          int    `json:"other"`  // an override note without one of those signals
	Judged         int    `json:"judged"` // judgments of cases this grader graded
}

// Trail is one case's verdicts across runs, oldest first.
type Trail struct {
	Suite   string `json:"suite,omitempty"`
	TestID  string `json:"test_id"`
	Target  string `json:"target,omitempty"`
	Variant string `json:"variant,omitempty"`
	Steps   []Step `json:"trail"`
}

// Step kinds of a trail's Verdict besides the verdict ids.
const (
	Unreviewed = "unreviewed"
	Note       = "note" // a note from a legacy feedback file
)

// Output says whether a judged output differs from the one judged before.
const (
	OutputSame    = "same"
	OutputChanged = "changed"
)

// Step is a case in one run: its automated outcome and the human judgment.
type Step struct {
	RunID        string  `json:"run_id"`
	Outcome      string  `json:"outcome,omitempty"` // "" for a note about a case not in the run
	Score        float64 `json:"score"`
	Verdict      string  `json:"verdict"` // a verdict id, Unreviewed or Note
	Reviewer     string  `json:"reviewer,omitempty"`
	ReviewerKind string  `json:"reviewer_kind,omitempty"`
	// Output compares this judgment's fingerprint with the previous judged
	// step's: OutputSame, OutputChanged, or "" when either has none.
	Output      string `json:"output,omitempty"`
	CarriedFrom string `json:"carried_from,omitempty"`
	Notes       string `json:"notes,omitempty"`
	fingerprint string
}

var graderSignals = map[string]func(*GraderCount) *int{
	"false_positive":        func(g *GraderCount) *int { return &g.FalsePositive },
	"false_negative":        func(g *GraderCount) *int { return &g.FalseNegative },
	"grader_miscalibration": func(g *GraderCount) *int { return &g.Miscalibration },
}

// key is a case's identity across runs.
type key = caseid.ID

func keyOf(c *run.Case) key { return c.ID().AcrossRuns() }

// Build computes the history of runs, given oldest first.
func Build(runs []Run) Report {
	rep := Report{Runs: []RunRate{}, Graders: []GraderCount{}, Cases: []Trail{}}
	trails := map[key]int{} // index in rep.Cases
	trail := func(k key) *Trail {
		i, ok := trails[k]
		if !ok {
			i = len(rep.Cases)
			trails[k] = i
			rep.Cases = append(rep.Cases, Trail{Suite: k.Suite, TestID: k.TestID, Target: k.Target, Variant: k.Variant})
		}
		return &rep.Cases[i]
	}
	graders := map[string]*GraderCount{}
	for _, r := range runs {
		rate := RunRate{RunID: r.Run.ID, RunDir: r.Run.Dir, Cases: len(r.Run.Cases), TestDebt: map[string]int{}}
		for _, c := range r.Run.Cases {
			trail(keyOf(c)) // cases keep their order
		}
		// A run's legacy notes were written before its review: they come first.
		for _, n := range r.Notes {
			t := trail(noteKey(r.Run, n.TestID))
			st := Step{RunID: r.Run.ID, Verdict: Note, Notes: n.Note}
			if c := caseOf(r.Run, n.TestID); c != nil {
				st.Outcome, st.Score = string(c.Outcome), c.Score
			}
			t.Steps = append(t.Steps, st)
		}
		index := feedback.Bind(r.Feedback, r.Run.CaseIDs())
		for i, c := range r.Run.Cases {
			j := index.Entry(i)
			st := Step{RunID: r.Run.ID, Outcome: string(c.Outcome), Score: c.Score, Verdict: Unreviewed}
			passed := c.Outcome == run.Passed
			if passed {
				rate.AutomatedPassed++
			}
			switch {
			case j != nil && j.ReviewerKind == feedback.Agent:
				rate.Proposed++
				st.Verdict, st.Reviewer, st.ReviewerKind, st.Notes = j.Verdict, j.Reviewer, j.ReviewerKind, j.Notes
				st.fingerprint = j.Fingerprint
			case j != nil:
				rate.Reviewed++
				passed = j.Verdict == feedback.Acceptable
				if j.TestDefect != "" {
					rate.TestDebt[j.TestDefect]++
				}
				if j.BlindVerdict != "" {
					rate.Blind++
					if j.BlindVerdict != j.Verdict {
						rate.Anchored++
					}
				}
				st.Verdict, st.Reviewer, st.ReviewerKind, st.Notes = j.Verdict, j.Reviewer, j.ReviewerKind, j.Notes
				st.fingerprint = j.Fingerprint
				if j.CarriedFrom != nil {
					st.CarriedFrom = j.CarriedFrom.RunID
				} else {
					countGraders(graders, &rep.Unattributed, c, j)
				}
			}
			if passed {
				rate.HumanPassed++
			}
			t := trail(keyOf(c))
			st.Output = compare(t.Steps, st.fingerprint)
			t.Steps = append(t.Steps, st)
		}
		rate.AutomatedRate = ratio(rate.AutomatedPassed, rate.Cases)
		rate.HumanRate = ratio(rate.HumanPassed, rate.Cases)
		rep.Runs = append(rep.Runs, rate)
	}
	for _, g := range graders {
		if g.Disagreements > 0 {
			rep.Graders = append(rep.Graders, *g)
		}
	}
	slices.SortFunc(rep.Graders, func(a, b GraderCount) int {
		return cmp.Or(
			cmp.Compare(b.Disagreements, a.Disagreements),
			cmp.Compare(float64(b.Disagreements)/float64(max(b.Judged, 1)), float64(a.Disagreements)/float64(max(a.Judged, 1))),
			cmp.Compare(a.Key, b.Key))
	})
	return rep
}

// countGraders adds a judgment made in this run (not carried forward) to
// the per-grader counts.
func countGraders(graders map[string]*GraderCount, unattributed *int, c *run.Case, j *feedback.Case) {
	get := func(k string) *GraderCount {
		if graders[k] == nil {
			graders[k] = &GraderCount{Key: k}
		}
		return graders[k]
	}
	var seen []string
	for _, g := range c.Graders {
		if k := g.Key(); !slices.Contains(seen, k) {
			seen = append(seen, k)
			get(k).Judged++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(j.EvaluatorOverrides)) {
		g := get(k)
		g.Disagreements++
		counted := false
		for _, sig := range j.Signals {
			if field, ok := graderSignals[sig]; ok {
				*field(g)++
				counted = true
			}
		}
		if !counted {
			g.Other++
		}
	}
	if len(j.EvaluatorOverrides) == 0 && slices.ContainsFunc(j.Signals, func(s string) bool { return graderSignals[s] != nil }) {
		*unattributed++
	}
}

// compare returns whether fp differs from the fingerprint of the last
// earlier step that has one.
func compare(steps []Step, fp string) string {
	if fp == "" {
		return ""
	}
	for i := len(steps) - 1; i >= 0; i-- {
		switch prev := steps[i].fingerprint; {
		case prev == "":
			continue
		case prev == fp:
			return OutputSame
		default:
			return OutputChanged
		}
	}
	return ""
}

// noteKey is the trail a legacy note belongs to: the run's case with that
// test id when there is exactly one, else the test id alone.
func noteKey(r *run.Run, testID string) key {
	if c := caseOf(r, testID); c != nil {
		return keyOf(c)
	}
	return key{TestID: testID}
}

// caseOf returns the case of r a legacy note (test id only) belongs to,
// nil when none or several could be meant.
func caseOf(r *run.Run, testID string) *run.Case {
	if i, _ := caseid.Match(r.CaseIDs(), caseid.ID{TestID: testID}); i >= 0 {
		return r.Cases[i]
	}
	return nil
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
