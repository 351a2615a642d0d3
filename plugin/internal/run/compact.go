package run

import (
	"math"
	"slices"
	"strings"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
)

// compactCases is how Read keeps the cases under Options.Compact: a few
// dozen bytes a case instead of a Case. The test ids lie back to back in
// one string; what many cases share (suite, target, variant, statuses and
// the grader and sample outlines) is one shape, stored once. Rows are
// deduplicated by the tally's hashes (see tally): every row is added,
// then each case's winning row is moved to the case's position.
type compactCases struct {
	ids    strings.Builder // test ids of every row, until finished
	all    string          // ids, once finished, without the room the builder grew
	rows   []compactRow    // by position once finished; by row until then
	scores []float64       // beside rows
	lines  []uint32        // the line of each row, until finished

	shapes  []Case // a case of each shape, with no test id, score or position
	shapeOf map[shapeKey]uint32
}

// compactRow is one case: its test id ids[start:end] and its shape.
type compactRow struct{ start, end, shape uint32 }

// shapeKey is what a Case holds besides its test id, score and position,
// made comparable: outline slices are compared by their first element
// (outlines are shared, see Options.Outline), so the same outline from
// two parse workers is two shapes, which only costs a little room.
type shapeKey struct {
	suite, target, variant, status, stage string
	outcome                               Outcome
	workspace                             bool
	graders                               *GraderSummary
	samples                               *SampleSummary
	nGraders, nSamples                    int
}

func newCompactCases() *compactCases {
	return &compactCases{shapeOf: map[shapeKey]uint32{}}
}

// add adds the case of the row at line (under Options.Outline).
func (cc *compactCases) add(c *Case, line int, rel string) error {
	start := cc.ids.Len()
	if int64(start)+int64(len(c.TestID)) > math.MaxUint32 {
		return clierr.Input(rel, line, "test_id", "the run's test ids are longer than a compact read holds (4 GiB in all)", "split the run")
	}
	cc.ids.WriteString(c.TestID)
	sh := shapeKey{
		suite: c.Suite, target: c.Target, variant: c.Variant, status: c.ExecutionStatus, stage: c.FailureStage,
		outcome: c.Outcome, workspace: c.HasWorkspace, nGraders: len(c.Graders), nSamples: len(c.Samples),
	}
	if len(c.Graders) > 0 {
		sh.graders = &c.Graders[0]
	}
	if len(c.Samples) > 0 {
		sh.samples = &c.Samples[0]
	}
	k, ok := cc.shapeOf[sh]
	if !ok {
		k = uint32(len(cc.shapes))
		cc.shapes = append(cc.shapes, Case{
			Suite: c.Suite, Target: c.Target, Variant: c.Variant, ExecutionStatus: c.ExecutionStatus, FailureStage: c.FailureStage,
			Outcome: c.Outcome, HasWorkspace: c.HasWorkspace, Graders: c.Graders, Samples: c.Samples,
		})
		cc.shapeOf[sh] = k
	}
	cc.rows = append(cc.rows, compactRow{start: uint32(start), end: uint32(cc.ids.Len()), shape: k})
	cc.scores = append(cc.scores, c.Score)
	cc.lines = append(cc.lines, uint32(line))
	return nil
}

// finish keeps one row per case, at the case's position: cases[p] is
// the first and last line of the case at position p (ascending by first
// line). A case's last row is never before its position, and rows are
// moved in position order, so no row is overwritten before it is moved.
func (cc *compactCases) finish(cases [][2]uint32) {
	for p, c := range cases {
		w, _ := slices.BinarySearch(cc.lines, c[1])
		cc.rows[p], cc.scores[p] = cc.rows[w], cc.scores[w]
	}
	// Copies without the room append grew: they are most of what is left.
	cc.rows, cc.scores = slices.Clone(cc.rows[:len(cases)]), slices.Clone(cc.scores[:len(cases)])
	cc.all = strings.Clone(cc.ids.String())
	cc.ids, cc.lines, cc.shapeOf = strings.Builder{}, nil, nil
}

func (cc *compactCases) len() int { return len(cc.rows) }

func (cc *compactCases) testID(i int) string {
	row := cc.rows[i]
	return cc.all[row.start:row.end]
}

// fill sets *c to the case at position i. It has no Loc, Error,
// Duplicates or OverwrittenBy (and, under Options.Outline, no EvalPath):
// it is not one for Detail.
func (cc *compactCases) fill(i int, c *Case) {
	*c = cc.shapes[cc.rows[i].shape]
	c.Index, c.TestID, c.Score = int32(i), cc.testID(i), cc.scores[i]
}

// id is the identity of the case at position i, made without a Case.
func (cc *compactCases) id(i int) caseid.ID {
	sh := &cc.shapes[cc.rows[i].shape]
	return caseid.ID{Suite: sh.Suite, TestID: cc.testID(i), Target: sh.Target, Variant: sh.Variant}
}

// CaseAt sets *c to the case at position pos, as At gives it, without
// making one: a loop over every case of a compact read needs one Case.
// pos must be a case Read kept.
func (r *Run) CaseAt(pos int, c *Case) {
	if r.compact != nil {
		r.compact.fill(pos, c)
		return
	}
	*c = *r.At(pos)
}

// idAt is the identity of the case at position i.
func (r *Run) idAt(i int) caseid.ID {
	if r.compact != nil {
		return r.compact.id(i)
	}
	return r.At(i).ID()
}

// slots is how many cases the test_id index covers: r.Cases, or under
// Options.Compact every case.
func (r *Run) slots() int {
	if r.compact != nil {
		return r.compact.len()
	}
	return len(r.Cases)
}

// slotTestID is the test id of slot i of the test_id index.
func (r *Run) slotTestID(i int) string {
	if r.compact != nil {
		return r.compact.testID(i)
	}
	return r.Cases[i].TestID
}
