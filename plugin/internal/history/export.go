package history

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/csvsafe"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// Row is one case judgment of one run, for spreadsheets and notebooks.
type Row struct {
	Date         string            `json:"date"` // reviewed_at, else the feedback file's timestamp
	RunID        string            `json:"run_id"`
	TestID       string            `json:"test_id"`
	Target       string            `json:"target"`
	Variant      string            `json:"variant"`
	Verdict      string            `json:"verdict"` // a verdict id, or Note for a legacy note
	Signals      []string          `json:"signals"`
	Overrides    map[string]string `json:"evaluator_overrides"`
	Notes        string            `json:"notes"`
	Score        *float64          `json:"score"`   // automated score, nil when unknown
	Outcome      string            `json:"outcome"` // automated outcome: passed, failed, errored
	Reviewer     string            `json:"reviewer"`
	ReviewerKind string            `json:"reviewer_kind"`
	CarriedFrom  string            `json:"carried_from"` // run id, "" when judged in this run
}

// Header is the CSV header, one column per Row field.
var Header = []string{"date", "run_id", "test_id", "target", "variant", "verdict", "signals",
	"evaluator_overrides", "notes", "score", "outcome", "reviewer", "reviewer_kind", "carried_from"}

// scoreColumn is the index of "score" in Header: the one cell WriteCSV
// formats itself.
var scoreColumn = slices.Index(Header, "score")

// Rows lists every legacy note and judgment of runs, given oldest first:
// run by run, a run's notes (written before its review) first, then its
// per_case entries in file order. The automated score and outcome are
// the snapshot recorded with the judgment, else the run's own.
func Rows(runs []Run) []Row {
	rows := []Row{}
	for _, r := range runs {
		for _, n := range r.Notes {
			row := Row{Date: n.Time, RunID: r.Run.ID, TestID: n.TestID, Verdict: Note, Notes: n.Note,
				Signals: []string{}, Overrides: map[string]string{}}
			if c := caseOf(r.Run, n.TestID); c != nil {
				score := c.Score
				row.Target, row.Variant, row.Score, row.Outcome = c.Target, c.Variant, &score, string(c.Outcome)
			}
			rows = append(rows, row)
		}
		if f := r.Feedback; f != nil {
			for _, j := range f.PerCase {
				row := Row{
					Date: cmp.Or(j.ReviewedAt, f.Timestamp), RunID: r.Run.ID,
					TestID: j.TestID, Target: j.Target, Variant: j.Variant, Verdict: j.Verdict,
					Signals: j.Signals, Overrides: j.EvaluatorOverrides, Notes: j.Notes,
					Reviewer: cmp.Or(j.Reviewer, f.Reviewer), ReviewerKind: cmp.Or(j.ReviewerKind, f.ReviewerKind),
				}
				if row.Signals == nil {
					row.Signals = []string{}
				}
				if row.Overrides == nil {
					row.Overrides = map[string]string{}
				}
				if j.CarriedFrom != nil {
					row.CarriedFrom = j.CarriedFrom.RunID
				}
				if a := j.Automated; a != nil {
					row.Score, row.Outcome = a.Score, a.Outcome
				} else if c := lookupCase(r, j); c != nil {
					score := c.Score
					row.Score, row.Outcome = &score, string(c.Outcome)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// lookupCase is the case of r an entry judges, nil when none (or when an
// older entry could be any of several).
func lookupCase(r Run, j feedback.Case) *run.Case {
	if i, _ := caseid.Match(r.Run.CaseIDs(), j.ID()); i >= 0 {
		return r.Run.Cases[i]
	}
	return nil
}

// WriteCSV writes rows as CSV with Header. Signals are joined by ";",
// grader overrides are one "type:name: note" line each. Every text cell
// comes from a run or feedback file, so each is neutralised against
// spreadsheet formula injection (csvsafe.Cell); the score is the
// program's own formatting of a number.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		score := ""
		if r.Score != nil {
			score = strconv.FormatFloat(*r.Score, 'g', -1, 64)
		}
		overrides := make([]string, 0, len(r.Overrides))
		for _, k := range slices.Sorted(maps.Keys(r.Overrides)) {
			overrides = append(overrides, k+": "+r.Overrides[k])
		}
		rec := []string{r.Date, r.RunID, r.TestID, r.Target, r.Variant, r.Verdict, strings.Join(r.Signals, ";"),
			strings.Join(overrides, "\n"), r.Notes, score, r.Outcome, r.Reviewer, r.ReviewerKind, r.CarriedFrom}
		for i := range rec {
			if i != scoreColumn {
				rec[i] = csvsafe.Cell(rec[i])
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes rows as JSON Lines, one object per row.
func WriteJSONL(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
