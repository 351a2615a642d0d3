package review_test

import (
	"errors"
	"io"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/review"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

var errFirstQuestion = errors.New("first question reached")

// stopAsker ends the session at its first question: by then the first
// case's evidence is on screen.
type stopAsker struct{}

func (stopAsker) Select(string, []string, int, string) (int, error) { return 0, errFirstQuestion }
func (stopAsker) MultiSelect(string, []string, []int, string) ([]int, error) {
	return nil, errFirstQuestion
}
func (stopAsker) Input(string, string, string) (string, error)  { return "", errFirstQuestion }
func (stopAsker) Confirm(string, bool, string) (bool, error)    { return false, errFirstQuestion }
func (stopAsker) Editor(string, string, string) (string, error) { return "", errFirstQuestion }

// BenchmarkFirstScreen compares what status does (open the run, rank its
// cases) with the guided review up to its first question (the same, plus
// the opening text, one Detail and its evidence screen), on a generated
// 10k-row run.
func BenchmarkFirstScreen(b *testing.B) {
	dir := b.TempDir() + "/2026-07-06T11-31-36-988Z"
	if _, err := genrun.Write442(dir, genrun.Options{Rows: 10_000, Seed: 1, BigAnswers: 3}); err != nil {
		b.Fatal(err)
	}
	cat, err := prompts.Load()
	if err != nil {
		b.Fatal(err)
	}
	open := func(b *testing.B) *run.Run {
		r, err := run.Open(dir, run.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.Run("status", func(b *testing.B) {
		for b.Loop() {
			r := open(b)
			r.Counts()
			triage.Rank(r.Cases)
		}
	})
	b.Run("first-screen", func(b *testing.B) {
		for b.Loop() {
			r := open(b)
			_, err := review.Run(review.Config{
				Run: r, Paths: feedback.PathsFor(r.Dir, ""), Reviewer: "bench", ReviewerFixed: true,
				Scope: triage.ScopeAll, Out: io.Discard, Width: 100, Height: 40, Catalog: cat,
			}, stopAsker{})
			if !errors.Is(err, errFirstQuestion) {
				b.Fatalf("session ended with %v", err)
			}
		}
	})
}
