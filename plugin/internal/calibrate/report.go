package calibrate

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Version is the version of the certificate format Encode writes.
const Version = 1

// DefaultMargin is the ± margin LabelsNeeded aims for when Options.Margin
// is 0.
const DefaultMargin = 0.05

// Report is the calibration of every grader configuration seen in a set of
// reviewed runs. Encoded, it is the judge certificate
// (schema/calibration.schema.json).
type Report struct {
	Version     int     `json:"version"`
	GeneratedAt string  `json:"generated_at,omitempty"` // RFC 3339
	Z           float64 `json:"z"`
	// NeedsImprovementAs is the label needs_improvement counted as: "pass"
	// or "fail".
	NeedsImprovementAs string   `json:"needs_improvement_as"`
	Margin             float64  `json:"margin"`
	BandRule           string   `json:"band_rule"`
	Runs               []string `json:"runs"` // the runs the observations came from, in input order
	Graders            []Grader `json:"graders"`
}

// Grader is the calibration of one grader configuration: labels of other
// configurations of the same key are never pooled into it.
type Grader struct {
	Key    string `json:"key"`    // "type:name"
	Config string `json:"config"` // Fingerprint
	// Current is false for a configuration the grader no longer has: its
	// calibration is history, not evidence.
	Current bool `json:"current"`
	// Unrecorded says a run's task bundle did not record the grader's
	// definition: Config fingerprints its type and name only
	// (UnrecordedDef), so a change of its configuration goes unseen.
	Unrecorded bool      `json:"unrecorded,omitempty"`
	Labels     int       `json:"labels"`
	Excluded   Excluded  `json:"excluded"`
	Confusion  Confusion `json:"confusion"`
	TPR        Rate      `json:"tpr"`
	TNR        Rate      `json:"tnr"`
	Kappa      *Estimate `json:"kappa"`              // nil when undefined
	KappaNA    string    `json:"kappa_na,omitempty"` // why κ is undefined
	Band       Band      `json:"band"`
	BandWhy    string    `json:"band_why"`
	// FalsePasses (grader pass, human fail) are the dangerous cell for a
	// gate; FalseFails (grader fail, human pass).
	FalsePasses []CaseRef `json:"false_passes"`
	FalseFails  []CaseRef `json:"false_fails"`
	// Needed is how many more labels of each class pin TPR and TNR within
	// ±Margin.
	Needed Needed `json:"needed"`
}

// Excluded counts a configuration's observations that are not labels.
type Excluded struct {
	Agent     int `json:"agent"`
	Flaky     int `json:"flaky"`
	NoVerdict int `json:"no_verdict"`
	// Replaced counts labels of a (run, case) that a later label of the
	// same grader configuration replaced.
	Replaced int `json:"replaced"`
}

// CaseRef names a case of a run.
type CaseRef struct {
	RunID string `json:"run_id"`
	Case  string `json:"case"`
}

// Needed counts labels of each class: positive = human pass, negative =
// human fail.
type Needed struct {
	Positive int `json:"positive"`
	Negative int `json:"negative"`
}

// Options tune Build.
type Options struct {
	LabelRules
	// Margin is the ± margin Needed aims for; 0 means DefaultMargin.
	Margin float64
	// Current lists the grader configurations in use now. When nil, the
	// configurations seen in the last run (the last new run id in input
	// order) are current.
	Current []Ref
	// Now stamps GeneratedAt when not zero.
	Now time.Time
}

// Ref is a grader configuration: key and fingerprint.
type Ref struct {
	Key    string `json:"key"`
	Config string `json:"config"`
}

