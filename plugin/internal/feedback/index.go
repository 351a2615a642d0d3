package feedback

import "agentv-review/plugin/internal/caseid"

// ID is the identity an entry records (see package caseid).
func (c *Case) ID() caseid.ID {
	return caseid.ID{EvalPath: c.EvalPath, Suite: c.Suite, TestID: c.TestID, Target: c.Target, Variant: c.Variant}
}

// setID names the case exactly in the entry: every identity part, and
// eval_path only when the other parts do not single the case out (two source
// evals with the same suite and test id).
func setID(e *Case, cs caseid.Cases, i int) {
	id := cs.ID(i)
	e.Suite, e.TestID, e.Target, e.Variant, e.EvalPath = id.Suite, id.TestID, id.Target, id.Variant, ""
	if caseid.Short(cs, i) == caseid.Position(i) {
		e.EvalPath = id.EvalPath
	}
}

// Index binds the entries of a feedback file to the cases of one run, with
// caseid.Match: an entry belongs to at most one case, a case has at most one
// entry. It is the only way entries are found and replaced, so a verdict
// always lands on the case it judged.
type Index struct {
	f      *File
	cases  caseid.Cases
	byCase []int32 // entry position of each case, -1 when unreviewed

	// Unmatched are entries that name no case of the run; Ambiguous are
	// entries (of an older file, without suite or target) that could be
	// any of several cases; Shadowed are entries of a case that a later or
	// more exact entry of the same case replaced. All keep their place in
	// the file and are written back unchanged; none counts as a review.
	Unmatched, Ambiguous, Shadowed []int
}

// Bind indexes f, which may be nil (then no case has an entry), for the
// cases cs. f must not be changed but through the index while it is used.
func Bind(f *File, cs caseid.Cases) *Index {
	if f == nil {
		f = &File{}
	}
	ix := &Index{f: f, cases: cs, byCase: make([]int32, cs.Len())}
	for i := range ix.byCase {
		ix.byCase[i] = -1
	}
	for pos := range f.PerCase {
		e := &f.PerCase[pos]
		i, candidates := caseid.Match(cs, e.ID())
		switch {
		case len(candidates) > 1:
			ix.Ambiguous = append(ix.Ambiguous, pos)
		case i < 0:
			ix.Unmatched = append(ix.Unmatched, pos)
		case ix.byCase[i] < 0:
			ix.byCase[i] = int32(pos)
		default:
			// Two entries for one case: the one naming it more exactly
			// wins, else the later one (as AgentV's last row wins).
			old := &f.PerCase[ix.byCase[i]]
			if exactness(old, cs.ID(i)) > exactness(e, cs.ID(i)) {
				ix.Shadowed = append(ix.Shadowed, pos)
				continue
			}
			ix.Shadowed = append(ix.Shadowed, int(ix.byCase[i]))
			ix.byCase[i] = int32(pos)
		}
	}
	return ix
}

// exactness counts the identity parts an entry names that equal the case's.
func exactness(e *Case, id caseid.ID) int {
	n := 0
	for _, p := range [][2]string{{e.Suite, id.Suite}, {e.Target, id.Target}, {e.Variant, id.Variant}, {e.EvalPath, id.EvalPath}} {
		if p[0] != "" && p[0] == p[1] {
			n++
		}
	}
	return n
}

// File is the indexed file.
func (ix *Index) File() *File { return ix.f }

// Entry returns the entry of case i, nil when it has none.
func (ix *Index) Entry(i int) *Case {
	if p := ix.byCase[i]; p >= 0 {
		return &ix.f.PerCase[p]
	}
	return nil
}

// Reviewed counts the cases that have an entry.
func (ix *Index) Reviewed() int {
	n := 0
	for _, p := range ix.byCase {
		if p >= 0 {
			n++
		}
	}
	return n
}

// Put records e as the entry of case i: it replaces the case's entry (an
// older, less exact one included) or is appended. Its identity is set from
// the case, so the file names the case exactly from then on.
func (ix *Index) Put(i int, e Case) {
	setID(&e, ix.cases, i)
	if p := ix.byCase[i]; p >= 0 {
		ix.f.PerCase[p] = e
		return
	}
	ix.f.PerCase = append(ix.f.PerCase, e)
	ix.byCase[i] = int32(len(ix.f.PerCase) - 1)
}

// Verdicts counts the verdicts of the cases that have an entry.
func (ix *Index) Verdicts() map[string]int {
	counts := map[string]int{}
	for _, p := range ix.byCase {
		if p >= 0 {
			counts[ix.f.PerCase[p].Verdict]++
		}
	}
	return counts
}

// Bound lists the entries that belong to a case, in file order.
func (ix *Index) Bound() []Bound {
	caseAt := make(map[int32]int, len(ix.byCase))
	for i, p := range ix.byCase {
		if p >= 0 {
			caseAt[p] = i
		}
	}
	var out []Bound
	for p := range ix.f.PerCase {
		if i, ok := caseAt[int32(p)]; ok {
			out = append(out, Bound{Case: i, Entry: ix.f.PerCase[p]})
		}
	}
	return out
}
