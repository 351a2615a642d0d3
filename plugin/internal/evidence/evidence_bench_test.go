package evidence_test

import (
	"io"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// BenchmarkNextCaseBigAnswer is moving to a case whose answer is 5 MB:
// Detail (which reads at most AnswerLimit of it) and the evidence screen
// as the guided review draws it (a 100-cell wide terminal, 13 answer lines).
func BenchmarkNextCaseBigAnswer(b *testing.B) {
	dir := b.TempDir() + "/2026-07-06T11-31-36-988Z"
	if _, err := genrun.Write442(dir, genrun.Options{Rows: 30, Seed: 1, BigAnswers: 1, BigAnswerBytes: 5 << 20}); err != nil {
		b.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var big *run.Case
	for _, c := range r.Cases {
		if d, err := r.Detail(c); err == nil && d.Answer.Size >= 5<<20 && c.OverwrittenBy == "" {
			big = c
		}
	}
	if big == nil {
		b.Fatal("no case with a 5 MB answer")
	}
	item := triage.Rank([]*run.Case{big})[0]
	b.ReportAllocs()
	for b.Loop() {
		d, err := r.Detail(big)
		if err != nil {
			b.Fatal(err)
		}
		if !evidence.Render(io.Discard, d, item, evidence.Options{Width: 100, AnswerLines: 13, InputLines: 4}) {
			b.Fatal("a 5 MB answer was not cut")
		}
	}
}
