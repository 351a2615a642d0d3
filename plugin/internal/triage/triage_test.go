package triage

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"agentv-review/plugin/internal/run"
)

func ptr[T any](v T) *T { return &v }

func grader(pass *bool) run.GraderSummary {
	return run.GraderSummary{Type: "contains", Name: "g", Pass: pass}
}

func codes(it Item) []string {
	var out []string
	for _, r := range it.Reasons() {
		out = append(out, r.Code)
	}
	return out
}

func TestClassify(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	tests := []struct {
		name  string
		c     run.Case
		tier  Tier
		codes []string
	}{
		{"clean pass", run.Case{Outcome: run.Passed, Score: 1, Graders: []run.GraderSummary{grader(yes)}}, TierClean, nil},
		{"errored", run.Case{Outcome: run.Errored, FailureStage: "agent"}, TierErrored, []string{"errored"}},
		{"failed, graders disagree", run.Case{Outcome: run.Failed, Score: 0.5, Graders: []run.GraderSummary{grader(yes), grader(no)}},
			TierFailed, []string{"failed", "graders_disagree"}},
		{"pass despite a failing grader", run.Case{Outcome: run.Passed, Score: 0.8, Graders: []run.GraderSummary{grader(no)}},
			TierSuspicious, []string{"passed_despite_graders", "near_threshold"}},
		{"fail although every grader passed", run.Case{Outcome: run.Failed, Score: 0.2, Graders: []run.GraderSummary{grader(yes)}},
			TierFailed, []string{"failed", "failed_despite_graders"}},
		{"skipped grader", run.Case{Outcome: run.Passed, Score: 1, Graders: []run.GraderSummary{grader(nil)}},
			TierSuspicious, []string{"grader_skipped"}},
		{"pass below threshold (trials mean)", run.Case{Outcome: run.Passed, Score: 0.5}, TierSuspicious, []string{"pass_below_threshold"}},
		{"fail above threshold", run.Case{Outcome: run.Failed, Score: 0.95}, TierFailed, []string{"failed", "fail_above_threshold"}},
		{"flipping samples", run.Case{Outcome: run.Passed, Score: 1, Samples: []run.SampleSummary{{Pass: yes}, {Pass: no}, {Pass: yes}}},
			TierSuspicious, []string{"flipping_samples"}},
		{"steady samples", run.Case{Outcome: run.Passed, Score: 1, Samples: []run.SampleSummary{{Pass: yes}, {Pass: yes}}}, TierClean, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := Classify(&tt.c)
			if it.Tier != tt.tier || !slices.Equal(codes(it), tt.codes) {
				t.Errorf("tier %s reasons %v, want %s %v", it.Tier, codes(it), tt.tier, tt.codes)
			}
		})
	}
}

