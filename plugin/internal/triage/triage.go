// Package triage puts a run's cases in review order, most suspicious first,
// and says why each case sits where it does.
//
// Tiers, in order: errored, failed, suspicious passes (graders disagreeing,
// score near the threshold, flipping samples, a pass whose score is below the
// threshold, a skipped grader, and — given earlier runs (WithHistory) — a
// pass that flipped across runs), then clean passes. Within a tier, cases
// with more (and stronger) reasons come first; ties keep manifest order.
package triage

import (
	"cmp"
	"fmt"
	"math/bits"
	"path"
	"slices"
	"strings"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/run"
)

// Tier is a case's place in the review order.
type Tier uint8

const (
	TierErrored Tier = iota
	TierFailed
	TierSuspicious
	TierClean
)

func (t Tier) String() string {
	return [...]string{"errored", "failed", "suspicious", "clean"}[t]
}

// NearMargin is how close to the pass threshold a score must be to count as
// borderline.
const NearMargin = 0.1

// Reason says why a case is where it is. Code is stable (scripts may match
// on it); Text is for people.
type Reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// The reasons a case can have, in the order Item.Reasons lists them.
const (
	reasonErrored = iota
	reasonFailed
	reasonGradersDisagree
	reasonPassedDespiteGraders
	reasonFailedDespiteGraders
	reasonGraderSkipped
	reasonPassBelowThreshold
	reasonFailAboveThreshold
	reasonNearThreshold
	reasonFlippingSamples
	reasonRegressed
	reasonErroredBefore
	reasonFlippedAcrossRuns
	reasonCount
)

var reasonCodes = [reasonCount]string{
	"errored", "failed", "graders_disagree", "passed_despite_graders", "failed_despite_graders",
	"grader_skipped", "pass_below_threshold", "fail_above_threshold", "near_threshold", "flipping_samples",
	"regressed", "errored_before", "flipped_across_runs",
}

// Item is one ranked case. It holds which reasons apply, not their texts:
// Reasons writes them when they are shown.
type Item struct {
	Case *run.Case
	Ranked
}

// Ranked is where a case ranks and why, without the case: 8 bytes, so
// ranking a million cases (RankAll) costs 8 MB.
type Ranked struct {
	Tier    Tier
	reasons uint16 // bit i set: reason i applies
	Pos     int32  // the case's position in its run (Case.Index)
}

// Cases are the cases of a run by position, as RankAll reads them (a
// run.Run): CaseAt sets *c to the case at pos, so that a run read under
// run.Options.Compact makes no Case per case.
type Cases interface {
	Len() int
	CaseAt(pos int, c *run.Case)
}

// Suspicious reports whether the item belongs in the default review scope.
func (r Ranked) Suspicious() bool { return r.Tier != TierClean }

// Rank returns every case in review order.
func Rank(cases []*run.Case) []Item {
	items := make([]Item, len(cases))
	for i, c := range cases {
		items[i] = Classify(c)
	}
	sortItems(items)
	return items
}

// RankAll returns every case of cs in review order, as Rank does, holding
// none of them: Item{Case: c, Ranked: r} is the item of r and its case c.
func RankAll(cs Cases) []Ranked {
	rs := make([]Ranked, cs.Len())
	var c run.Case
	for i := range rs {
		cs.CaseAt(i, &c)
		rs[i] = Classify(&c).Ranked
	}
	slices.SortStableFunc(rs, order)
	return rs
}

func sortItems(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int { return order(a.Ranked, b.Ranked) })
}

// order is the review order: by tier, then more reasons first.
func order(a, b Ranked) int {
	if a.Tier != b.Tier {
		return cmp.Compare(a.Tier, b.Tier)
	}
	return cmp.Compare(bits.OnesCount16(b.reasons), bits.OnesCount16(a.reasons))
}

// WithHistory adds the cross-run reasons to ranked items and ranks them
// again: earlier gives a case's outcomes in earlier runs, oldest first (nil
// or empty when no earlier run has it). A case regressed when it passed in
// the previous run and does not now; errored_before when an earlier run
// errored on it (and this one did not); flipped_across_runs when its
// pass/fail outcome changed at least twice over the runs (P F P). A pass
// with any of them is suspicious. items is not changed.
func WithHistory(items []Item, earlier func(c *run.Case) []run.Outcome) []Item {
	out := slices.Clone(items)
	for i := range out {
		out[i].history(out[i].Case, earlier)
	}
	sortItems(out)
	return out
}

// WithHistoryIn is WithHistory for the ranked cases of cs (RankAll's).
func WithHistoryIn(cs Cases, rs []Ranked, earlier func(c *run.Case) []run.Outcome) []Ranked {
	out := slices.Clone(rs)
	var c run.Case
	for i := range out {
		cs.CaseAt(int(out[i].Pos), &c)
		out[i].history(&c, earlier)
	}
	slices.SortStableFunc(out, order)
	return out
}

