package record

import (
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// BenchmarkSeeBases is apply's middle phase on benchRun's run: run.Bases
// over every case, with SeeBasis and Stamp per case.
func BenchmarkSeeBases(b *testing.B) {
	r := benchRun(b)
	out := make([]feedback.Case, len(r.Cases))
	stamp := NewStamper(Who{Reviewer: "agent", Kind: feedback.Agent}, time.Unix(0, 0))
	b.ReportAllocs()
	for b.Loop() {
		err := r.Bases(r.Cases, func(i int, bs *run.Basis) error {
			seen, err := SeeBasis(bs)
			out[i] = feedback.Case{Verdict: "acceptable"}
			stamp.Stamp(&out[i], seen)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeeBasis is SeeBasis and Stamp alone, on every case of
// benchRun's run read once by run.Bases (their texts kept): the part of
// apply's middle phase that record does.
func BenchmarkSeeBasis(b *testing.B) {
	r := benchRun(b)
	bases := make([]run.Basis, len(r.Cases))
	err := r.Bases(r.Cases, func(i int, bs *run.Basis) error {
		bases[i] = *bs
		bases[i].Answer.Content = strings.Clone(bs.Answer.Content)
		bases[i].Input.Content = strings.Clone(bs.Input.Content)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]feedback.Case, len(bases))
	stamp := NewStamper(Who{Reviewer: "agent", Kind: feedback.Agent}, time.Unix(0, 0))
	b.ReportAllocs()
	for b.Loop() {
		for i := range bases {
			seen, err := SeeBasis(&bases[i])
			if err != nil {
				b.Fatal(err)
			}
			out[i] = feedback.Case{Verdict: "acceptable"}
			stamp.Stamp(&out[i], seen)
		}
	}
}
