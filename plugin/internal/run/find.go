package run

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
)

// ID is the case's identity (see package caseid).
func (c *Case) ID() caseid.ID {
	return caseid.ID{EvalPath: c.EvalPath, Suite: c.Suite, TestID: c.TestID, Target: c.Target, Variant: c.Variant}
}

// CaseIDs is the run's cases as a caseid.Cases, for resolving references
// and matching feedback entries. It is safe for concurrent use, and so are
// the Cases it returns.
func (r *Run) CaseIDs() caseid.Cases {
	r.idsMu.Lock()
	if len(r.ids.next) != r.slots() && !r.compact.indexed() {
		r.ids = newIDIndex(r.slots(), r.slotTestID)
	}
	r.idsMu.Unlock()
	return caseIDs{r}
}

// KeepIndex makes a compact read (Options.Compact) keep the index of its
// cases by test id, which it builds to deduplicate rows, for CaseIDs: a
// caller that binds feedback then has it without a second index built
// after the read. Call it before Read.
func (r *Run) KeepIndex() { r.keepIndex = true }

type caseIDs struct{ r *Run }

func (c caseIDs) Len() int           { return c.r.Len() }
func (c caseIDs) ID(i int) caseid.ID { return c.r.idAt(i) }

// Len is the number of cases in the run: under Read(keep), those not
// kept too.
func (r *Run) Len() int {
	if r.compact != nil {
		return r.compact.len()
	}
	if r.keep != nil {
		return len(r.firsts)
	}
	return len(r.Cases)
}

// Compact tells whether Read kept no Case (Options.Compact with no keep):
// the cases are then made one at a time by CaseAt, CaseViewAt or At.
func (r *Run) Compact() bool { return r.compact != nil }

// position is the position of r.Cases[slot] among all cases.
func (r *Run) position(slot int32) int {
	if r.keep == nil {
		return int(slot)
	}
	return int(r.Cases[slot].Index)
}

// At returns the case at position i, nil when Read(keep) did not keep it.
func (r *Run) At(i int) *Case {
	if r.compact != nil {
		c := new(Case)
		r.CaseAt(i, c)
		return c
	}
	if r.keep == nil {
		return r.Cases[i]
	}
	j, ok := slices.BinarySearchFunc(r.Cases, int32(i), func(c *Case, i int32) int { return cmp.Compare(c.Index, i) })
	if !ok {
		return nil
	}
	return r.Cases[j]
}

// WithTestID yields the indexes of the cases with that test id, in run order.
func (c caseIDs) WithTestID(id string) iter.Seq[int] {
	return func(yield func(int) bool) {
		c.EachWithTestID(id, func(i int, _ caseid.ID) bool { return yield(i) })
	}
}

// EachWithTestID calls yield with the index and identity of each case
// with that test id, in run order, until it returns false
// (caseid.TestIDIndex: a Matcher of the run's cases allocates nothing
// per match). The identity's test id is id itself.
func (c caseIDs) EachWithTestID(id string, yield func(int, caseid.ID) bool) {
	r := c.r
	if r.compact.indexed() {
		r.compact.eachWithTestID(id, func(i int32) bool { return yield(int(i), r.slotID(i, id)) })
		return
	}
	for i := r.ids.first(id, r.slotTestID); i >= 0; i = r.ids.next[i] {
		if !yield(r.position(i), r.slotID(i, id)) {
			return
		}
	}
}

// Find resolves a case reference (see package caseid for the syntax; #N is
// the case's position in the run). Errors are usage errors with a hint.
func (r *Run) Find(ref string) (*Case, error) {
	i, err := caseid.Resolve(r.CaseIDs(), ref)
	if err == nil {
		if c := r.At(i); c != nil {
			return c, nil
		}
		return nil, &NotKeptError{Pos: i}
	}
	if amb, ok := errors.AsType[*caseid.AmbiguousError](err); ok {
		return nil, clierr.Usage(amb.Error(), "name one of them")
	}
	if errors.Is(err, caseid.ErrNoCase) {
		return nil, clierr.Usage(fmt.Sprintf("no case %q in run %s (it has %d)", ref, r.ID, r.Len()), caseid.Hint)
	}
	return nil, clierr.Usage(err.Error(), caseid.Hint)
}

// Ref returns the shortest reference Find resolves to c.
func (r *Run) Ref(c *Case) string { return caseid.Short(r.CaseIDs(), int(c.Index)) }

// NotKeptError is Find's error for a position (#N) whose case
// Read(keep) did not keep; reopen the run keeping that case's test id
// (see TestIDAt).
type NotKeptError struct{ Pos int }

func (e *NotKeptError) Error() string {
	return fmt.Sprintf("case %s was not kept when the run was read", caseid.Position(e.Pos))
}

// Counts returns how many cases passed, failed and errored.
func (r *Run) Counts() (passed, failed, errored int) {
	if t := r.counts; t != nil {
		return t[0], t[1], t[2]
	}
	for _, c := range r.Cases {
		switch c.Outcome {
		case Passed:
			passed++
		case Failed:
			failed++
		case Errored:
			errored++
		}
	}
	return passed, failed, errored
}
