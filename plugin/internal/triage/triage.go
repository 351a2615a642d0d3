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
	"fmt"
	"math/bits"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/jsonenc"
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
// run.Run): CaseViewAt sets *c to the case at pos, so that a run read
// under run.Options.Compact makes no Case per case, nor a copy of its
// test id (triage reads c only until the next call).
type Cases interface {
	Len() int
	CaseViewAt(pos int, c *run.Case)
}

// Suspicious reports whether the item belongs in the default review scope.
func (r Ranked) Suspicious() bool { return r.Tier != TierClean }

// Rank returns every case in review order.
func Rank(cases []*run.Case) []Item {
	items := make([]Item, len(cases))
	for i, c := range cases {
		items[i] = Classify(c)
	}
	return sortItems(items)
}

// RankAll returns every case of cs in review order, as Rank does, holding
// none of them: Item{Case: c, Ranked: r} is the item of r and its case c.
// A large run is ranked in parts on every core: cs must be safe for
// concurrent use.
func RankAll(cs Cases) []Ranked {
	return rankOrder(cs.Len(), func() func(i int) Ranked {
		var c run.Case // each part's own
		return func(i int) Ranked {
			cs.CaseViewAt(i, &c)
			return Classify(&c).Ranked
		}
	}, func(i int) int32 { return int32(i) })
}

// The review order is by tier, then more reasons first, ties in the order
// given. It has few keys (a tier and a reason count), so it sorts by
// counting (places), in time linear in the number of cases.
const orderKeys = int(TierClean+1) * (reasonCount + 1)

// orderKey is r's place in the review order: a lower key comes first.
func orderKey(r Ranked) int {
	return int(r.Tier)*(reasonCount+1) + reasonCount - bits.OnesCount16(r.reasons)
}

// places is a stable counting sort in the review order: count every rank,
// start, then place each rank, in the order counted, to learn its index.
type places [orderKeys]int

func (p *places) count(r Ranked) { p[orderKey(r)]++ }

func (p *places) place(r Ranked) int {
	k := orderKey(r)
	i := p[k]
	p[k]++
	return i
}

// sortItems returns items in the review order: rankOrder of them, each
// rank's Pos standing for its item's index.
func sortItems(items []Item) []Item {
	rs := hold(len(items), 1, func() func(i int) Ranked {
		return func(i int) Ranked { return items[i].Ranked }
	}).place(func(i int) int32 { return int32(i) })
	out := make([]Item, len(items))
	for k, r := range rs {
		out[k] = items[r.Pos]
	}
	return out
}

// rankOrder returns the ranks of n items in the review order: ranks gives
// each part's rank function (rank(i) is item i's, asked once) and pos(i)
// is item i's Pos again.
func rankOrder(n int, ranks func() func(i int) Ranked, pos func(i int) int32) []Ranked {
	return hold(n, partsFor(n), ranks).place(pos)
}

// partsFor is how many parts n ranks are held in: one a core, each of
// minPart ranks at least.
func partsFor(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/minPart)) }

// held are ranks counted in the review order, each held in 2 bytes (its
// tier and reasons) until placed, so that ordering a million cases takes
// 2 MB beside the result. They are counted and placed in parts, on every
// core for many: each part's places are where its ranks of each key go.
type held struct {
	ranks []uint16
	parts []heldPart
}

type heldPart struct {
	lo, hi int
	at     places
}

// minPart is how many ranks a part holds at least.
const minPart = 16 << 10

// hold counts the ranks of n items in parts: ranks gives each part's rank
// function (rank(i) is item i's, asked once), called on a core of its own.
func hold(n, parts int, ranks func() func(i int) Ranked) *held {
	h := &held{ranks: make([]uint16, n), parts: make([]heldPart, parts)}
	h.each(func(p *heldPart) {
		rank := ranks()
		for i := p.lo; i < p.hi; i++ {
			r := rank(i)
			p.at.count(r)
			h.ranks[i] = uint16(r.Tier)<<reasonCount | r.reasons
		}
	})
	at := 0 // each part's first rank of a key comes after the earlier parts'
	for k := range orderKeys {
		for p := range h.parts {
			h.parts[p].at[k], at = at, at+h.parts[p].at[k]
		}
	}
	return h
}

// each calls f for each part, on a core of its own.
func (h *held) each(f func(p *heldPart)) {
	var wg sync.WaitGroup
	for k := range h.parts {
		p := &h.parts[k]
		p.lo, p.hi = len(h.ranks)*k/len(h.parts), len(h.ranks)*(k+1)/len(h.parts)
		wg.Go(func() { f(p) })
	}
	wg.Wait()
}

// place returns the held ranks in order, item i's Pos being pos(i).
func (h *held) place(pos func(i int) int32) []Ranked {
	out := make([]Ranked, len(h.ranks))
	h.each(func(p *heldPart) {
		for i := p.lo; i < p.hi; i++ {
			b := h.ranks[i]
			r := Ranked{Tier: Tier(b >> reasonCount), reasons: b & (1<<reasonCount - 1), Pos: pos(i)}
			out[p.at.place(r)] = r
		}
	})
	return out
}

