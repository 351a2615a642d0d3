package app

import (
	"bytes"
	"slices"
	"testing"

	"agentv-review/plugin/internal/triage"
)

// TestWriteJSONStream: streaming a list writes the bytes writeJSON writes
// for the whole document.
func TestWriteJSONStream(t *testing.T) {
	verdict := "acceptable"
	entry := listEntry{Rank: 1, caseSummary: caseSummary{caseRef: caseRef{Ref: "a@<t>", TestID: "a", Target: "<t>"}, Outcome: "failed", Score: 0.5,
		Tier: "failed", Reasons: []triage.Reason{{Code: "failed", Text: "failed with score 0.5 & \u2028"}}}, Verdict: &verdict}
	other := listEntry{Rank: 2, caseSummary: caseSummary{caseRef: caseRef{Ref: "b", TestID: "b"}, Outcome: "passed", Score: 1, Tier: "clean", Reasons: []triage.Reason{}}}
	for _, entries := range [][]listEntry{nil, {entry}, {entry, other, entry}} {
		whole := listReport{RunID: "run \"1\"", Scope: "all", Total: 3, Cases: entries}
		if whole.Cases == nil {
			whole.Cases = []listEntry{}
		}
		var want, got bytes.Buffer
		if err := writeJSON(&want, whole); err != nil {
			t.Fatal(err)
		}
		head := whole
		head.Cases = []listEntry{}
		if err := writeJSONStream(&got, head, slices.Values(entries)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d entries: streamed\n%s\nwant\n%s", len(entries), got.String(), want.String())
		}
	}
	if err := writeJSONStream(&bytes.Buffer{}, listReport{}, slices.Values([]listEntry{entry})); err == nil {
		t.Error("a document whose last member is null was accepted")
	}
}