// Build computes the report of observations, given oldest run first. Each
// (run, case, grader configuration) gives at most one label: a later label
// replaces an earlier one (an observation that is no label replaces
// nothing). An invalid observation is an error
// naming its index and field.
func Build(obs []Observation, opt Options) (*Report, error) {
	margin := cmp.Or(opt.Margin, DefaultMargin)
	if margin <= 0 || margin >= 1 {
		return nil, fmt.Errorf("margin %g is not between 0 and 1", margin)
	}
	rep := &Report{
		Version: Version, Z: Z, NeedsImprovementAs: "fail", Margin: margin, BandRule: BandRule,
		Runs: []string{}, Graders: []Grader{},
	}
	if opt.NeedsImprovementPasses {
		rep.NeedsImprovementAs = "pass"
	}
	if !opt.Now.IsZero() {
		rep.GeneratedAt = opt.Now.UTC().Format(time.RFC3339)
	}
	type cell struct {
		ref  Ref
		at   CaseRef
		pass bool // human label
		o    Observation
	}
	type slot struct {
		ref Ref
		at  CaseRef
	}
	byRef := map[Ref]*Grader{}
	var order []Ref
	lastRun := map[Ref]string{}
	latest := map[slot]int{} // index in cells
	var cells []cell         // labels only
	for i, o := range obs {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("observation %d (run %q, case %q, grader %q): %w", i, o.RunID, o.Case, o.Grader, err)
		}
		if !slices.Contains(rep.Runs, o.RunID) {
			rep.Runs = append(rep.Runs, o.RunID)
		}
		ref, at := Ref{o.Grader, o.Config}, CaseRef{o.RunID, o.Case}
		lastRun[ref] = o.RunID
		g := byRef[ref]
		if g == nil {
			g = &Grader{Key: ref.Key, Config: ref.Config, FalsePasses: []CaseRef{}, FalseFails: []CaseRef{}}
			byRef[ref] = g
			order = append(order, ref)
		}
		g.Unrecorded = g.Unrecorded || o.Unrecorded
		pass, why := opt.Label(o)
		switch why {
		case ByAgent:
			g.Excluded.Agent++
		case AsFlaky:
			g.Excluded.Flaky++
		case NoVerdict:
			g.Excluded.NoVerdict++
		default:
			if j, seen := latest[slot{ref, at}]; seen {
				g.Excluded.Replaced++
				cells[j] = cell{ref, at, pass, o}
				continue
			}
			latest[slot{ref, at}] = len(cells)
			cells = append(cells, cell{ref, at, pass, o})
		}
	}
	for _, c := range cells {
		g := byRef[c.ref]
		graderPass := c.o.GraderVerdict == GraderPass
		switch {
		case graderPass && c.pass:
			g.Confusion.TP++
		case !graderPass && c.pass:
			g.Confusion.FN++
			g.FalseFails = append(g.FalseFails, c.at)
		case !graderPass:
			g.Confusion.TN++
		default:
			g.Confusion.FP++
			g.FalsePasses = append(g.FalsePasses, c.at)
		}
	}
	current := opt.Current
	if current == nil && len(rep.Runs) > 0 {
		last := rep.Runs[len(rep.Runs)-1]
		for ref, run := range lastRun {
			if run == last {
				current = append(current, ref)
			}
		}
	}
	for _, ref := range order {
		g := byRef[ref]
		g.Current = slices.Contains(current, ref)
		g.finish(margin)
		rep.Graders = append(rep.Graders, *g)
	}
	slices.SortStableFunc(rep.Graders, func(a, b Grader) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if a.Current != b.Current { // current first
			if a.Current {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Config, b.Config)
	})
	return rep, nil
}

// finish derives the rates, κ, band and labels still needed from the
// confusion counts.
func (g *Grader) finish(margin float64) {
	g.Labels = g.Confusion.N()
	g.TPR, g.TNR = g.Confusion.TPR(), g.Confusion.TNR()
	g.Kappa, g.KappaNA = g.Confusion.Kappa()
	g.Band, g.BandWhy = Classify(g.TPR, g.TNR, g.Kappa)
	g.Needed = Needed{Positive: stillNeeded(g.TPR, margin), Negative: stillNeeded(g.TNR, margin)}
}

// stillNeeded is how many more labels pin r within ±margin. The formula
// uses the observed rate; with no labels it uses 0.5 (the worst case), and
// when every label agrees (rate 0 or 1, where the formula would claim 0)
// the Wilson bound nearer 0.5.
func stillNeeded(r Rate, margin float64) int {
	p := r.P
	switch {
	case r.N == 0:
		p = 0.5
	case r.K == r.N:
		p = r.Low
	case r.K == 0:
		p = r.High
	}
	return max(0, LabelsNeeded(p, margin)-r.N)
}
