package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// near reports whether got rounds to want at want's printed precision.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func checkInterval(t *testing.T, what string, low, high, wantLow, wantHigh float64) {
	t.Helper()
	if !near(low, wantLow, 0.0005) || !near(high, wantHigh, 0.0005) {
		t.Errorf("%s = [%.4f, %.4f], want [%.3f, %.3f]", what, low, high, wantLow, wantHigh)
	}
}

// worked is CALIBRATION.md's worked example.
var worked = Confusion{TP: 45, FN: 5, TN: 40, FP: 10}

func TestWorkedExample(t *testing.T) {
	tpr, tnr := worked.TPR(), worked.TNR()
	if tpr.P != 0.9 || tnr.P != 0.8 {
		t.Errorf("TPR, TNR = %v, %v, want 0.9, 0.8", tpr.P, tnr.P)
	}
	checkInterval(t, "TPR 45/50", tpr.Low, tpr.High, 0.786, 0.957)
	checkInterval(t, "TNR 40/50", tnr.Low, tnr.High, 0.670, 0.888)

	k, why := worked.Kappa()
	if k == nil {
		t.Fatalf("κ undefined: %s", why)
	}
	if k.Value != 0.7 {
		t.Errorf("κ = %v, want exactly 0.7", k.Value)
	}
	if !near(k.SE, 0.0714, 0.00005) {
		t.Errorf("κ SE = %.5f, want 0.0714", k.SE)
	}
	checkInterval(t, "κ CI", k.Low, k.High, 0.560, 0.840)

	band, why := Classify(tpr, tnr, k)
	if band != Trend {
		t.Errorf("band = %s, want trend", band)
	}
	// CALIBRATION.md names the TNR lower bound; the TPR lower bound 0.786
	// misses 0.8 as well, and κ = 0.7 meets its threshold exactly.
	if why != "not gating: TPR lower bound 0.786 < 0.8; TNR lower bound 0.670 < 0.8" {
		t.Errorf("band reason %q should name both lower bounds and not κ", why)
	}

	c := CorrectPassRate(400, 500, tpr, tnr)
	if c.Estimate == nil {
		t.Fatalf("corrected pass rate n/a: %s", c.NA)
	}
	if c.Observed != 0.8 || !near(c.Estimate.Value, 0.857, 0.0005) || !near(c.Estimate.SE, 0.0590, 0.00005) {
		t.Errorf("θ = %.4f SE %.5f (p_obs %v), want 0.857 SE 0.0590 (p_obs 0.8)", c.Estimate.Value, c.Estimate.SE, c.Observed)
	}
	checkInterval(t, "θ CI", c.Estimate.Low, c.Estimate.High, 0.741, 0.973)
	if jLow := tpr.Low + tnr.Low - 1; !near(jLow, 0.456, 0.0005) {
		t.Errorf("TPR_low + TNR_low − 1 = %.4f, want 0.456", jLow)
	}

	for _, tc := range []struct {
		p, m float64
		want int
	}{{0.9, 0.10, 35}, {0.9, 0.05, 139}, {0.5, 0.5, 4}} {
		if got := LabelsNeeded(tc.p, tc.m); got != tc.want {
			t.Errorf("LabelsNeeded(%v, %v) = %d, want %d", tc.p, tc.m, got, tc.want)
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	if r := Wilson(0, 0); r.Low != 0 || r.High != 1 || r.P != 0 {
		t.Errorf("Wilson(0, 0) = %+v, want [0, 1]", r)
	}
	for n := 1; n <= 200; n += 7 {
		for _, k := range []int{0, n / 3, n} {
			r := Wilson(k, n)
			if r.Low < 0 || r.High > 1 || r.Low > r.P || r.P > r.High {
				t.Fatalf("Wilson(%d, %d) = %+v: not an interval around the rate", k, n, r)
			}
		}
		if r := Wilson(n, n); r.High != 1 || !near(r.Low, float64(n)/(float64(n)+Z*Z), 1e-12) {
			t.Errorf("Wilson(%d, %d) = %+v, want [n/(n+z²), 1]", n, n, r)
		}
	}
}

func TestKappaEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Confusion
		want float64 // NaN: undefined
	}{
		{"no labels", Confusion{}, math.NaN()},
		{"all agree pass", Confusion{TP: 20}, math.NaN()},
		{"all agree fail", Confusion{TN: 7}, math.NaN()},
		{"grader always passes, humans mixed", Confusion{TP: 6, FP: 4}, 0},
		{"grader always passes, humans fail", Confusion{FP: 5}, 0},
		{"perfect", Confusion{TP: 3, TN: 2}, 1},
		{"always wrong", Confusion{FN: 3, FP: 3}, -1},
	} {
		k, why := tc.c.Kappa()
		if math.IsNaN(tc.want) {
			if k != nil || why == "" {
				t.Errorf("%s: κ = %+v (%q), want undefined with a reason", tc.name, k, why)
			}
			continue
		}
		if k == nil || k.Value != tc.want {
			t.Errorf("%s: κ = %+v (%q), want %v", tc.name, k, why, tc.want)
			continue
		}
		if k.Low < -1 || k.High > 1 {
			t.Errorf("%s: κ CI [%v, %v] leaves [−1, 1]", tc.name, k.Low, k.High)
		}
	}
}

