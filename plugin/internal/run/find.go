package run

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/clierr"
)

const refHint = "name a case as test_id, test_id@target, test_id@target#variant or #N (its 1-based position)"

// Find resolves a case reference: "test_id", "test_id@target",
// "test_id@target#variant" or "#N" (1-based position in r.Cases). A
// test_id shared by several targets is a usage error listing their refs.
func (r *Run) Find(ref string) (*Case, error) {
	if n, ok := strings.CutPrefix(ref, "#"); ok {
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > len(r.Cases) {
			return nil, clierr.Usage(fmt.Sprintf("no case %s in run %s (it has %d)", ref, r.ID, len(r.Cases)), refHint)
		}
		return r.Cases[i-1], nil
	}
	matches := slices.Collect(r.withID(ref)) // a test id may itself contain @ or #
	if len(matches) == 0 {
		matches = r.match(ref)
	}
	switch len(matches) {
	case 0:
		return nil, clierr.Usage(fmt.Sprintf("no case %q in run %s", ref, r.ID), refHint)
	case 1:
		return matches[0], nil
	}
	refs := make([]string, len(matches))
	for i, c := range matches {
		refs[i] = r.Ref(c)
	}
	return nil, clierr.Usage(fmt.Sprintf("%q matches %d cases: %s", ref, len(matches), strings.Join(refs, ", ")), "name one of them")
}

// match resolves "test_id@target[#variant]".
func (r *Run) match(ref string) []*Case {
	rest, variant, hasVariant := cutLast(ref, "#")
	id, target, hasTarget := cutLast(rest, "@")
	if !hasTarget {
		id, target = rest, ""
	}
	var out []*Case
	for c := range r.withID(id) {
		if (!hasTarget || c.Target == target) && (!hasVariant || c.Variant == variant) {
			out = append(out, c)
		}
	}
	return out
}

// withID yields the cases with test_id id, in run order.
func (r *Run) withID(id string) iter.Seq[*Case] {
	return func(yield func(*Case) bool) {
		i, ok := r.byID[id]
		for ok && i >= 0 && yield(r.Cases[i]) {
			i = r.nextID[i]
		}
	}
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// Ref returns the shortest reference Find resolves to c: test_id when
// unique, else test_id@target, then test_id@target#variant, else #N.
func (r *Run) Ref(c *Case) string {
	var same, sameTarget, sameVariant int
	for o := range r.withID(c.TestID) {
		same++
		if o.Target == c.Target {
			sameTarget++
			if o.Variant == c.Variant {
				sameVariant++
			}
		}
	}
	switch {
	case same == 1:
		return c.TestID
	case sameTarget == 1:
		return c.TestID + "@" + c.Target
	case sameVariant == 1:
		return c.TestID + "@" + c.Target + "#" + c.Variant
	}
	return "#" + strconv.Itoa(int(c.Index)+1)
}

// Counts returns how many cases passed, failed and errored.
func (r *Run) Counts() (passed, failed, errored int) {
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