// A rank's tier (below 4: two bits) and reasons fit in held's 2 bytes.
var _ [16 - 2 - reasonCount]struct{}

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
	return sortItems(out)
}

// WithHistoryIn is WithHistory for the ranked cases of cs (RankAll's):
// rs itself when no case gains a reason (rs is in order already). Like
// RankAll it works in parts on every core: cs and earlier must be safe
// for concurrent use.
func WithHistoryIn(cs Cases, rs []Ranked, earlier func(c *run.Case) []run.Outcome) []Ranked {
	var changed atomic.Bool
	h := hold(len(rs), partsFor(len(rs)), func() func(i int) Ranked {
		var c run.Case // each part's own
		return func(i int) Ranked {
			r := rs[i]
			cs.CaseViewAt(int(r.Pos), &c)
			if r.history(&c, earlier); r != rs[i] {
				changed.Store(true)
			}
			return r
		}
	})
	if !changed.Load() {
		return rs
	}
	return h.place(func(i int) int32 { return rs[i].Pos })
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
	it.add(reasonErrored, c.Outcome == run.Errored)
	it.add(reasonFailed, failed)
	it.add(reasonGradersDisagree, passing > 0 && failing > 0)
	it.add(reasonPassedDespiteGraders, passed && failing > 0 && passing == 0)
	it.add(reasonFailedDespiteGraders, failed && passing > 0 && failing == 0)
	it.add(reasonGraderSkipped, skipped > 0)
	it.add(reasonPassBelowThreshold, passed && c.Score < run.PassThreshold)
	it.add(reasonFailAboveThreshold, failed && c.Score >= run.PassThreshold)
	d := c.Score - run.PassThreshold
	it.add(reasonNearThreshold, d > -NearMargin && d < NearMargin && c.Outcome != run.Errored)
	it.add(reasonFlippingSamples, flips(c.Samples))
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
	var buf [96]byte // a text is made here, then copied once into its string
	for r := range reasonCount {
		if it.reasons&(1<<r) == 0 {
			continue
		}
		b := buf[:0]
		switch r {
		case reasonErrored:
			b = append(b, "execution error"...)
			if c.FailureStage != "" {
				b = append(append(b, " at stage "...), c.FailureStage...)
			}
		case reasonFailed:
			b = appendScore(append(b, "failed with score "...), c.Score)
		case reasonGradersDisagree:
			b = strconv.AppendInt(append(b, "graders disagree: "...), int64(passing), 10)
			b = append(strconv.AppendInt(append(b, " pass, "...), int64(failing), 10), " fail"...)
		case reasonPassedDespiteGraders:
			b = append(strconv.AppendInt(append(b, "passed although "...), int64(failing), 10), " grader(s) failed"...)
		case reasonFailedDespiteGraders:
			b = append(strconv.AppendInt(append(b, "failed although "...), int64(passing), 10), " grader(s) passed"...)
		case reasonGraderSkipped:
			b = append(strconv.AppendInt(b, int64(skipped), 10), " grader(s) gave no verdict"...)
		case reasonPassBelowThreshold:
			b = appendScore(append(appendScore(append(b, "passed with score "...), c.Score), ", below "...), run.PassThreshold)
		case reasonFailAboveThreshold:
			b = appendScore(append(appendScore(append(b, "failed with score "...), c.Score), ", at or above "...), run.PassThreshold)
		case reasonNearThreshold:
			b = appendScore(append(b, "score "...), c.Score)
			b = append(appendScore(append(b, " is within "...), NearMargin), " of the threshold"...)
		case reasonFlippingSamples:
			b = appendPattern(append(b, "samples flip: "...), c.Samples)
		case reasonRegressed:
			b = append(append(b, "regressed: passed in the previous run, "...), c.Outcome...)
			b = append(b, " now"...)
		case reasonErroredBefore:
			b = append(b, "errored in an earlier run"...)
		case reasonFlippedAcrossRuns:
			b = append(b, "outcome flips across runs"...)
		}
		out = append(out, Reason{Code: reasonCodes[r], Text: string(b)})
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
	var buf [32]byte
	return string(appendPattern(buf[:0], samples))
}

// appendPattern appends SamplePattern(samples).
func appendPattern(b []byte, samples []run.SampleSummary) []byte {
	for i, s := range samples {
		if i > 0 {
			b = append(b, ' ')
		}
		switch {
		case s.Pass == nil:
			b = append(b, '?')
		case *s.Pass:
			b = append(b, 'P')
		default:
			b = append(b, 'F')
		}
	}
	return b
}

// FormatScore writes f as %.2f does, without trailing zeros or a trailing
// point: 0.5, 0.85, 1.
func FormatScore(f float64) string {
	var buf [32]byte
	return string(appendScore(buf[:0], f))
}

// appendScore appends FormatScore(f).
func appendScore(b []byte, f float64) []byte {
	if b, ok := jsonenc.AppendDecimal(b, f, 2); ok { // most scores: the same digits, faster
		return b
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', 2, 64) // %.2f's digits (fmt calls it too)
	for len(b) > start && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if len(b) > start && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
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
		cs.CaseViewAt(int(r.Pos), &c)
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
