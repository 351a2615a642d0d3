// Package genfeedback writes feedback files shaped like what `agentv review
// apply` writes for every case of a run, for benchmarks of the read path.
// (It spells the fields out itself: bench/ cannot import plugin/internal.)
package genfeedback

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// ID names one case.
type ID struct{ TestID, Target, Suite string }

// IDs are n synthetic cases over five suites and two targets.
func IDs(n int) []ID {
	suites := []string{"billing", "code-review", "extraction", "safety", "sql-gen"}
	ids := make([]ID, n)
	for i := range ids {
		ids[i] = ID{fmt.Sprintf("%s-case-%06d", suites[i%5], i), []string{"gpt-5-mini", "claude-sonnet"}[i/5%2], suites[i%5]}
	}
	return ids
}

type grader struct {
	Key   string  `json:"key"`
	Score float64 `json:"score"`
	Pass  bool    `json:"pass"`
}

type automated struct {
	Score           float64  `json:"score"`
	Outcome         string   `json:"outcome"`
	ExecutionStatus string   `json:"execution_status"`
	Graders         []grader `json:"graders"`
	Samples         string   `json:"samples,omitempty"` // apply writes it for multi-sample cases only
}

type entry struct {
	TestID       string    `json:"test_id"`
	Verdict      string    `json:"verdict"`
	Notes        string    `json:"notes"`
	Target       string    `json:"target"`
	Suite        string    `json:"suite"`
	ReviewedAt   string    `json:"reviewed_at"`
	Reviewer     string    `json:"reviewer"`
	ReviewerKind string    `json:"reviewer_kind"`
	Automated    automated `json:"automated"`
	Fingerprint  string    `json:"fingerprint"`
	FingerprintV int       `json:"fingerprint_version"`
}

type summary struct {
	Cases    int            `json:"cases"`
	Reviewed int            `json:"reviewed"`
	Skipped  int            `json:"skipped"`
	Verdicts map[string]int `json:"verdicts"`
}

// JSON is a feedback file with one agent judgment per case, indented as
// agentv-review writes it: verdict, notes, target, suite, reviewer,
// reviewed_at, reviewer_kind, automated with two graders, fingerprint and
// fingerprint_version 2, and the summary.
func JSON(runID string, ids []ID) ([]byte, error) {
	verdicts := []string{"acceptable", "acceptable", "needs_improvement", "incorrect", "flaky"}
	outcomes := []string{"passed", "passed", "failed", "errored"}
	doc := struct {
		RunID         string            `json:"run_id"`
		Reviewer      string            `json:"reviewer"`
		Timestamp     string            `json:"timestamp"`
		PerCase       []entry           `json:"per_case"`
		SchemaVersion string            `json:"schema_version"`
		Tool          map[string]string `json:"tool"`
		ReviewerKind  string            `json:"reviewer_kind"`
		Summary       summary           `json:"summary"`
	}{RunID: runID, Reviewer: "bench-agent", Timestamp: "2026-07-06T12:00:00.000Z", SchemaVersion: "agentv-review/v1",
		Tool: map[string]string{"name": "agentv-review", "version": "dev"}, ReviewerKind: "agent", PerCase: make([]entry, len(ids)),
		Summary: summary{Cases: len(ids), Reviewed: len(ids), Verdicts: map[string]int{}}}
	for i, id := range ids {
		score := float64(i%101) / 100
		doc.PerCase[i] = entry{
			TestID: id.TestID, Verdict: verdicts[i%len(verdicts)], Notes: fmt.Sprintf("checked by the agent (%d)", i%7),
			Target: id.Target, Suite: id.Suite, ReviewedAt: "2026-07-06T12:00:00.000Z", Reviewer: "bench-agent", ReviewerKind: "agent",
			Automated: automated{Score: score, Outcome: outcomes[i%len(outcomes)], ExecutionStatus: "ok",
				Graders: []grader{{"llm-grader:judge", score, i%3 != 0}, {"contains:keyword", score, i%3 != 0}}},
			Fingerprint: fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(id.TestID))), FingerprintV: 2,
		}
		doc.Summary.Verdicts[doc.PerCase[i].Verdict]++
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}
