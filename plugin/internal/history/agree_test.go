package history

import (
	"math"
	"testing"

	"agentv-review/plugin/internal/feedback"
)

// file builds a feedback file judging cases c1, c2, ... with verdicts.
func file(verdicts ...string) *feedback.File {
	f := &feedback.File{RunID: "r", Reviewer: "x"}
	for i, v := range verdicts {
		f.PerCase = append(f.PerCase, feedback.Case{TestID: "c" + string(rune('0'+i)), Verdict: v})
	}
	return f
}

const (
	acc = feedback.Acceptable
	ni  = feedback.NeedsImprovement
	inc = feedback.Incorrect
	fl  = feedback.Flaky
)

func TestAgreeKappa(t *testing.T) {
	tests := []struct {
		name      string
		a, b      *feedback.File
		kappa     float64 // NaN: no kappa (nothing judged by both)
		agreed    int
		conflicts int
	}{
		// Ten cases. A's verdicts by B's:
		//   A acceptable (5):        B acceptable 4, needs_improvement 1
		//   A needs_improvement (2): B needs_improvement 1, incorrect 1
		//   A incorrect (2):         B incorrect 2
		//   A flaky (1):             B acceptable 1
		// observed po = (4+1+2+0)/10 = 0.7
		// A's shares 5,2,2,1 /10; B's shares 5,2,3,0 /10
		// chance pe = (5·5 + 2·2 + 2·3 + 1·0)/100 = 35/100 = 0.35
		// kappa = (0.7 − 0.35)/(1 − 0.35) = 0.35/0.65 = 7/13 ≈ 0.5385
		{"hand-computed",
			file(acc, acc, acc, acc, acc, ni, ni, inc, inc, fl),
			file(acc, acc, acc, acc, ni, ni, inc, inc, inc, acc),
			7.0 / 13, 7, 3},
		// Both always acceptable: pe = 1, po = 1, 0/0 defined as 1.
		{"one category, full agreement", file(acc, acc, acc), file(acc, acc, acc), 1, 3, 0},
		// po = 0, pe = (1·1 + 1·1)/4 = 0.5: kappa = −0.5/0.5 = −1.
		{"systematic disagreement", file(acc, inc), file(inc, acc), -1, 0, 2},
		{"nothing in common", file(acc), &feedback.File{}, math.NaN(), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ag := Agree(tt.a, tt.b)
			switch {
			case math.IsNaN(tt.kappa):
				if ag.Kappa != nil {
					t.Errorf("kappa = %v, want none", *ag.Kappa)
				}
			case ag.Kappa == nil:
				t.Errorf("kappa = none, want %v", tt.kappa)
			case math.Abs(*ag.Kappa-tt.kappa) > 1e-12:
				t.Errorf("kappa = %v, want %v", *ag.Kappa, tt.kappa)
			}
			if ag.Agreed != tt.agreed || len(ag.Conflicts) != tt.conflicts {
				t.Errorf("agreed %d conflicts %d, want %d and %d", ag.Agreed, len(ag.Conflicts), tt.agreed, tt.conflicts)
			}
		})
	}
}

func TestAgreeMatchesByTargetAndVariant(t *testing.T) {
	a := &feedback.File{PerCase: []feedback.Case{
		{TestID: "t", Target: "v1", Verdict: acc},
		{TestID: "t", Target: "v2", Verdict: inc},
		{TestID: "u", Verdict: acc},
	}}
	b := &feedback.File{PerCase: []feedback.Case{
		{TestID: "t", Target: "v2", Verdict: ni},
		{TestID: "t", Target: "v1", Verdict: acc},
		{TestID: "w", Verdict: acc},
	}}
	ag := Agree(a, b)
	if ag.Both != 2 || ag.Agreed != 1 {
		t.Fatalf("both %d agreed %d, want 2 and 1", ag.Both, ag.Agreed)
	}
	want := Conflict{CaseKey: CaseKey{TestID: "t", Target: "v2"}, A: inc, B: ni}
	if len(ag.Conflicts) != 1 || ag.Conflicts[0] != want {
		t.Errorf("conflicts %+v, want [%+v]", ag.Conflicts, want)
	}
	if len(ag.OnlyA) != 1 || ag.OnlyA[0].TestID != "u" || len(ag.OnlyB) != 1 || ag.OnlyB[0].TestID != "w" {
		t.Errorf("only A %+v, only B %+v", ag.OnlyA, ag.OnlyB)
	}
	if ag.Matrix[2][1] != 1 || ag.Matrix[0][0] != 1 {
		t.Errorf("matrix %v", ag.Matrix)
	}
}
