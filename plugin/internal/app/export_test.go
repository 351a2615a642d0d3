package app

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/history"
)

func TestExportGolden(t *testing.T) {
	root := reviewIterations(t)
	csvOut := mustRun(t, "export", "--format", "csv", root)
	golden(t, "export.csv", csvOut)
	golden(t, "export.jsonl", mustRun(t, "export", "--format", "jsonl", root))

	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 18 judgments and the dashboard note archived in run 1.
	if len(recs) != 1+18+1 || len(recs[0]) != len(history.Header) {
		t.Errorf("%d records of %d columns", len(recs), len(recs[0]))
	}

	out := filepath.Join(t.TempDir(), "review.csv")
	mustRun(t, "export", "--format", "csv", "--out", out, root)
	if data, err := os.ReadFile(out); err != nil || string(data) != csvOut {
		t.Errorf("--out wrote %d bytes (%v), want what stdout gets", len(data), err)
	}

	// One run only.
	one := mustRun(t, "export", "--format", "jsonl", filepath.Join(root, iterationRuns[2].id))
	if n := strings.Count(one, "\n"); n != 6 {
		t.Errorf("one run: %d rows, want 6", n)
	}
}

func TestExportUsage(t *testing.T) {
	if code, _, stderr := runApp(t, "export", "--format", "xlsx", copyRun(t, "iterations-1")); code != clierr.CodeUsage || !strings.Contains(stderr, "csv, jsonl") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
