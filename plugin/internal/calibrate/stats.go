// Package calibrate measures how well each grader agrees with human verdicts
// and decides whether a grader may gate a run: the statistics and decision
// core of docs/calibration.md.
//
// Human verdicts are labels and each grader's pass/fail on the same cases is
// a prediction. Positive means "a human says pass". Everything is computed
// from values the caller has already read (observations, counts); nothing
// here touches the disk or the clock.
//
// The intervals are 95 % intervals with z = Z: Wilson score intervals for
// rates, a normal interval for Cohen's κ and, for the corrected pass rate,
// the delta method (not a bootstrap).
package calibrate

import (
	"fmt"
	"math"
	"strings"
)

// Z is the two-sided 95 % standard normal quantile every interval uses.
const Z = 1.959964

// Rate is K of N with its Wilson 95 % interval. With N = 0 nothing is known:
// P is 0 and the interval is [0, 1].
type Rate struct {
	K    int     `json:"k"`
	N    int     `json:"n"`
	P    float64 `json:"rate"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Wilson returns k of n with its Wilson score interval
// (p + z²/2n ∓ z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n). It expects 0 ≤ k ≤ n.
func Wilson(k, n int) Rate {
	if n <= 0 {
		return Rate{Low: 0, High: 1}
	}
	p := float64(k) / float64(n)
	low, high := wilson(p, float64(n))
	// The bounds at k = 0 and k = n are exactly 0 and 1, whatever the rounding.
	if k == 0 {
		low = 0
	}
	if k == n {
		high = 1
	}
	return Rate{K: k, N: n, P: p, Low: low, High: high}
}

// wilson is the Wilson interval of rate p at n labels, clipped to [0, 1].
func wilson(p, n float64) (low, high float64) {
	z2 := Z * Z
	centre := p + z2/(2*n)
	half := Z * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	den := 1 + z2/n
	return max(0, (centre-half)/den), min(1, (centre+half)/den)
}

// Estimate is a point estimate with its standard error and 95 % interval.
type Estimate struct {
	Value float64 `json:"value"`
	SE    float64 `json:"se"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Confusion counts a grader's verdicts against human labels.
// Positive = human pass; FP is a false pass, FN a false fail.
type Confusion struct {
	TP int `json:"tp"` // grader pass, human pass
	FN int `json:"fn"` // grader fail, human pass
	TN int `json:"tn"` // grader fail, human fail
	FP int `json:"fp"` // grader pass, human fail
}

// N is the number of labels.
func (c Confusion) N() int { return c.TP + c.FN + c.TN + c.FP }

// TPR is TP of the human passes.
func (c Confusion) TPR() Rate { return Wilson(c.TP, c.TP+c.FN) }

// TNR is TN of the human fails.
func (c Confusion) TNR() Rate { return Wilson(c.TN, c.TN+c.FP) }

// Kappa returns Cohen's κ = (pₒ − pₑ)/(1 − pₑ) with SE
// √(pₒ(1−pₒ)/(n(1−pₑ)²)) and a normal 95 % interval clipped to [−1, 1], or
// nil and the reason it is undefined (no labels, or pₑ = 1: grader and
// humans each gave one and the same verdict throughout). κ is computed from
// integer counts, so a κ of exactly 0.7 compares equal to 0.7.
func (c Confusion) Kappa() (*Estimate, string) {
	n := int64(c.N())
	if n == 0 {
		return nil, "no labels"
	}
	tp, fn, tn, fp := int64(c.TP), int64(c.FN), int64(c.TN), int64(c.FP)
	// n²·pₑ: chance agreement on pass plus on fail.
	chance := (tp+fp)*(tp+fn) + (tn+fn)*(tn+fp)
	den := n*n - chance
	if den == 0 {
		return nil, "chance agreement pₑ is 1 (grader and humans gave one and the same verdict on every case)"
	}
	k := float64(n*(tp+tn)-chance) / float64(den)
	po := float64(tp+tn) / float64(n)
	pe := float64(chance) / float64(n*n)
	se := math.Sqrt(po * (1 - po) / (float64(n) * (1 - pe) * (1 - pe)))
	return &Estimate{Value: k, SE: se, Low: max(-1, k-Z*se), High: min(1, k+Z*se)}, ""
}

// Band says what a grader's calibration is good for.
type Band string

// The fitness bands, from best to worst.
const (
	Gating      Band = "gating"      // may decide a run
	Trend       Band = "trend"       // watch it, don't gate on it
	Exploration Band = "exploration" // don't act on it
)

// The thresholds of the band rule.
const (
	GatingKappa = 0.7 // κ at least
	GatingRate  = 0.8 // TPR and TNR lower bounds at least
	TrendKappa  = 0.4 // κ at least
	TrendTNR    = 0.6 // TNR lower bound at least
)

// BandRule states the band rule; reports print it beside the bands.
const BandRule = "gating if κ ≥ 0.7 and the 95 % lower bounds of TPR and TNR are both ≥ 0.8; " +
	"else trend (watch it, don't gate on it) if κ ≥ 0.4 and the TNR lower bound ≥ 0.6; " +
	"else exploration (don't act on it)"

// rank orders bands: a higher rank satisfies every lower requirement.
func (b Band) rank() int {
	switch b {
	case Gating:
		return 2
	case Trend:
		return 1
	}
	return 0
}

// Classify applies BandRule and says why the grader is in its band.
// An undefined κ (nil) fails every κ condition.
func Classify(tpr, tnr Rate, kappa *Estimate) (Band, string) {
	kv, ks := math.Inf(-1), "undefined"
	if kappa != nil {
		kv, ks = kappa.Value, fmt.Sprintf("%.3f", kappa.Value)
	}
	var gaps []string
	if kv < GatingKappa {
		gaps = append(gaps, fmt.Sprintf("κ %s < %.1f", ks, GatingKappa))
	}
	if tpr.Low < GatingRate {
		gaps = append(gaps, fmt.Sprintf("TPR lower bound %.3f < %.1f", tpr.Low, GatingRate))
	}
	if tnr.Low < GatingRate {
		gaps = append(gaps, fmt.Sprintf("TNR lower bound %.3f < %.1f", tnr.Low, GatingRate))
	}
	if len(gaps) == 0 {
		return Gating, fmt.Sprintf("κ %s ≥ %.1f and TPR, TNR lower bounds %.3f, %.3f ≥ %.1f", ks, GatingKappa, tpr.Low, tnr.Low, GatingRate)
	}
	notGating := "not gating: " + strings.Join(gaps, "; ")
	if kv >= TrendKappa && tnr.Low >= TrendTNR {
		return Trend, notGating
	}
	gaps = gaps[:0]
	if kv < TrendKappa {
		gaps = append(gaps, fmt.Sprintf("κ %s < %.1f", ks, TrendKappa))
	}
	if tnr.Low < TrendTNR {
		gaps = append(gaps, fmt.Sprintf("TNR lower bound %.3f < %.1f", tnr.Low, TrendTNR))
	}
	return Exploration, notGating + "; not trend: " + strings.Join(gaps, "; ")
}

// LabelsNeeded is how many labels pin a rate near p within ±margin at 95 %:
// ⌈z²·p(1−p)/margin²⌉.
func LabelsNeeded(p, margin float64) int {
	return ceil(Z * Z * p * (1 - p) / (margin * margin))
}

// LabelsForBound is how many labels, at an observed rate p that holds, lift
// the Wilson lower bound to at least bound: the smallest n with
// (p − bound)² ≥ z²·bound(1−bound)/n. ok is false when p ≤ bound: more
// labels alone can never get there.
func LabelsForBound(p, bound float64) (n int, ok bool) {
	if p <= bound {
		return 0, false
	}
	return ceil(Z * Z * bound * (1 - bound) / ((p - bound) * (p - bound))), true
}

// ceil rounds up, ignoring floating-point noise just above an integer.
func ceil(x float64) int { return int(math.Ceil(x - 1e-9)) }
