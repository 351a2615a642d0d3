package history

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

func TestCSVRoundTrip(t *testing.T) {
	score := 0.45
	tricky := "commas, \"quotes\", a\nnewline, CRLF\r\nand Unicode: テスト ü 👩‍💻 עברית"
	rows := []Row{{
		Date: "2026-11-30T10:00:00.000Z", RunID: "run,1", TestID: "odd:id*with?chars", Target: "agent \"v1\"",
		Verdict: feedback.Incorrect, Signals: []string{"false_positive", "grader_miscalibration"},
		Overrides: map[string]string{"contains:x": tricky, "a:b": "first"},
		Notes:     tricky, Score: &score, Outcome: "failed", Reviewer: "Zoë", ReviewerKind: feedback.Human,
	}}
	var b bytes.Buffer
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not read back: %v\n%s", err, b.String())
	}
	if len(recs) != 2 || !slices.Equal(recs[0], Header) {
		t.Fatalf("records %q", recs)
	}
	got := map[string]string{}
	for i, h := range Header {
		got[h] = recs[1][i]
	}
	// encoding/csv reads a quoted \r\n as \n: that is the only change.
	want := strings.ReplaceAll(tricky, "\r\n", "\n")
	if got["notes"] != want {
		t.Errorf("notes = %q, want %q", got["notes"], want)
	}
	if got["evaluator_overrides"] != "a:b: first\ncontains:x: "+want {
		t.Errorf("overrides = %q", got["evaluator_overrides"])
	}
	for field, w := range map[string]string{"run_id": "run,1", "target": "agent \"v1\"", "signals": "false_positive;grader_miscalibration",
		"score": "0.45", "reviewer": "Zoë", "test_id": "odd:id*with?chars"} {
		if got[field] != w {
			t.Errorf("%s = %q, want %q", field, got[field], w)
		}
	}
}

func TestJSONLOneObjectPerLine(t *testing.T) {
	rows := []Row{{TestID: "a", Notes: "x\ny <b>", Signals: []string{}, Overrides: map[string]string{}}, {TestID: "b", Signals: []string{}, Overrides: map[string]string{}}}
	var b bytes.Buffer
	if err := WriteJSONL(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "<b>") {
		t.Fatalf("lines %q", lines)
	}
	var back Row
	if err := json.Unmarshal([]byte(lines[0]), &back); err != nil || back.Notes != rows[0].Notes {
		t.Errorf("line 1 reads back as %+v (%v)", back, err)
	}
}

func TestRowsFallBackToTheRun(t *testing.T) {
	r := &run.Run{ID: "r1", Cases: []*run.Case{{TestID: "a", Target: "t", Score: 0.5, Outcome: run.Failed}}}
	f := &feedback.File{RunID: "r1", Reviewer: "ana", Timestamp: "2026-11-30T10:00:00Z", PerCase: []feedback.Case{{TestID: "a", Verdict: feedback.Flaky}}}
	rows := Rows([]Run{{Run: r, Feedback: f, Notes: []feedback.LegacyNote{{TestID: "a", Note: "old", Time: "2026-01-01"}}}})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the judgment and the note", len(rows))
	}
	n, j := rows[0], rows[1]
	if j.Date != f.Timestamp || j.Reviewer != "ana" || j.Score == nil || *j.Score != 0.5 || j.Outcome != "failed" {
		t.Errorf("judgment row %+v: want the file's date and reviewer and the run's score", j)
	}
	if n.Verdict != Note || n.Target != "t" || n.Notes != "old" || n.Date != "2026-01-01" {
		t.Errorf("note row %+v", n)
	}
}

// TestCSVNeutralisesEveryTextCell fills every text field of a row with a
// formula: each cell but the score comes out neutralised, and a negative
// score stays a number.
func TestCSVNeutralisesEveryTextCell(t *testing.T) {
	score := -0.5
	for _, f := range []string{"=1+1", "+1", "-2", "@SUM(A1)", "\t=x", "\r=x", " =HYPERLINK(\"x\")", `"=x`, `' @x`} {
		rows := []Row{{Date: f, RunID: f, TestID: f, Target: f, Variant: f, Verdict: f, Signals: []string{f},
			Overrides: map[string]string{f: f}, Notes: f, Score: &score, Outcome: f, Reviewer: f, ReviewerKind: f, CarriedFrom: f}}
		var b bytes.Buffer
		if err := WriteCSV(&b, rows); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("%q: %v %q", f, err, recs)
		}
		for i, cell := range recs[1] {
			if Header[i] == "score" {
				if cell != "-0.5" {
					t.Errorf("score cell %q", cell)
				}
				continue
			}
			if !strings.HasPrefix(cell, "'"+f) {
				t.Errorf("%s cell %q is not neutralised", Header[i], cell)
			}
		}
	}
}