func TestClassify(t *testing.T) {
	kappa := func(v float64) *Estimate { return &Estimate{Value: v} }
	for _, tc := range []struct {
		name     string
		tpr, tnr Rate
		k        *Estimate
		want     Band
		reason   string
	}{
		{"gating", Wilson(98, 100), Wilson(97, 100), kappa(0.9), Gating, "κ 0.900 ≥ 0.7"},
		{"κ just short of gating", Wilson(98, 100), Wilson(97, 100), kappa(0.69), Trend, "κ 0.690 < 0.7"},
		{"κ too low for trend", Wilson(98, 100), Wilson(97, 100), kappa(0.39), Exploration, "κ 0.390 < 0.4"},
		{"TNR too uncertain for trend", Wilson(98, 100), Wilson(4, 5), kappa(0.8), Exploration, "TNR lower bound 0.376 < 0.6"},
		{"κ undefined", Wilson(10, 10), Wilson(0, 0), nil, Exploration, "κ undefined < 0.4"},
		{"no labels", Wilson(0, 0), Wilson(0, 0), nil, Exploration, "TNR lower bound 0.000 < 0.6"},
	} {
		band, why := Classify(tc.tpr, tc.tnr, tc.k)
		if band != tc.want || !strings.Contains(why, tc.reason) {
			t.Errorf("%s: Classify = %s (%q), want %s with %q", tc.name, band, why, tc.want, tc.reason)
		}
	}
}

func TestLabelsForBound(t *testing.T) {
	n, ok := LabelsForBound(0.9, 0.8)
	if !ok || n != 62 {
		t.Fatalf("LabelsForBound(0.9, 0.8) = %d, %v, want 62, true", n, ok)
	}
	// The promise: at that many labels and that rate the bound is reached,
	// and one label fewer it is not.
	if low, _ := wilson(0.9, float64(n)); low < 0.8 {
		t.Errorf("at n = %d the lower bound is %.4f < 0.8", n, low)
	}
	if low, _ := wilson(0.9, float64(n-1)); low >= 0.8 {
		t.Errorf("at n-1 = %d the lower bound is already %.4f", n-1, low)
	}
	if _, ok := LabelsForBound(0.8, 0.8); ok {
		t.Error("a rate equal to the bound can never lift the lower bound to it")
	}
	if n, _ := LabelsForBound(1, 0.8); n != 16 {
		t.Errorf("LabelsForBound(1, 0.8) = %d, want 16", n)
	}
}

func TestCorrectPassRateNA(t *testing.T) {
	good := Wilson(95, 100)
	for _, tc := range []struct {
		name          string
		passes, cases int
		tpr, tnr      Rate
		want          string
	}{
		{"near chance", 50, 100, Wilson(30, 50), Wilson(30, 50), "too close to chance"},
		{"no positives", 50, 100, Wilson(0, 0), good, "no human-pass labels"},
		{"no negatives", 50, 100, good, Wilson(0, 0), "no human-fail labels"},
		{"no cases", 0, 0, good, good, "is not a pass rate"},
		{"more passes than cases", 5, 4, good, good, "is not a pass rate"},
	} {
		c := CorrectPassRate(tc.passes, tc.cases, tc.tpr, tc.tnr)
		if c.Estimate != nil || !strings.HasPrefix(c.NA, "n/a: ") || !strings.Contains(c.NA, tc.want) {
			t.Errorf("%s: got %+v, want n/a containing %q", tc.name, c, tc.want)
		}
	}
	// θ is clipped: a pass rate below the grader's false-pass rate.
	c := CorrectPassRate(1, 100, good, good)
	if c.Estimate == nil || c.Estimate.Value != 0 || c.Estimate.Low != 0 {
		t.Errorf("clipped θ = %+v, want 0", c.Estimate)
	}
}

