package calibrate

import (
	"fmt"
	"math"
)

// MinYouden is how far TPR_low + TNR_low − 1 (Youden's J from the Wilson
// lower bounds) must exceed 0 before a corrected pass rate is given.
const MinYouden = 0.2

// Corrected is a run's pass rate corrected for a grader's errors
// (Rogan–Gladen), or NA saying why there is none.
type Corrected struct {
	Passes   int     `json:"passes"` // grader passes on the run
	Cases    int     `json:"cases"`  // cases the grader decided on the run
	Observed float64 `json:"observed"`
	// Estimate is θ = (p_obs + TNR − 1)/(TPR + TNR − 1) clipped to [0, 1],
	// with a delta-method interval; nil when NA is set.
	Estimate *Estimate `json:"estimate,omitempty"`
	NA       string    `json:"na,omitempty"`
}

// CorrectPassRate corrects a run's grader pass rate (passes of cases) by
// the grader's calibration. The variance is the delta method's
// [p_obs(1−p_obs)/N + θ²·TPR(1−TPR)/n₊ + (1−θ)²·TNR(1−TNR)/n₋] / J².
func CorrectPassRate(passes, cases int, tpr, tnr Rate) Corrected {
	c := Corrected{Passes: passes, Cases: cases}
	switch {
	case cases <= 0 || passes < 0 || passes > cases:
		c.NA = fmt.Sprintf("n/a: %d passes of %d cases is not a pass rate", passes, cases)
		return c
	case tpr.N == 0:
		c.NA = "n/a: no human-pass labels, so the grader's TPR is unknown"
	case tnr.N == 0:
		c.NA = "n/a: no human-fail labels, so the grader's TNR is unknown"
	}
	c.Observed = float64(passes) / float64(cases)
	if c.NA != "" {
		return c
	}
	if jLow := tpr.Low + tnr.Low - 1; jLow <= MinYouden {
		c.NA = fmt.Sprintf("n/a: the grader is too close to chance (TPR_low + TNR_low − 1 = %.3f ≤ %.1f)", jLow, MinYouden)
		return c
	}
	j := tpr.P + tnr.P - 1
	theta := min(1, max(0, (c.Observed+tnr.P-1)/j))
	v := (c.Observed*(1-c.Observed)/float64(cases) +
		theta*theta*tpr.P*(1-tpr.P)/float64(tpr.N) +
		(1-theta)*(1-theta)*tnr.P*(1-tnr.P)/float64(tnr.N)) / (j * j)
	se := math.Sqrt(v)
	c.Estimate = &Estimate{Value: theta, SE: se, Low: max(0, theta-Z*se), High: min(1, theta+Z*se)}
	return c
}
