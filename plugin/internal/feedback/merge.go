package feedback

import "iter"

// caseKey identifies a per_case entry: test_id alone is not unique in a run
// (several targets and variants run the same test).
type caseKey struct{ testID, target, variant string }

func keyOf(c *Case) caseKey { return caseKey{c.TestID, c.Target, c.Variant} }

// Upsert replaces the entry of f with the same (test_id, target, variant)
// as c, or appends c. Only an exact key match is replaced: an existing
// entry without target is not replaced by one with a target.
func Upsert(f *File, c Case) {
	k := keyOf(&c)
	for i := range f.PerCase {
		if keyOf(&f.PerCase[i]) == k {
			f.PerCase[i] = c
			return
		}
	}
	f.PerCase = append(f.PerCase, c)
}

// Adopt is Upsert for a case whose test id is unique in its run: an entry
// that names only that test id (AgentV's documented shape, no target or
// variant) is the same case, so it is replaced instead of left beside the
// new entry as a second verdict. With several targets or variants such an
// entry covers all of them, so callers use Upsert there.
func Adopt(f *File, c Case) {
	for i := range f.PerCase {
		if e := &f.PerCase[i]; e.TestID == c.TestID && e.Target == "" && e.Variant == "" {
			f.PerCase[i] = c
			return
		}
	}
	Upsert(f, c)
}

// Lookup returns the entry of f for a case, nil when none. An exact
// (test_id, target, variant) match wins; otherwise an entry that leaves
// target and/or variant empty matches any value there, because
// AgentV's documented files carry test_id only. Among such entries the
// first in the file wins. It scans f: for many lookups use an Index.
func Lookup(f *File, testID, target, variant string) *Case {
	return pick(func(yield func(*Case) bool) {
		for i := range f.PerCase {
			if f.PerCase[i].TestID == testID && !yield(&f.PerCase[i]) {
				return
			}
		}
	}, target, variant)
}

// Index answers Lookup for every case of a run without scanning the file
// each time (a 100k-case run against a 100k-entry file).
type Index struct {
	f    *File
	byID map[string][]int // test_id → entry positions, in file order
}

// NewIndex indexes f, which may be nil (then every lookup finds nothing).
// f must not change while the index is used.
func NewIndex(f *File) *Index {
	ix := &Index{f: f, byID: map[string][]int{}}
	if f != nil {
		for i, c := range f.PerCase {
			ix.byID[c.TestID] = append(ix.byID[c.TestID], i)
		}
	}
	return ix
}

// Lookup is Lookup(f, ...) for the indexed file.
func (ix *Index) Lookup(testID, target, variant string) *Case {
	return pick(func(yield func(*Case) bool) {
		for _, i := range ix.byID[testID] {
			if !yield(&ix.f.PerCase[i]) {
				return
			}
		}
	}, target, variant)
}

// pick chooses among the entries of one test id, in file order: an exact
// target and variant match, else the first entry whose empty target or
// variant matches any.
func pick(entries iter.Seq[*Case], target, variant string) *Case {
	var loose *Case
	for c := range entries {
		if c.Target == target && c.Variant == variant {
			return c
		}
		if loose == nil && (c.Target == "" || c.Target == target) && (c.Variant == "" || c.Variant == variant) {
			loose = c
		}
	}
	return loose
}
