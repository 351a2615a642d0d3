package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
)

// syntheticRun is a run of cases decided by the graders refs[i] (one per
// case, several when a case lists several), passing where pass[i]; an
// errored case has no grader.
func syntheticRun(deciders [][]Ref, pass []bool, errored int) *RunGraders {
	r := &run.Run{ID: "synthetic"}
	rg := &RunGraders{Run: r}
	for i, refs := range deciders {
		c := &run.Case{Index: int32(len(r.Cases)), TestID: fmt.Sprintf("t%d", i), Outcome: run.Failed}
		v := GraderFail
		if pass[i] {
			v, c.Outcome = GraderPass, run.Passed
		}
		var gs []GraderConfig
		for _, ref := range refs {
			gs = append(gs, GraderConfig{Ref: ref, Verdict: v})
		}
		r.Cases = append(r.Cases, c)
		rg.Cases = append(rg.Cases, gs)
	}
	for i := range errored {
		r.Cases = append(r.Cases, &run.Case{Index: int32(len(r.Cases)), TestID: fmt.Sprintf("e%d", i), Outcome: run.Errored})
		rg.Cases = append(rg.Cases, nil)
	}
	return rg
}

func TestCorrectedRateWorkedExample(t *testing.T) {
	a := Ref{"contains:a", "sha256:a"}
	b := Ref{"contains:b", "sha256:b"}
	cert, err := Build(append(cells("l", a.Key, a.Config, worked), cells("l", b.Key, b.Config, worked)...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// N = 500 decided by a, 400 passes, and 3 errored cases that do not count.
	var deciders [][]Ref
	var pass []bool
	for i := range 500 {
		deciders, pass = append(deciders, []Ref{a}), append(pass, i < 400)
	}
	rr := CorrectedRate(syntheticRun(deciders, pass, 3), nil, cert)
	if rr.Corrected == nil {
		t.Fatalf("no corrected rate: %s", rr.CorrectedNA)
	}
	if e := rr.Corrected; math.Abs(e.Value-0.857) > 5e-4 || math.Abs(e.SE-0.0590) > 5e-5 || math.Abs(e.Low-0.741) > 5e-4 || math.Abs(e.High-0.973) > 5e-4 {
		t.Errorf("corrected = %+v, want 0.857 SE 0.0590 [0.741, 0.973]", e)
	}
	if rr.Cases != 503 || rr.AutomatedPassed != 400 || rr.HumanPassed != 400 {
		t.Errorf("rates = %+v", rr)
	}

	// Two strata: 250 cases each; a passes 200, b passes 150.
	deciders, pass = nil, nil
	for i := range 500 {
		g := a
		if i >= 250 {
			g = b
		}
		deciders, pass = append(deciders, []Ref{g}), append(pass, i < 200 || (i >= 250 && i < 400))
	}
	rr = CorrectedRate(syntheticRun(deciders, pass, 0), nil, cert)
	ca := CorrectPassRate(200, 250, cert.Graders[0].TPR, cert.Graders[0].TNR)
	cb := CorrectPassRate(150, 250, cert.Graders[1].TPR, cert.Graders[1].TNR)
	wantV := 0.5*ca.Estimate.Value + 0.5*cb.Estimate.Value
	wantSE := math.Sqrt(0.25*ca.Estimate.SE*ca.Estimate.SE + 0.25*cb.Estimate.SE*cb.Estimate.SE)
	if rr.Corrected == nil || math.Abs(rr.Corrected.Value-wantV) > 1e-12 || math.Abs(rr.Corrected.SE-wantSE) > 1e-12 {
		t.Errorf("stratified = %+v, want %v SE %v", rr.Corrected, wantV, wantSE)
	}
	if len(rr.Graders) != 2 || rr.Graders[1].Passes != 150 || rr.Graders[1].Cases != 250 {
		t.Errorf("per grader = %+v", rr.Graders)
	}
}

func TestCorrectedRateNA(t *testing.T) {
	a := Ref{"contains:a", "sha256:a"}
	b := Ref{"contains:b", "sha256:b"}
	cert, _ := Build(cells("l", a.Key, a.Config, worked), Options{})
	for _, tc := range []struct {
		name     string
		deciders [][]Ref
		errored  int
		want     string
	}{
		{"several graders", [][]Ref{{a, b}, {a}}, 0, "1 case(s) are decided by several graders"},
		{"uncalibrated grader", [][]Ref{{a}, {b}}, 0, "n/a: grader contains:b: no calibration"},
		{"all errored", nil, 2, "no case ran"},
	} {
		rg := syntheticRun(tc.deciders, make([]bool, len(tc.deciders)), tc.errored)
		if rr := CorrectedRate(rg, nil, cert); rr.Corrected != nil || !strings.Contains(rr.CorrectedNA, tc.want) {
			t.Errorf("%s: %+v, want n/a containing %q", tc.name, rr, tc.want)
		}
	}
	// Too close to chance: the worked grader with few labels.
	few, _ := Build(cells("l", a.Key, a.Config, Confusion{TP: 3, FN: 1, TN: 3, FP: 1}), Options{})
	rr := CorrectedRate(syntheticRun([][]Ref{{a}}, []bool{true}, 0), nil, few)
	if !strings.Contains(rr.CorrectedNA, "too close to chance") {
		t.Errorf("few labels: %+v", rr)
	}
}
