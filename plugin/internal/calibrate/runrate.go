package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/history"
	"agentv-review/plugin/internal/run"
)

// RunGraders is the graders of every case of one run with their
// configurations: what the gate and the corrected pass rate need.
type RunGraders struct {
	Run *run.Run
	// Cases is index-aligned with Run.Cases; nil for a case whose graders
	// could not be read (see Warnings).
	Cases    [][]GraderConfig
	Warnings []string
}

// ReadGraders reads the graders of every case of r (CaseGraders: one
// Detail and Task per case).
func ReadGraders(r *run.Run) *RunGraders {
	rg := &RunGraders{Run: r, Cases: make([][]GraderConfig, len(r.Cases))}
	for i, c := range r.Cases {
		gs, err := CaseGraders(r, c)
		if err != nil {
			rg.Warnings = append(rg.Warnings, fmt.Sprintf("case %s: graders not read: %v", r.Ref(c), err))
			continue
		}
		rg.Cases[i] = gs
	}
	return rg
}

// Deciders lists the grader configurations that gave a verdict on some
// case of the run, in order of first appearance: the graders that decide
// its outcomes.
func (rg *RunGraders) Deciders() []Ref {
	var out []Ref
	for _, gs := range rg.Cases {
		for _, g := range gs {
			if g.Verdict != GraderNone && !slices.Contains(out, g.Ref) {
				out = append(out, g.Ref)
			}
		}
	}
	return out
}

// CalibrationGate decides, for each grader that decides the run's cases
// (its current configuration), whether cert calibrates it at least to band
// (Gating or Trend); see Gate.
func CalibrationGate(rg *RunGraders, cert *Report, band Band) ([]GateResult, error) {
	return Gate(cert, rg.Deciders(), band)
}

// RunRate is a run's pass rate three ways: automated (AgentV's outcomes),
// human-adjusted (a case a human judged passes when acceptable; the others
// keep their outcome; see history.RunRate) and corrected for the errors of
// the graders that decide it (Rogan–Gladen).
type RunRate struct {
	RunID           string  `json:"run_id"`
	Cases           int     `json:"cases"`
	Reviewed        int     `json:"reviewed"`
	AutomatedPassed int     `json:"automated_passed"`
	AutomatedRate   float64 `json:"automated_pass_rate"`
	HumanPassed     int     `json:"human_passed"`
	HumanRate       float64 `json:"human_pass_rate"`
	// Corrected is over the cases that ran (execution errors are
	// infrastructure, not quality): the sum over deciding graders of
	// (their cases / cases that ran) × their corrected rate, with the
	// variances added likewise. It needs every case that ran to be decided
	// by exactly one grader; nil with CorrectedNA ("n/a: …") otherwise.
	Corrected   *Estimate    `json:"corrected,omitempty"`
	CorrectedNA string       `json:"corrected_na,omitempty"`
	Graders     []GraderRate `json:"graders"` // per deciding grader
}

// GraderRate is one deciding grader's pass rate on the run, corrected by
// its calibration in the certificate.
type GraderRate struct {
	Ref
	Corrected
}

// CorrectedRate computes rg's run pass rates with its feedback f (nil when
// unreviewed) and the graders' calibrations in cert (nil when there is
// none).
func CorrectedRate(rg *RunGraders, f *feedback.File, cert *Report) RunRate {
	h := history.Build([]history.Run{{Run: rg.Run, Feedback: f}}).Runs[0]
	rr := RunRate{
		RunID: rg.Run.ID, Cases: h.Cases, Reviewed: h.Reviewed,
		AutomatedPassed: h.AutomatedPassed, AutomatedRate: h.AutomatedRate,
		HumanPassed: h.HumanPassed, HumanRate: h.HumanRate, Graders: []GraderRate{},
	}
	calibration := map[Ref]*Grader{}
	if cert != nil {
		for i := range cert.Graders {
			g := &cert.Graders[i]
			calibration[Ref{g.Key, g.Config}] = g
		}
	}
	type tally struct{ passes, cases int }
	counts := map[Ref]*tally{}
	ran, several := 0, 0
	for i, c := range rg.Run.Cases {
		if c.Outcome == run.Errored {
			continue
		}
		ran++
		deciding := 0
		for _, g := range rg.Cases[i] {
			if g.Verdict == GraderNone {
				continue
			}
			deciding++
			t := counts[g.Ref]
			if t == nil {
				t = &tally{}
				counts[g.Ref] = t
			}
			t.cases++
			if g.Verdict == GraderPass {
				t.passes++
			}
		}
		if deciding != 1 {
			several++
		}
	}
	var theta, variance float64
	na := ""
	for _, ref := range rg.Deciders() {
		t := counts[ref]
		if t == nil { // it decided errored cases only
			continue
		}
		gr := GraderRate{Ref: ref}
		if g := calibration[ref]; g != nil {
			gr.Corrected = CorrectPassRate(t.passes, t.cases, g.TPR, g.TNR)
		} else {
			gr.Corrected = Corrected{Passes: t.passes, Cases: t.cases, Observed: float64(t.passes) / float64(t.cases),
				NA: "n/a: no calibration for its current configuration"}
		}
		rr.Graders = append(rr.Graders, gr)
		if gr.Estimate == nil {
			na = cmp.Or(na, fmt.Sprintf("n/a: grader %s: %s", ref.Key, strings.TrimPrefix(gr.NA, "n/a: ")))
			continue
		}
		w := float64(t.cases) / float64(max(ran, 1))
		theta += w * gr.Estimate.Value
		variance += w * w * gr.Estimate.SE * gr.Estimate.SE
	}
	switch {
	case len(rg.Warnings) > 0:
		na = fmt.Sprintf("n/a: the graders of %d case(s) could not be read", len(rg.Warnings))
	case ran == 0:
		na = "n/a: no case ran (all errored)"
	case several > 0:
		na = fmt.Sprintf("n/a: %d case(s) are decided by several graders or none; see the per-grader rates", several)
	}
	if na != "" {
		rr.CorrectedNA = na
		return rr
	}
	se := math.Sqrt(variance)
	rr.Corrected = &Estimate{Value: theta, SE: se, Low: max(0, theta-Z*se), High: min(1, theta+Z*se)}
	return rr
}