func TestSpotChecks(t *testing.T) {
	s, err := Spot(3, 40)
	if err != nil {
		t.Fatal(err)
	}
	checkInterval(t, "3 of 40", s.Low(), s.High(), 0.026, 0.199)
	if s.ZeroBound != nil {
		t.Error("3 of 40 has no zero-failure bound")
	}
	for _, tc := range []struct {
		n    int
		want float64
	}{{29, 0.098}, {59, 0.0495}} {
		s, _ := Spot(0, tc.n)
		if s.ZeroBound == nil || !near(*s.ZeroBound, tc.want, 0.0005) || s.Low() != 0 || s.High() != *s.ZeroBound {
			t.Errorf("0 of %d: %+v, want ≤ %v", tc.n, s, tc.want)
		}
	}
	for _, tc := range []struct {
		eps  float64
		want int
	}{{0.10, 29}, {0.05, 59}, {0.02, 149}} {
		if got, err := SampleToClaim(tc.eps); err != nil || got != tc.want {
			t.Errorf("SampleToClaim(%v) = %d, %v, want %d", tc.eps, got, err, tc.want)
		}
		// With that sample and none wrong the bound is ≤ eps; one fewer is not.
		at, _ := Spot(0, tc.want)
		fewer, _ := Spot(0, tc.want-1)
		if *at.ZeroBound > tc.eps || *fewer.ZeroBound <= tc.eps {
			t.Errorf("ε %v: bound at %d = %.4f, at %d = %.4f", tc.eps, tc.want, *at.ZeroBound, tc.want-1, *fewer.ZeroBound)
		}
	}
	for _, bad := range []float64{0, 1, -0.1, math.NaN()} {
		if _, err := SampleToClaim(bad); err == nil {
			t.Errorf("SampleToClaim(%v) gave no error", bad)
		}
	}
	for _, bad := range [][2]int{{-1, 3}, {4, 3}, {0, -1}} {
		if _, err := Spot(bad[0], bad[1]); err == nil {
			t.Errorf("Spot(%d, %d) gave no error", bad[0], bad[1])
		}
	}
}

func TestSpotStoppingRule(t *testing.T) {
	empty, _ := Spot(0, 0)
	if empty.Done(1) {
		t.Error("an empty spot check is never done")
	}
	// None wrong: done once the exact bound is within the width — the
	// same n as SampleToClaim.
	want, _ := SampleToClaim(0.05)
	for n := 1; ; n++ {
		s, _ := Spot(0, n)
		if s.Done(0.05) {
			if n != want {
				t.Errorf("zero-failure spot check done at %d, want %d", n, want)
			}
			break
		}
	}
	s, _ := Spot(3, 40)
	if s.Done(0.15) || !s.Done(0.18) {
		t.Errorf("3 of 40 has width %.3f: Done(0.15) and Done(0.18) disagree", s.High()-s.Low())
	}
}

func TestSamplePassed(t *testing.T) {
	passed := make([]string, 100)
	for i := range passed {
		passed[i] = fmt.Sprintf("case-%03d", i)
	}
	s := SamplePassed(passed, 10, 42)
	if s.Seed != 42 || s.Population != 100 || len(s.Cases) != 10 {
		t.Fatalf("sample = %+v", s)
	}
	seen := map[string]bool{}
	for _, c := range s.Cases {
		if seen[c] || !slices.Contains(passed, c) {
			t.Fatalf("sample %v repeats or invents %q", s.Cases, c)
		}
		seen[c] = true
	}
	// Pinned: a recorded seed must reproduce the draw on any Go version.
	want := []string{"case-000", "case-075", "case-073", "case-003", "case-089", "case-016", "case-006", "case-001", "case-076", "case-084"}
	if !slices.Equal(s.Cases, want) {
		t.Errorf("SamplePassed(seed 42) = %q, want %q", s.Cases, want)
	}
	// Order and duplicates of the input do not matter; a smaller sample
	// is a prefix of a larger one.
	shuffled := slices.Clone(passed)
	slices.Reverse(shuffled)
	shuffled = append(shuffled, passed[:5]...)
	if again := SamplePassed(shuffled, 25, 42); !slices.Equal(again.Cases[:10], s.Cases) || again.Population != 100 {
		t.Errorf("reordered input drew %q, want a prefix %q", again.Cases, s.Cases)
	}
	if other := SamplePassed(passed, 10, 43); slices.Equal(other.Cases, s.Cases) {
		t.Error("seeds 42 and 43 drew the same sample")
	}
	if all := SamplePassed(passed[:3], 10, 1); len(all.Cases) != 3 {
		t.Errorf("sampling 10 of 3 drew %d", len(all.Cases))
	}
	if none := SamplePassed(nil, 5, 1); len(none.Cases) != 0 || none.Population != 0 {
		t.Errorf("sampling nothing = %+v", none)
	}
}

func TestSamplePassedUniform(t *testing.T) {
	// Each of 10 cases should be first in about 1/10 of 20000 draws.
	pool := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	counts := map[string]int{}
	for seed := range uint64(20000) {
		counts[SamplePassed(pool, 1, seed).Cases[0]]++
	}
	for _, c := range pool {
		if counts[c] < 1800 || counts[c] > 2200 { // ±5 standard deviations
			t.Errorf("case %s first %d times of 20000, want about 2000", c, counts[c])
		}
	}
}
