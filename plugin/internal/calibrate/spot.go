package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Alpha is 1 − the confidence level of the zero-failure bound.
const Alpha = 0.05

// SpotCheck is the false-pass rate among sampled passed cases: Wrong of
// Sampled were wrong according to the reviewer.
type SpotCheck struct {
	Wrong    int  `json:"wrong"`
	Sampled  int  `json:"sampled"`
	Interval Rate `json:"interval"` // Wilson
	// ZeroBound is the exact one-sided 95 % upper bound 1 − 0.05^(1/n),
	// set when none was wrong.
	ZeroBound *float64 `json:"zero_bound,omitempty"`
}

// Spot returns the spot check of wrong of sampled passed cases.
func Spot(wrong, sampled int) (SpotCheck, error) {
	if sampled < 0 || wrong < 0 || wrong > sampled {
		return SpotCheck{}, fmt.Errorf("%d wrong of %d sampled is not a count", wrong, sampled)
	}
	s := SpotCheck{Wrong: wrong, Sampled: sampled, Interval: Wilson(wrong, sampled)}
	if wrong == 0 && sampled > 0 {
		b := 1 - math.Pow(Alpha, 1/float64(sampled))
		s.ZeroBound = &b
	}
	return s, nil
}

// Low and High are the interval the spot check supports: [0, ZeroBound]
// when none was wrong, else the Wilson interval.
func (s SpotCheck) Low() float64 {
	if s.ZeroBound != nil {
		return 0
	}
	return s.Interval.Low
}

// High is the upper end of the supported interval; see Low.
func (s SpotCheck) High() float64 {
	if s.ZeroBound != nil {
		return *s.ZeroBound
	}
	return s.Interval.High
}

// Done is the stopping rule: the interval is no wider than width.
func (s SpotCheck) Done(width float64) bool {
	return s.Sampled > 0 && s.High()-s.Low() <= width
}

// SampleToClaim is the sample size that, with none wrong, claims a
// false-pass rate ≤ eps at 95 %: ⌈ln 0.05 / ln(1−eps)⌉.
func SampleToClaim(eps float64) (int, error) {
	if !(eps > 0 && eps < 1) {
		return 0, fmt.Errorf("rate %g is not between 0 and 1", eps)
	}
	return ceil(math.Log(Alpha) / math.Log(1-eps)), nil
}

// Sample is a seeded random sample of passed cases.
type Sample struct {
	Seed       uint64   `json:"seed"`
	Population int      `json:"population"` // distinct passed cases
	Cases      []string `json:"cases"`      // in draw order
}

// SamplePassed draws n distinct cases from passed (all when n ≥ their
// count) without replacement. The draw depends only on the set of cases and
// the seed, not on their order in passed, and uses its own bounded integers
// over PCG, so a recorded seed reproduces the sample on any Go version.
// Every prefix of the draw is itself a uniform sample: review in draw
// order and stop when the SpotCheck is Done.
func SamplePassed(passed []string, n int, seed uint64) Sample {
	pool := slices.Clone(passed)
	slices.Sort(pool)
	pool = slices.Compact(pool)
	n = min(max(n, 0), len(pool))
	src := rand.NewPCG(seed, 0x9e3779b97f4a7c15)
	for i := range n { // partial Fisher–Yates
		j := i + int(below(src, uint64(len(pool)-i)))
		pool[i], pool[j] = pool[j], pool[i]
	}
	return Sample{Seed: seed, Population: len(pool), Cases: pool[:n:n]}
}

// below returns a uniform integer in [0, n) by rejecting the 2⁶⁴ mod n
// lowest values.
func below(src *rand.PCG, n uint64) uint64 {
	floor := -n % n
	for {
		if v := src.Uint64(); v >= floor {
			return v % n
		}
	}
}