// history adds the cross-run reasons of c, ranked r, to r.
func (r *Ranked) history(c *run.Case, earlier func(c *run.Case) []run.Outcome) {
	past := earlier(c)
	if len(past) == 0 {
		return
	}
	r.add(reasonRegressed, past[len(past)-1] == run.Passed && (c.Outcome == run.Failed || c.Outcome == run.Errored))
	r.add(reasonErroredBefore, c.Outcome != run.Errored && slices.Contains(past, run.Errored))
	r.add(reasonFlippedAcrossRuns, changes(append(slices.Clip(past), c.Outcome)) >= 2)
	r.settle(c)
}

// changes counts the pass↔fail changes along outcomes, errors and unknown
// outcomes left out.
func changes(outcomes []run.Outcome) int {
	n, last := 0, run.Outcome("")
	for _, o := range outcomes {
		if o != run.Passed && o != run.Failed {
			continue
		}
		if last != "" && o != last {
			n++
		}
		last = o
	}
	return n
}

func (r *Ranked) add(reason int, applies bool) {
	if applies {
		r.reasons |= 1 << reason
	}
}

// settle makes a pass with any reason a suspicious pass.
func (r *Ranked) settle(c *run.Case) {
	if c.Outcome == run.Passed && r.reasons != 0 {
		r.Tier = TierSuspicious
	}
}

// Classify places one case (its tier and reasons) without ranking the run.
func Classify(c *run.Case) Item {
	it := Item{Case: c, Ranked: Ranked{Pos: c.Index}}
	add := it.add
	switch c.Outcome {
	case run.Errored:
		it.Tier = TierErrored
	case run.Failed:
		it.Tier = TierFailed
	default:
		it.Tier = TierClean
	}
	passed, failed := c.Outcome == run.Passed, c.Outcome == run.Failed
	passing, failing, skipped := graderVotes(c.Graders)
	add(reasonErrored, c.Outcome == run.Errored)
	add(reasonFailed, failed)
	add(reasonGradersDisagree, passing > 0 && failing > 0)
	add(reasonPassedDespiteGraders, passed && failing > 0 && passing == 0)
	add(reasonFailedDespiteGraders, failed && passing > 0 && failing == 0)
	add(reasonGraderSkipped, skipped > 0)
	add(reasonPassBelowThreshold, passed && c.Score < run.PassThreshold)
	add(reasonFailAboveThreshold, failed && c.Score >= run.PassThreshold)
	d := c.Score - run.PassThreshold
	add(reasonNearThreshold, d > -NearMargin && d < NearMargin && c.Outcome != run.Errored)
	add(reasonFlippingSamples, flips(c.Samples))
	it.settle(c)
	return it
}

// Reasons says why the item sits where it does, strongest first; nil when
// it is a clean pass.
func (it Item) Reasons() []Reason {
	if it.reasons == 0 {
		return nil
	}
	c := it.Case
	passing, failing, skipped := graderVotes(c.Graders)
	out := make([]Reason, 0, bits.OnesCount16(it.reasons))
	for r := range reasonCount {
		if it.reasons&(1<<r) == 0 {
			continue
		}
		var text string
		switch r {
		case reasonErrored:
			text = "execution error"
			if c.FailureStage != "" {
				text += " at stage " + c.FailureStage
			}
		case reasonFailed:
			text = fmt.Sprintf("failed with score %s", FormatScore(c.Score))
		case reasonGradersDisagree:
			text = fmt.Sprintf("graders disagree: %d pass, %d fail", passing, failing)
		case reasonPassedDespiteGraders:
			text = fmt.Sprintf("passed although %d grader(s) failed", failing)
		case reasonFailedDespiteGraders:
			text = fmt.Sprintf("failed although %d grader(s) passed", passing)
		case reasonGraderSkipped:
			text = fmt.Sprintf("%d grader(s) gave no verdict", skipped)
		case reasonPassBelowThreshold:
			text = fmt.Sprintf("passed with score %s, below %s", FormatScore(c.Score), FormatScore(run.PassThreshold))
		case reasonFailAboveThreshold:
			text = fmt.Sprintf("failed with score %s, at or above %s", FormatScore(c.Score), FormatScore(run.PassThreshold))
		case reasonNearThreshold:
			text = fmt.Sprintf("score %s is within %s of the threshold", FormatScore(c.Score), FormatScore(NearMargin))
		case reasonFlippingSamples:
			text = "samples flip: " + SamplePattern(c.Samples)
		case reasonRegressed:
			text = fmt.Sprintf("regressed: passed in the previous run, %s now", c.Outcome)
		case reasonErroredBefore:
			text = "errored in an earlier run"
		case reasonFlippedAcrossRuns:
			text = "outcome flips across runs"
		}
		out = append(out, Reason{Code: reasonCodes[r], Text: text})
	}
	return out
}

