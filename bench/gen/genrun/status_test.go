package genrun_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestAgentvReviewStatusAgrees opens each generated layout with the real
// `agentv-review status --json` (plugin/internal/run cannot be imported from
// bench/) and checks its counts against what the generator reports.
func TestAgentvReviewStatusAgrees(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "agentv-review")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "agentv-review/plugin/cmd/agentv-review").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), l.dest)
			want, err := l.write(dest, small)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(ctx, bin, "status", "--json", dest).Output()
			if err != nil {
				t.Fatalf("agentv-review status --json %s: %v", dest, err)
			}
			var got struct {
				RunID                                string `json:"run_id"`
				Rows, Cases, Passed, Failed, Errored int
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got.RunID != filepath.Base(dest) && got.RunID+".jsonl" != filepath.Base(dest) {
				t.Errorf("run_id %q for %s", got.RunID, dest)
			}
			if got.Rows != want.Rows || got.Cases != want.Cases || got.Passed != want.Passed ||
				got.Failed != want.Failed || got.Errored != want.Errored {
				t.Errorf("status says rows/cases/passed/failed/errored %d/%d/%d/%d/%d, generator %d/%d/%d/%d/%d",
					got.Rows, got.Cases, got.Passed, got.Failed, got.Errored,
					want.Rows, want.Cases, want.Passed, want.Failed, want.Errored)
			}
		})
	}
}
