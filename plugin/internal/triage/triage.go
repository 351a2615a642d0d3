// Package triage puts a run's cases in review order, most suspicious first,
// and says why each case sits where it does.
//
// Tiers, in order: errored, failed, suspicious passes (graders disagreeing,
// score near the threshold, flipping samples, a pass whose score is below the
// threshold, a skipped grader), then clean passes. Within a tier, cases with
// more (and stronger) reasons come first; ties keep manifest order.
package triage

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/run"
)

// Tier is a case's place in the review order.
type Tier int

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

// Item is one ranked case.
type Item struct {
	Case    *run.Case
	Tier    Tier
	Reasons []Reason
}

// Suspicious reports whether the item belongs in the default review scope.
func (it Item) Suspicious() bool { return it.Tier != TierClean }

// Rank returns every case in review order.
func Rank(cases []*run.Case) []Item {
	items := make([]Item, len(cases))
	for i, c := range cases {
		items[i] = classify(c)
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Tier != items[j].Tier {
			return items[i].Tier < items[j].Tier
		}
		return len(items[i].Reasons) > len(items[j].Reasons)
	})
	return items
}

func classify(c *run.Case) Item {
	it := Item{Case: c}
	switch c.Outcome {
	case run.Errored:
		it.Tier = TierErrored
		text := "execution error"
		if c.FailureStage != "" {
			text += " at stage " + c.FailureStage
		}
		it.add("errored", text)
	case run.Failed:
		it.Tier = TierFailed
		it.add("failed", fmt.Sprintf("failed with score %s", FormatScore(c.Score)))
	default:
		it.Tier = TierClean
	}

	passing, failing, skipped := graderVotes(c.Graders)
	if passing > 0 && failing > 0 {
		it.add("graders_disagree", fmt.Sprintf("graders disagree: %d pass, %d fail", passing, failing))
	}
	if c.Outcome == run.Passed && failing > 0 && passing == 0 {
		it.add("passed_despite_graders", fmt.Sprintf("passed although %d grader(s) failed", failing))
	}
	if c.Outcome == run.Failed && passing > 0 && failing == 0 {
		it.add("failed_despite_graders", fmt.Sprintf("failed although %d grader(s) passed", passing))
	}
	if skipped > 0 {
		it.add("grader_skipped", fmt.Sprintf("%d grader(s) gave no verdict", skipped))
	}
	if c.Outcome == run.Passed && c.Score < run.PassThreshold {
		it.add("pass_below_threshold", fmt.Sprintf("passed with score %s, below %s", FormatScore(c.Score), FormatScore(run.PassThreshold)))
	}
	if c.Outcome == run.Failed && c.Score >= run.PassThreshold {
		it.add("fail_above_threshold", fmt.Sprintf("failed with score %s, at or above %s", FormatScore(c.Score), FormatScore(run.PassThreshold)))
	}
	if d := c.Score - run.PassThreshold; d > -NearMargin && d < NearMargin && c.Outcome != run.Errored {
		it.add("near_threshold", fmt.Sprintf("score %s is within %s of the threshold", FormatScore(c.Score), FormatScore(NearMargin)))
	}
	if pat := SamplePattern(c.Samples); strings.Contains(pat, "P") && strings.Contains(pat, "F") {
		it.add("flipping_samples", "samples flip: "+pat)
	}
	if c.Outcome == run.Passed && len(it.Reasons) > 0 {
		it.Tier = TierSuspicious
	}
	return it
}

func (it *Item) add(code, text string) {
	it.Reasons = append(it.Reasons, Reason{Code: code, Text: text})
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

// Select keeps the ranked items in scope. filter is used only for ScopeFilter.
func Select(items []Item, scope string, filter Filter) ([]Item, error) {
	var keep func(Item) bool
	switch scope {
	case ScopeSuspicious, "":
		keep = Item.Suspicious
	case ScopeFailures:
		keep = func(it Item) bool { return it.Tier <= TierFailed }
	case ScopeAll:
		keep = func(Item) bool { return true }
	case ScopeFilter:
		if filter.match == nil {
			return nil, clierr.Usage("scope filter needs a filter expression", "pass --filter EXPR")
		}
		keep = func(it Item) bool { return filter.match(it.Case) }
	default:
		return nil, clierr.Usage(fmt.Sprintf("unknown scope %q", scope), "scopes: suspicious, failures, all, filter")
	}
	var out []Item
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out, nil
}