// flips reports whether some repeats passed and some failed.
func flips(samples []run.SampleSummary) bool {
	var pass, fail bool
	for _, s := range samples {
		if s.Pass != nil {
			pass, fail = pass || *s.Pass, fail || !*s.Pass
		}
	}
	return pass && fail
}

func graderVotes(gs []run.GraderSummary) (passing, failing, skipped int) {
	for _, g := range gs {
		switch {
		case g.Pass == nil:
			skipped++
		case *g.Pass:
			passing++
		default:
			failing++
		}
	}
	return
}

// SamplePattern renders repeats as "P F P" (P pass, F fail, ? unknown);
// "" when the case has no repeats.
func SamplePattern(samples []run.SampleSummary) string {
	marks := make([]string, len(samples))
	for i, s := range samples {
		switch {
		case s.Pass == nil:
			marks[i] = "?"
		case *s.Pass:
			marks[i] = "P"
		default:
			marks[i] = "F"
		}
	}
	return strings.Join(marks, " ")
}

func FormatScore(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// Scope ids, matching prompts/review.json scopes.
const (
	ScopeSuspicious = "suspicious"
	ScopeFailures   = "failures"
	ScopeAll        = "all"
	ScopeFilter     = "filter"
)

// Filter selects cases by test id glob, target or grader type.
type Filter struct {
	Expr  string // the expression as given
	match func(c *run.Case) bool
}

// ParseFilter parses "GLOB", "target=NAME" or "grader=TYPE".
func ParseFilter(expr string) (Filter, error) {
	expr = strings.TrimSpace(expr)
	key, val, hasKey := strings.Cut(expr, "=")
	f := Filter{Expr: expr}
	switch {
	case expr == "":
		return f, clierr.Usage("empty filter", "use a test id glob such as 'json-*', target=NAME or grader=TYPE")
	case hasKey && key == "target":
		f.match = func(c *run.Case) bool { return c.Target == val }
	case hasKey && key == "grader":
		f.match = func(c *run.Case) bool {
			for _, g := range c.Graders {
				if g.Type == val {
					return true
				}
			}
			return false
		}
	case hasKey:
		return f, clierr.Usage(fmt.Sprintf("unknown filter key %q", key), "filter keys are target= and grader=; anything else is a test id glob")
	default:
		if _, err := path.Match(expr, ""); err != nil {
			return f, clierr.Usage(fmt.Sprintf("bad test id glob %q: %v", expr, err), "globs use * ? and [...]")
		}
		f.match = func(c *run.Case) bool { ok, _ := path.Match(expr, c.TestID); return ok }
	}
	return f, nil
}

// Select keeps the ranked items in scope. filter is used only for
// ScopeFilter. For ScopeAll it returns items itself.
func Select(items []Item, scope string, filter Filter) ([]Item, error) {
	return selectOf(items, scope, filter, func(it Item) Ranked { return it.Ranked }, func(it Item) *run.Case { return it.Case })
}

// SelectIn is Select for the ranked cases of cs (RankAll's).
func SelectIn(cs Cases, rs []Ranked, scope string, filter Filter) ([]Ranked, error) {
	var c run.Case
	return selectOf(rs, scope, filter, func(r Ranked) Ranked { return r }, func(r Ranked) *run.Case {
		cs.CaseAt(int(r.Pos), &c)
		return &c
	})
}

// selectOf is Select of items whose ranking is rankOf and whose case is
// caseOf (asked only for ScopeFilter).
func selectOf[T any](items []T, scope string, filter Filter, rankOf func(T) Ranked, caseOf func(T) *run.Case) ([]T, error) {
	tier, match, err := selection(scope, filter)
	if err != nil {
		return nil, err
	}
	if tier == nil {
		return items, nil
	}
	var out []T
	for _, it := range items {
		if tier(rankOf(it)) && (match == nil || match(caseOf(it))) {
			out = append(out, it)
		}
	}
	return out, nil
}

// selection is what scope keeps: the tiers it keeps, and the cases when
// it is ScopeFilter (match; nil for the others). tier is nil for ScopeAll.
func selection(scope string, filter Filter) (tier func(Ranked) bool, match func(*run.Case) bool, err error) {
	switch scope {
	case ScopeSuspicious, "":
		return Ranked.Suspicious, nil, nil
	case ScopeFailures:
		return func(r Ranked) bool { return r.Tier <= TierFailed }, nil, nil
	case ScopeAll:
		return nil, nil, nil
	case ScopeFilter:
		if filter.match == nil {
			return nil, nil, clierr.Usage("scope filter needs a filter expression", "pass --filter EXPR")
		}
		return func(Ranked) bool { return true }, filter.match, nil
	}
	return nil, nil, clierr.Usage(fmt.Sprintf("unknown scope %q", scope), "scopes: suspicious, failures, all, filter")
}
