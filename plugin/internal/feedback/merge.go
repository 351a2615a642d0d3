package feedback

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
// first in the file wins.
func Lookup(f *File, testID, target, variant string) *Case {
	var loose *Case
	for i := range f.PerCase {
		c := &f.PerCase[i]
		if c.TestID != testID {
			continue
		}
		if c.Target == target && c.Variant == variant {
			return c
		}
		if loose == nil && (c.Target == "" || c.Target == target) && (c.Variant == "" || c.Variant == variant) {
			loose = c
		}
	}
	return loose
}
