package record

import (
	"os"
	"testing"
	"time"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// BenchmarkSeeBases is apply's middle phase on the run at
// $AGENTV_REVIEW_BASES_RUN (skipped when unset): run.Bases over every
// case, with SeeBasis and Stamp per case.
func BenchmarkSeeBases(b *testing.B) {
	dir := os.Getenv("AGENTV_REVIEW_BASES_RUN")
	if dir == "" {
		b.Skip("set AGENTV_REVIEW_BASES_RUN to a run directory")
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		b.Fatal(err)
	}
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
