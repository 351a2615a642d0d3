package record

import (
	"os"
	"path/filepath"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

// benchRun opens the run at $AGENTV_REVIEW_BASES_RUN (a bench run, say),
// else a generated 20k-row 4.42.4 one.
func benchRun(b *testing.B) *run.Run {
	b.Helper()
	dir := os.Getenv("AGENTV_REVIEW_BASES_RUN")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "2026-07-06T11-31-36-988Z")
		if _, err := genrun.Write442(dir, genrun.Options{Rows: 20_000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// benchAnswers is benchRun's run and apply's bench answers for it: one
// per case, naming suite, test_id and target, with a verdict.
func benchAnswers(b *testing.B) (*run.Run, *prompts.Catalog, []feedback.Case) {
	b.Helper()
	r := benchRun(b)
	cat, err := prompts.Load()
	if err != nil {
		b.Fatal(err)
	}
	as := make([]feedback.Case, len(r.Cases))
	for i, c := range r.Cases {
		as[i] = feedback.Case{TestID: c.TestID, Suite: c.Suite, Target: c.Target, Verdict: feedback.Incorrect}
	}
	return r, cat, as
}

// BenchmarkFind binds apply's answers to their cases: with a Finder per
// answer (ref: what Find was, and is) and with one Finder.
func BenchmarkFind(b *testing.B) {
	r, _, as := benchAnswers(b)
	for _, name := range []string{"ref", "finder"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := NewFinder(r)
				for _, a := range as {
					if name == "ref" {
						f = NewFinder(r)
					}
					if c, ps := f.Find(a); c == nil || ps != nil {
						b.Fatal(ps)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/answer")
		})
	}
}

// BenchmarkCheck checks apply's answers: per call (ref, Check before
// Checker) and with one Checker.
func BenchmarkCheck(b *testing.B) {
	r, cat, as := benchAnswers(b)
	cases := r.Cases
	for name, check := range map[string]func() func(*run.Case, feedback.Case) []Problem{
		"ref": func() func(*run.Case, feedback.Case) []Problem {
			return func(c *run.Case, a feedback.Case) []Problem { return refCheck(cat, c, a) }
		},
		"checker": func() func(*run.Case, feedback.Case) []Problem { return NewChecker(cat).Check },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := check()
				for i, a := range as {
					if ps := f(cases[i], a); ps != nil {
						b.Fatal(ps)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(as)), "ns/answer")
		})
	}
}
