package history

import (
	"reflect"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

func ptr[T any](v T) *T { return &v }

// TestBuild checks the rates, the grader counts and the trail on two
// hand-made runs of three cases.
func TestBuild(t *testing.T) {
	judge := run.GraderSummary{Type: "llm-grader", Name: "judge", Pass: ptr(true)}
	has := run.GraderSummary{Type: "contains", Name: "has", Pass: ptr(false)}
	cases := func(outcomes ...run.Outcome) []*run.Case {
		var cs []*run.Case
		for i, o := range outcomes {
			cs = append(cs, &run.Case{TestID: string(rune('a' + i)), Outcome: o, Graders: []run.GraderSummary{judge, has}})
		}
		return cs
	}
	r1 := Run{
		Run: &run.Run{ID: "r1", Cases: cases(run.Passed, run.Failed, run.Errored)},
		Feedback: &feedback.File{PerCase: []feedback.Case{
			// a passed, but the judge let a wrong answer through.
			{TestID: "a", Verdict: feedback.Incorrect, Signals: []string{"false_positive"}, Fingerprint: "f1",
				EvaluatorOverrides: map[string]string{"llm-grader:judge": "wrong answer passed"}, Reviewer: "ana"},
			// b failed, but the answer is fine: contains is too strict.
			{TestID: "b", Verdict: feedback.Acceptable, Signals: []string{"false_negative", "grader_miscalibration"},
				EvaluatorOverrides: map[string]string{"contains:has": "too strict"}},
			// c errored: a grader signal that names no grader.
			{TestID: "c", Verdict: feedback.Acceptable, Signals: []string{"false_negative"}},
		}},
	}
	r2 := Run{
		Run: &run.Run{ID: "r2", Cases: cases(run.Passed, run.Passed, run.Failed)},
		Feedback: &feedback.File{PerCase: []feedback.Case{
			// carried forward: not counted again for the graders.
			{TestID: "a", Verdict: feedback.Incorrect, Fingerprint: "f2", CarriedFrom: &feedback.CarriedFrom{RunID: "r1"},
				EvaluatorOverrides: map[string]string{"llm-grader:judge": "wrong answer passed"}, Signals: []string{"false_positive"}},
			{TestID: "b", Verdict: feedback.NeedsImprovement, EvaluatorOverrides: map[string]string{"llm-grader:judge": "lenient"}},
		}},
		Notes: []feedback.LegacyNote{{TestID: "c", Note: "looked fine"}},
	}
	rep := Build([]Run{r1, r2})

	wantRates := []RunRate{
		// r1: automated a; human b, c (a judged incorrect).
		{RunID: "r1", Cases: 3, Reviewed: 3, AutomatedPassed: 1, AutomatedRate: 1.0 / 3, HumanPassed: 2, HumanRate: 2.0 / 3, TestDebt: map[string]int{}},
		// r2: automated a, b; human none of a (incorrect), b (needs_improvement); c unreviewed keeps failed.
		{RunID: "r2", Cases: 3, Reviewed: 2, AutomatedPassed: 2, AutomatedRate: 2.0 / 3, HumanPassed: 0, HumanRate: 0, TestDebt: map[string]int{}},
	}
	for i, w := range wantRates {
		if !reflect.DeepEqual(rep.Runs[i], w) {
			t.Errorf("run %d: %+v, want %+v", i, rep.Runs[i], w)
		}
	}
	wantGraders := []GraderCount{
		{Key: "llm-grader:judge", Disagreements: 2, FalsePositive: 1, Other: 1, Judged: 4},
		{Key: "contains:has", Disagreements: 1, FalseNegative: 1, Miscalibration: 1, Judged: 4},
	}
	if len(rep.Graders) != len(wantGraders) {
		t.Fatalf("graders %+v", rep.Graders)
	}
	for i, w := range wantGraders {
		if rep.Graders[i] != w {
			t.Errorf("grader %d: %+v, want %+v", i, rep.Graders[i], w)
		}
	}
	if rep.Unattributed != 1 {
		t.Errorf("unattributed %d, want 1", rep.Unattributed)
	}
	a := rep.Cases[0].Steps
	if len(a) != 2 || a[1].Output != OutputChanged || a[1].CarriedFrom != "r1" || a[0].Reviewer != "ana" {
		t.Errorf("trail of a: %+v", a)
	}
	c := rep.Cases[2].Steps
	if len(c) != 3 || c[1].Verdict != Note || c[1].Notes != "looked fine" || c[1].Outcome != "failed" || c[2].Verdict != Unreviewed {
		t.Errorf("trail of c: %+v", c)
	}
}
