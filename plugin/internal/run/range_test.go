package run

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoresOutOfRange puts scores outside 0..1 in the row, a grader and a
// sample: the run opens, each out-of-range row score is one warning naming
// its line, and every case can be found, detailed and tasked.
func TestScoresOutOfRange(t *testing.T) {
	scores := []string{"-1", "-0.25", "1.5", "2", "100", "1e308", "-1e308", "1.0000001", "-0.0000001"}
	var rows strings.Builder
	for i, s := range scores {
		fmt.Fprintf(&rows, `{"test_id":"t%d","score":%s,"scores":[{"name":"g","type":"llm-grader","score":%s}],"samples":[{"sample":1,"score":%s}]}`+"\n", i, s, s, s)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"index.jsonl": rows.String()})
	r := mustOpen(t, filepath.Join(dir, "index.jsonl"), Options{})
	if len(r.Cases) != len(scores) || len(r.Warnings) != len(scores) {
		t.Fatalf("%d cases, warnings %v", len(r.Cases), r.Warnings)
	}
	for i, w := range r.Warnings {
		if w.Line != i+1 || !strings.Contains(w.Msg, "outside 0..1") {
			t.Errorf("warning %d: %+v", i, w)
		}
	}
	passed, failed, _ := r.Counts()
	if passed+failed != len(scores) {
		t.Errorf("counts %d passed, %d failed", passed, failed)
	}
	for i, c := range r.Cases {
		if (c.Outcome == Passed) != (c.Score >= PassThreshold) {
			t.Errorf("%s score %g: %s", c.TestID, c.Score, c.Outcome)
		}
		d := mustDetail(t, r, fmt.Sprintf("t%d", i))
		if len(d.Graders) != 1 || *d.Graders[0].Score != c.Score || len(d.Samples) != 1 || *d.Samples[0].Score != c.Score {
			t.Errorf("%s: detail %+v", c.TestID, d)
		}
		if _, err := r.Task(d); err != nil {
			t.Errorf("%s: task: %v", c.TestID, err)
		}
	}
}
