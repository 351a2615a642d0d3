package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// TestWriteJSONStream: streaming a list writes the bytes writeJSON writes
// for the whole document.
func TestWriteJSONStream(t *testing.T) {
	verdict := "acceptable"
	entry := listEntry{Rank: 1, caseSummary: caseSummary{caseRef: caseRef{Ref: "a@<t>", TestID: "a", Target: "<t>"}, Outcome: "failed", Score: 0.5,
		Tier: "failed", Reasons: []triage.Reason{{Code: "failed", Text: "failed with score 0.5 & \u2028"}}}, Verdict: &verdict}
	other := listEntry{Rank: 2, caseSummary: caseSummary{caseRef: caseRef{Ref: "b", TestID: "b"}, Outcome: "passed", Score: 1, Tier: "clean", Reasons: []triage.Reason{}}}
	many := make([]listEntry, 3*inOrderChunk+7) // several chunks, written in order
	for i := range many {
		many[i] = other
		many[i].Rank, many[i].Pos = i+1, len(many)-i
	}
	for _, entries := range [][]listEntry{nil, {entry}, {entry, other, entry}, many} {
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
		if err := writeJSONStream(&got, head, len(entries), func() func(b []byte, i int) ([]byte, error) {
			return func(b []byte, i int) ([]byte, error) { return appendListEntry(b, &entries[i]) }
		}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d entries: streamed\n%s\nwant\n%s", len(entries), got.String(), want.String())
		}
	}
	if err := writeJSONStream(&bytes.Buffer{}, listReport{}, 1, func() func(b []byte, i int) ([]byte, error) {
		return func(b []byte, i int) ([]byte, error) { return appendListEntry(b, &entry) }
	}); err == nil {
		t.Error("a document whose last member is null was accepted")
	}
}

// FuzzListEntryJSON: appendListEntry writes the bytes encoding/json writes
// for the entry at its depth in list --json, and fails where it fails.
func FuzzListEntryJSON(f *testing.F) {
	f.Add(1, 7, "a@<t>", "a", "<t>", "", "s", "failed", 0.5, "failed", "", "reviewed", "failed", "failed with score 0.5 & \u2028", uint8(1), "acceptable", uint8(3))
	f.Add(2, 1, "b", "b\x00\"\\\b\f\n\r\t\x7f", "", "v\xff\xfe", "", "passed", 1.0, "clean", "P F ?", "unreviewed", "", "", uint8(0), "", uint8(0))
	f.Add(3, 0, "", "\u2029é😀", "t", "v", "s", "errored", 1e-7, "errored", "", "stale", "x", "y", uint8(3), "v", uint8(1))
	f.Add(0, -1, "", "", "", "", "", "", 1e21, "", "", "", "", "", uint8(2), "", uint8(2))
	f.Add(0, 0, "", "", "", "", "", "", -0.0, "", "", "", "", "", uint8(0), "", uint8(4))
	f.Add(0, 0, "", "", "", "", "", "", math.NaN(), "", "", "", "", "", uint8(0), "", uint8(0))
	f.Fuzz(func(t *testing.T, rank, pos int, ref, testID, target, variant, suite, outcome string, score float64,
		tier, samples, state, code, text string, reasons uint8, verdict string, shape uint8) {
		e := listEntry{Rank: rank, State: state, caseSummary: caseSummary{
			caseRef: caseRef{Pos: pos, Ref: ref, TestID: testID, Target: target, Variant: variant, Suite: suite},
			Outcome: run.Outcome(outcome), Score: score, Tier: tier, Samples: samples,
		}}
		if shape&4 == 0 { // else nil: encoding/json writes null
			e.Reasons = []triage.Reason{}
		}
		for i := range reasons % 4 {
			e.Reasons = append(e.Reasons, triage.Reason{Code: code, Text: text + strconv.Itoa(int(i))})
		}
		if shape&1 != 0 {
			e.Verdict = &verdict
		}
		if shape&2 != 0 {
			e.ReviewerKind = &code
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("    ", "  ")
		enc.SetEscapeHTML(false)
		wantErr := enc.Encode(e)
		got, err := appendListEntry(nil, &e)
		switch {
		case (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error():
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		case err == nil && string(got)+"\n" != want.String():
			t.Fatalf("wrote\n%s\nencoding/json wrote\n%s", got, want.String())
		}
	})
}

// failingWriter takes limit bytes, then fails every write.
type failingWriter struct{ limit int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errors.New("reader gone")
	}
	w.limit -= len(p)
	return len(p), nil
}

// TestListTextStopsOnWriteError: the text list returns its writer's error
// (as --json does) instead of formatting every case into a reader gone.
func TestListTextStopsOnWriteError(t *testing.T) {
	for _, limit := range []int{0, 10} {
		s := &Streams{Out: &failingWriter{limit: limit}, Err: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
		err := runList(s, listOptions{Target: filepath.Join(corpus, "core-pass-fail-error")})
		if err == nil || !strings.Contains(err.Error(), "reader gone") {
			t.Errorf("limit %d: runList = %v, want the writer's error", limit, err)
		}
	}
}