func TestRankOrder(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	cases := []*run.Case{
		{TestID: "clean", Outcome: run.Passed, Score: 1},
		{TestID: "fail-plain", Outcome: run.Failed, Score: 0},
		{TestID: "suspicious", Outcome: run.Passed, Score: 0.5},
		{TestID: "error", Outcome: run.Errored},
		{TestID: "fail-disagree", Outcome: run.Failed, Score: 0.5, Graders: []run.GraderSummary{grader(yes), grader(no)}},
	}
	var got []string
	for _, it := range Rank(cases) {
		got = append(got, it.Case.TestID)
	}
	want := []string{"error", "fail-disagree", "fail-plain", "suspicious", "clean"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestSelectAndFilter(t *testing.T) {
	cases := []*run.Case{
		{TestID: "json-a", Target: "v1", Outcome: run.Failed, Graders: []run.GraderSummary{{Type: "is-json"}}},
		{TestID: "json-b", Target: "v2", Outcome: run.Passed, Score: 1},
		{TestID: "text", Target: "v1", Outcome: run.Errored},
	}
	items := Rank(cases)
	for _, tt := range []struct {
		scope, filter string
		want          []string
	}{
		{ScopeSuspicious, "", []string{"text", "json-a"}},
		{ScopeFailures, "", []string{"text", "json-a"}},
		{ScopeAll, "", []string{"text", "json-a", "json-b"}},
		{ScopeFilter, "json-*", []string{"json-a", "json-b"}},
		{ScopeFilter, "target=v1", []string{"text", "json-a"}},
		{ScopeFilter, "grader=is-json", []string{"json-a"}},
	} {
		var f Filter
		if tt.filter != "" {
			var err error
			if f, err = ParseFilter(tt.filter); err != nil {
				t.Fatal(err)
			}
		}
		sel, err := Select(items, tt.scope, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range sel {
			got = append(got, it.Case.TestID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: %v, want %v", tt.scope, tt.filter, got, tt.want)
		}
	}
	for _, bad := range []string{"", "colour=red", "["} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q) accepted", bad)
		}
	}
	if _, err := Select(items, "nope", Filter{}); err == nil {
		t.Error("unknown scope accepted")
	}
	if _, err := Select(items, ScopeFilter, Filter{}); err == nil {
		t.Error("filter scope without a filter accepted")
	}
}

func TestSamplePattern(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	if got := SamplePattern([]run.SampleSummary{{Pass: yes}, {Pass: no}, {}}); got != "P F ?" {
		t.Errorf("pattern %q", got)
	}
	if got := SamplePattern(nil); got != "" {
		t.Errorf("no samples: %q", got)
	}
}

func TestReasonTexts(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	tests := []struct {
		c    run.Case
		want []string
	}{
		{run.Case{Outcome: run.Passed, Score: 1}, nil},
		{run.Case{Outcome: run.Errored, FailureStage: "agent"}, []string{"execution error at stage agent"}},
		{run.Case{Outcome: run.Failed, Score: 0.85, Graders: []run.GraderSummary{grader(yes), grader(no), grader(nil)}},
			[]string{"failed with score 0.85", "graders disagree: 1 pass, 1 fail", "1 grader(s) gave no verdict",
				"failed with score 0.85, at or above 0.8", "score 0.85 is within 0.1 of the threshold"}},
		{run.Case{Outcome: run.Passed, Score: 0.5, Samples: []run.SampleSummary{{Pass: yes}, {Pass: nil}, {Pass: no}}},
			[]string{"passed with score 0.5, below 0.8", "samples flip: P ? F"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range Classify(&tt.c).Reasons() {
			got = append(got, r.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: reasons %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestWithHistory(t *testing.T) {
	yes := ptr(true)
	clean := func(id string, o run.Outcome) *run.Case {
		score := map[run.Outcome]float64{run.Passed: 1, run.Failed: 0}[o]
		return &run.Case{TestID: id, Outcome: o, Score: score, Graders: []run.GraderSummary{grader(yes)}}
	}
	cases := []*run.Case{
		clean("steady", run.Passed),
		{TestID: "regressed", Outcome: run.Failed},
		clean("errored-before", run.Passed),
		clean("flipped", run.Passed),
		clean("fixed", run.Passed),
		clean("new", run.Passed),
	}
	past := map[string][]run.Outcome{
		"steady":         {run.Passed, run.Passed},
		"regressed":      {run.Failed, run.Passed},
		"errored-before": {run.Errored},
		"flipped":        {run.Passed, run.Failed},
		"fixed":          {run.Failed},
	}
	ranked := Rank(cases)
	got := WithHistory(ranked, func(c *run.Case) []run.Outcome { return past[c.TestID] })
	want := []struct {
		id    string
		tier  Tier
		codes []string
	}{
		{"regressed", TierFailed, []string{"failed", "regressed", "flipped_across_runs"}},
		{"errored-before", TierSuspicious, []string{"errored_before"}},
		{"flipped", TierSuspicious, []string{"flipped_across_runs"}},
		{"steady", TierClean, nil},
		{"fixed", TierClean, nil},
		{"new", TierClean, nil},
	}
	for i, w := range want {
		if got[i].Case.TestID != w.id || got[i].Tier != w.tier || !slices.Equal(codes(got[i]), w.codes) {
			t.Errorf("item %d: %s %s %v, want %s %s %v", i, got[i].Case.TestID, got[i].Tier, codes(got[i]), w.id, w.tier, w.codes)
		}
	}
	if ranked[0].Case.TestID != "regressed" || len(codes(ranked[0])) != 1 {
		t.Errorf("WithHistory changed its input: %s %v", ranked[0].Case.TestID, codes(ranked[0]))
	}
	for _, r := range got[0].Reasons() {
		if r.Text == "" {
			t.Errorf("reason %s has no text", r.Code)
		}
	}
}

// sliceCases are cases by position, as triage.Cases.
type sliceCases []*run.Case

func (s sliceCases) Len() int                        { return len(s) }
func (s sliceCases) CaseViewAt(pos int, c *run.Case) { *c = *s[pos] }

// TestRankAll holds RankAll, WithHistoryIn and SelectIn to Rank,
// WithHistory and Select: the same items in the same order, holding
// positions instead of cases.
func TestRankAll(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	cs := sliceCases{
		{TestID: "clean", Outcome: run.Passed, Score: 1, Graders: []run.GraderSummary{grader(yes)}},
		{TestID: "fail-plain", Target: "v1", Outcome: run.Failed, Score: 0},
		{TestID: "suspicious", Outcome: run.Passed, Score: 0.5},
		{TestID: "error", Outcome: run.Errored, FailureStage: "agent"},
		{TestID: "fail-disagree", Outcome: run.Failed, Score: 0.5, Graders: []run.GraderSummary{{Type: "is-json", Pass: yes}, grader(no)}},
		{TestID: "regressed", Outcome: run.Failed, Score: 0.9},
		{TestID: "flaky", Outcome: run.Passed, Score: 0.85, Samples: []run.SampleSummary{{Pass: yes}, {Pass: no}}},
		{TestID: "steady", Outcome: run.Passed, Score: 1},
	}
	for i, c := range cs {
		c.Index = int32(i)
	}
	past := map[string][]run.Outcome{"regressed": {run.Passed}, "steady": {run.Passed, run.Failed}, "clean": {run.Errored}}
	earlier := func(c *run.Case) []run.Outcome { return past[c.TestID] }
	same := func(what string, got []Ranked, want []Item) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
		}
		for i, w := range want {
			if got[i].Pos != w.Case.Index || got[i] != w.Ranked {
				t.Errorf("%s: item %d is %+v, want %+v", what, i, got[i], w)
			}
		}
	}
	ranked, all := Rank(cs), RankAll(cs)
	same("RankAll", all, ranked)
	none := func(*run.Case) []run.Outcome { return nil }
	if got := WithHistoryIn(cs, all, none); &got[0] != &all[0] {
		t.Error("WithHistoryIn with no history made a new ranking")
	}
	same("WithHistoryIn without history", WithHistoryIn(cs, all, none), WithHistory(ranked, none))
	regressedOnly := func(c *run.Case) []run.Outcome { // a failed case gains a reason, no tier changes
		return map[string][]run.Outcome{"regressed": {run.Passed}}[c.TestID]
	}
	same("WithHistoryIn, reasons only", WithHistoryIn(cs, all, regressedOnly), WithHistory(ranked, regressedOnly))
	ranked, all = WithHistory(ranked, earlier), WithHistoryIn(cs, all, earlier)
	same("WithHistoryIn", all, ranked)
	for _, expr := range []string{"", "f*", "target=v1", "grader=is-json"} {
		scopes := []string{ScopeSuspicious, ScopeFailures, ScopeAll}
		var f Filter
		if expr != "" {
			var err error
			if f, err = ParseFilter(expr); err != nil {
				t.Fatal(err)
			}
			scopes = []string{ScopeFilter}
		}
		for _, scope := range scopes {
			want, err := Select(ranked, scope, f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SelectIn(cs, all, scope, f)
			if err != nil {
				t.Fatal(err)
			}
			same("SelectIn "+scope+" "+expr, got, want)
		}
	}
}

// FuzzRankOrder holds the counting sort (rankOrder, sortItems) to a stable
// sort by the review order as it is defined: by tier, then more reasons
// first, ties in the order given.
func FuzzRankOrder(f *testing.F) {
	f.Add([]byte{0, 0, 3, 1, 1, 2, 2, 0xff, 0x1f, 3, 0, 0, 1, 0x10, 0x01})
	f.Add([]byte("errored, failed, suspicious and clean ranks, with every reason"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var rs []Ranked
		for i := 0; i+2 < len(b); i += 3 {
			reasons := (uint16(b[i+1]) | uint16(b[i+2])<<8) & (1<<reasonCount - 1)
			rs = append(rs, Ranked{Tier: Tier(b[i] % 4), reasons: reasons, Pos: int32(len(rs))})
		}
		want := slices.Clone(rs)
		slices.SortStableFunc(want, func(a, b Ranked) int {
			if a.Tier != b.Tier {
				return cmp.Compare(a.Tier, b.Tier)
			}
			return cmp.Compare(bits.OnesCount16(b.reasons), bits.OnesCount16(a.reasons))
		})
		asked := 0
		got := rankOrder(len(rs), func() func(i int) Ranked { return func(i int) Ranked { asked++; return rs[i] } }, func(i int) int32 { return rs[i].Pos })
		if !slices.Equal(got, want) || asked != len(rs) {
			t.Fatalf("rankOrder %v (asked %d times), want %v", got, asked, want)
		}
		for parts := 2; parts <= min(len(rs), 5); parts++ { // as on parts cores
			var asked atomic.Int64
			got := hold(len(rs), parts, func() func(i int) Ranked {
				return func(i int) Ranked { asked.Add(1); return rs[i] }
			}).place(func(i int) int32 { return rs[i].Pos })
			if !slices.Equal(got, want) || asked.Load() != int64(len(rs)) {
				t.Fatalf("in %d parts: %v (asked %d times), want %v", parts, got, asked.Load(), want)
			}
		}
		items := make([]Item, len(rs))
		for i, r := range rs {
			items[i].Ranked = r
		}
		for i, it := range sortItems(items) {
			if it.Ranked != want[i] {
				t.Fatalf("sortItems: item %d is %+v, want %+v", i, it.Ranked, want[i])
			}
		}
	})
}

// formatScoreByFmt is FormatScore as fmt spells it: the reference for
// appendScore.
func formatScoreByFmt(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// reasonTextByFmt is the text of reason r of c, written by fmt: the
// reference for Reasons' appends.
func reasonTextByFmt(r int, c *run.Case) string {
	passing, failing, skipped := graderVotes(c.Graders)
	marks := make([]string, len(c.Samples))
	for i, s := range c.Samples {
		marks[i] = map[bool]string{true: "P", false: "F"}[s.Pass != nil && *s.Pass]
		if s.Pass == nil {
			marks[i] = "?"
		}
	}
	score := formatScoreByFmt
	switch r {
	case reasonErrored:
		if c.FailureStage != "" {
			return "execution error at stage " + c.FailureStage
		}
		return "execution error"
	case reasonFailed:
		return fmt.Sprintf("failed with score %s", score(c.Score))
	case reasonGradersDisagree:
		return fmt.Sprintf("graders disagree: %d pass, %d fail", passing, failing)
	case reasonPassedDespiteGraders:
		return fmt.Sprintf("passed although %d grader(s) failed", failing)
	case reasonFailedDespiteGraders:
		return fmt.Sprintf("failed although %d grader(s) passed", passing)
	case reasonGraderSkipped:
		return fmt.Sprintf("%d grader(s) gave no verdict", skipped)
	case reasonPassBelowThreshold:
		return fmt.Sprintf("passed with score %s, below %s", score(c.Score), score(run.PassThreshold))
	case reasonFailAboveThreshold:
		return fmt.Sprintf("failed with score %s, at or above %s", score(c.Score), score(run.PassThreshold))
	case reasonNearThreshold:
		return fmt.Sprintf("score %s is within %s of the threshold", score(c.Score), score(NearMargin))
	case reasonFlippingSamples:
		return "samples flip: " + strings.Join(marks, " ")
	case reasonRegressed:
		return fmt.Sprintf("regressed: passed in the previous run, %s now", c.Outcome)
	case reasonErroredBefore:
		return "errored in an earlier run"
	case reasonFlippedAcrossRuns:
		return "outcome flips across runs"
	}
	panic(r)
}

// FuzzReasons holds Reasons, FormatScore and SamplePattern to the texts
// fmt writes, for any score, stage, graders, samples and set of reasons.
func FuzzReasons(f *testing.F) {
	f.Add(0.85, "agent", "failed", []byte{0, 1, 2, 1}, []byte{1, 0, 2}, uint16(0x1fff))
	f.Add(math.Inf(1), "", "passed", []byte{}, []byte{}, uint16(1<<reasonFailed|1<<reasonNearThreshold))
	f.Add(math.NaN(), "st\"age\x00", "", []byte{2, 2}, []byte{0}, uint16(0x0aaa))
	f.Add(-0.0, "ü", "errored", []byte{1}, []byte{1, 1, 1, 1}, uint16(0x1555))
	f.Add(1e21, "x", "weird", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []byte{2}, uint16(0x0fff))
	f.Add(0.005, "", "failed", []byte{}, []byte{}, uint16(0xffff))
	f.Fuzz(func(t *testing.T, score float64, stage, outcome string, graders, samples []byte, reasons uint16) {
		yes, no := ptr(true), ptr(false)
		pass := [3]*bool{yes, no, nil}
		c := run.Case{Score: score, FailureStage: stage, Outcome: run.Outcome(outcome)}
		for _, g := range graders {
			c.Graders = append(c.Graders, run.GraderSummary{Pass: pass[g%3]})
		}
		for _, s := range samples {
			c.Samples = append(c.Samples, run.SampleSummary{Pass: pass[s%3]})
		}
		if got, want := FormatScore(score), formatScoreByFmt(score); got != want {
			t.Fatalf("FormatScore(%v) = %q, want %q", score, got, want)
		}
		it := Item{Case: &c, Ranked: Ranked{reasons: reasons & (1<<reasonCount - 1)}}
		var want []Reason
		for r := range reasonCount {
			if it.reasons&(1<<r) != 0 {
				want = append(want, Reason{Code: reasonCodes[r], Text: reasonTextByFmt(r, &c)})
			}
		}
		if got := it.Reasons(); !slices.Equal(got, want) {
			t.Fatalf("Reasons of %+v (reasons %b): %q, want %q", c, it.reasons, got, want)
		}
		if got, want := SamplePattern(c.Samples), strings.TrimPrefix(reasonTextByFmt(reasonFlippingSamples, &c), "samples flip: "); got != want {
			t.Fatalf("SamplePattern: %q, want %q", got, want)
		}
	})
}

// TestFormatScoreHundredths: FormatScore of every whole number of
// hundredths below 1e4 (the fast path, jsonenc.AppendDecimal) is what
// fmt writes.
func TestFormatScoreHundredths(t *testing.T) {
	for i := range int64(1e6) {
		f := float64(i) / 100
		if got, want := FormatScore(f), formatScoreByFmt(f); got != want {
			t.Fatalf("FormatScore(%v) = %q, want %q", f, got, want)
		}
	}
}
