package feedback

import (
	"time"

	"agentv-review/plugin/internal/caseid"
)

// Bound is an entry with the index of the case it judges.
type Bound struct {
	Case  int
	Entry Case
}

// Commit is one write of a run's feedback: the guided review's at its end,
// set's and apply's at once. It is the one path by which feedback.json
// changes.
type Commit struct {
	Paths Paths
	Cases caseid.Cases // the run's cases
	RunID string
	// Base is the current feedback file read under the lock, nil when there
	// is none (a legacy-shaped file, or one of another run, is archived and
	// replaced).
	Base    *File
	Entries []Bound
	// Top sets the top-level fields (reviewer, reviewer_kind, scope,
	// overall_notes) on the file about to be written; nil keeps Base's.
	Top     func(f *File)
	Skipped int // cases skipped by the session that writes, -1 keeps Base's count
	Tool    Tool
	Now     time.Time
}

// Merged is the file Write would write: c.Entries merged into a copy of
// c.Base through an Index, so each lands on its case, replacing that
// case's earlier entry, with the top-level fields and summary set.
func (c Commit) Merged() *File {
	f := &File{RunID: c.RunID}
	var base []Case
	if c.Base != nil && c.Base.RunID == c.RunID { // another run's file is archived, never merged into
		cp := *c.Base
		f, base = &cp, c.Base.PerCase
	}
	// Room for every entry, so that putting them never grows the copy.
	f.PerCase = append(make([]Case, 0, len(base)+len(c.Entries)), base...)
	ix := Bind(f, c.Cases)
	ix.PutAll(c.Entries)
	if c.Top != nil {
		c.Top(f)
	}
	tool := c.Tool
	f.Timestamp, f.SchemaVersion, f.Tool = FormatTime(c.Now), SchemaVersion, &tool
	sum := &Summary{Cases: c.Cases.Len(), Reviewed: ix.Reviewed(), Skipped: c.Skipped, Verdicts: ix.Verdicts()}
	if c.Skipped < 0 {
		sum.Skipped = 0
		if c.Base != nil && c.Base.Summary != nil {
			sum.Skipped = c.Base.Summary.Skipped
		}
	}
	f.Summary = sum
	return f
}

// Write archives the current file and writes Merged durably, naming the
// archived copy as previous. The caller holds the lock. It returns the
// file written and the archived copy's path ("" when there was no file).
func (c Commit) Write() (*File, string, error) {
	f := c.Merged()
	archived, err := Archive(c.Paths)
	if err != nil {
		return nil, "", err
	}
	f.Previous = archived
	if archived == "" && c.Base != nil {
		f.Previous = c.Base.Previous
	}
	if err := Write(c.Paths.Feedback, f); err != nil {
		return nil, "", err
	}
	return f, archived, nil
}
