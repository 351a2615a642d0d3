package record

import (
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
	at := time.Unix(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		err := r.Bases(r.Cases, func(i int, bs *run.Basis) error {
			seen, err := SeeBasis(bs)
			out[i] = Stamp(seen, feedback.Case{Verdict: "acceptable"}, Who{Reviewer: "agent", Kind: feedback.Agent}, at)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
