package caseid

import (
	"bytes"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
)

// list is a Cases over a slice.
type list []ID

func (l list) Len() int    { return len(l) }
func (l list) ID(i int) ID { return l[i] }
func (l list) WithTestID(t string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, id := range l {
			if id.TestID == t && !yield(i) {
				return
			}
		}
	}
}

// walked is list as a TestIDIndex.
type walked struct{ list }

func (w walked) EachWithTestID(t string, yield func(int, ID) bool) {
	for i, id := range w.list {
		if id.TestID == t && !yield(i, id) {
			return
		}
	}
}

func TestMatcherOfIndexAllocatesNothing(t *testing.T) {
	m := NewMatcher(walked{list{{TestID: "a", Target: "x"}, {TestID: "b", Target: "x"}, {TestID: "b", Target: "y"}}})
	if n := testing.AllocsPerRun(100, func() { m.Match(ID{TestID: "b", Target: "y"}) }); n != 0 {
		t.Errorf("Matcher.Match allocates %v times", n)
	}
}

func TestShortResolvesBack(t *testing.T) {
	run := list{
		{Suite: "s1", TestID: "a", Target: "x"},
		{Suite: "s2", TestID: "a", Target: "x"},
		{Suite: "s1", TestID: "a", Target: "y"},
		{Suite: "s1", TestID: "b"},
		{Suite: "s1", TestID: "-rm", Target: "x"},
		{Suite: "s1", TestID: "a@b"},
		{Suite: "s1", TestID: "c", Variant: "v1"},
		{Suite: "s1", TestID: "c", Variant: "v2"},
		{Suite: "s1", TestID: "d", EvalPath: "e1.yaml"},
		{Suite: "s1", TestID: "d", EvalPath: "e2.yaml"},
		{TestID: "#3"},
		{Suite: "s:", TestID: "::x:"},
		{Suite: "s:", TestID: "::x:", Target: "t"},
	}
	want := []string{"s1::a@x", "s2::a", "a@y", "b", `\-rm`, `a\@b`, "c#v1", "c#v2", "#9", "#10", `\#3`, `\::x\:@`, `\::x\:@t`}
	for i := range run {
		ref := Short(run, i)
		if ref != want[i] {
			t.Errorf("Short(%d) = %q, want %q", i, ref, want[i])
		}
		if j, err := Resolve(run, ref); err != nil || j != i {
			t.Errorf("Resolve(%q) = %d, %v; want %d", ref, j, err, i)
		}
	}
}

func TestResolve(t *testing.T) {
	run := list{
		{Suite: "s1", TestID: "a", Target: "x"},
		{Suite: "s2", TestID: "a", Target: "x"},
		{Suite: "s1", TestID: "a@b"},
	}
	for ref, want := range map[string]int{"#1": 0, "#3": 2, "s2::a": 1, "s1::a@x": 0, "a@b": 2, `a\@b`: 2} {
		if got, err := Resolve(run, ref); err != nil || got != want {
			t.Errorf("Resolve(%q) = %d, %v; want %d", ref, got, err, want)
		}
	}
	var amb *AmbiguousError
	if _, err := Resolve(run, "a"); !errors.As(err, &amb) || len(amb.Candidates) != 2 || amb.Candidates[0] != "s1::a" {
		t.Errorf("Resolve(a) = %v, want ambiguous between s1::a and s2::a", err)
	}
	for _, ref := range []string{"#4", "#0", "zz", "a@y", "", `a\`, "#x", "@t"} {
		if _, err := Resolve(run, ref); err == nil {
			t.Errorf("Resolve(%q) succeeded", ref)
		}
	}
	if _, err := Resolve(run, "#4"); !errors.Is(err, ErrNoCase) {
		t.Errorf("#4 out of range: %v, want ErrNoCase", err)
	}
}

func TestMatch(t *testing.T) {
	run := list{
		{Suite: "s1", TestID: "a", Target: "x"},
		{Suite: "s2", TestID: "a", Target: "x"},
		{Suite: "s1", TestID: "b", Target: "x"},
		{Suite: "s1", TestID: "c"},
		{Suite: "s1", TestID: "c", Target: "y"},
	}
	cases := []struct {
		entry     ID
		want      int
		ambiguous bool
	}{
		{ID{TestID: "a", Target: "x", Suite: "s2"}, 1, false},
		{ID{TestID: "a", Target: "x"}, -1, true}, // an old file without suite: two cases
		{ID{TestID: "a"}, -1, true},
		{ID{TestID: "b"}, 2, false},              // AgentV's documented shape: test_id only
		{ID{TestID: "b", Target: "x"}, 2, false}, // test_id + target
		{ID{TestID: "b", Target: "z"}, -1, false},
		{ID{TestID: "c", Suite: "s1"}, 3, false}, // exact (no target) beats the loose match
		{ID{TestID: "c"}, -1, true},              // without the suite it is not exact
		{ID{TestID: "c", Target: "y"}, 4, false},
		{ID{TestID: "zz"}, -1, false},
	}
	// One Matcher for all, forwards then backwards: nothing of a match
	// stays in it for the next. So too over a TestIDIndex.
	ms := []*Matcher{NewMatcher(run), NewMatcher(walked{run})}
	for k := range 2 * len(cases) {
		tc := cases[min(k, 2*len(cases)-1-k)]
		got, cands := Match(run, tc.entry)
		if got != tc.want || (len(cands) > 1) != tc.ambiguous {
			t.Errorf("Match(%+v) = %d, %v; want %d, ambiguous %v", tc.entry, got, cands, tc.want, tc.ambiguous)
		}
		for _, m := range ms {
			if again, againCands := m.Match(tc.entry); again != got || !slices.Equal(againCands, cands) {
				t.Errorf("Matcher.Match(%+v) = %d, %v; Match says %d, %v", tc.entry, again, againCands, got, cands)
			}
		}
	}
}

// FuzzRoundTrip: every identity, with any parts named, formats to a
// reference that parses back to exactly those parts.
func FuzzRoundTrip(f *testing.F) {
	f.Add("core", "haiku", "canned", "", uint8(3))
	f.Add("s::", "-a@b#c\\", "t@#", "v#", uint8(7))
	f.Add(":", "::", ":", ":", uint8(1))
	f.Fuzz(func(t *testing.T, suite, test, target, variant string, p uint8) {
		if test == "" {
			return
		}
		parts := Parts(p) & (PartSuite | PartTarget | PartVariant)
		id := ID{Suite: suite, TestID: test, Target: target, Variant: variant}
		s := Format(id, parts)
		ref, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(Format(%+v, %b) = %q): %v", id, parts, s, err)
		}
		if ref.Pos != 0 || ref.Parts != parts || ref.ID.TestID != test ||
			(parts&PartSuite != 0 && ref.ID.Suite != suite) ||
			(parts&PartTarget != 0 && ref.ID.Target != target) ||
			(parts&PartVariant != 0 && ref.ID.Variant != variant) {
			t.Fatalf("Format(%+v, %b) = %q parses to %+v", id, parts, s, ref)
		}
		if s[0] == '-' {
			t.Fatalf("%q starts with - (a command line takes it for a flag)", s)
		}
		if want := formatByteByByte(id, parts); s != want {
			t.Fatalf("Format(%+v, %b) = %q, want %q", id, parts, s, want)
		}
	})
}

// formatByteByByte is Format as the package's documentation spells it,
// one byte at a time: the reference for escape's runs.
func formatByteByByte(id ID, parts Parts) string {
	var b strings.Builder
	esc := func(s string, first, colons bool) {
		for i := 0; i < len(s); i++ {
			ch := s[i]
			if ch == '\\' || ch == '@' || ch == '#' || ch == '-' && i == 0 && first || ch == ':' && colons && (i+1 == len(s) || s[i+1] == ':') {
				b.WriteByte('\\')
			}
			b.WriteByte(ch)
		}
	}
	if parts&PartSuite != 0 {
		esc(id.Suite, true, true)
		b.WriteString("::")
	}
	esc(id.TestID, parts&PartSuite == 0, true)
	if parts&PartTarget != 0 {
		b.WriteByte('@')
		esc(id.Target, false, false)
	}
	if parts&PartVariant != 0 {
		b.WriteByte('#')
		esc(id.Variant, false, false)
	}
	return b.String()
}

// FuzzShortests: Shortests names every case of a test id as Short does,
// on both of its paths (pairwise up to shortestsPairwise cases, counting
// beyond). Each byte of parts makes one case: its low bits pick a suite,
// a target and a variant from a few values, so identities clash often.
func FuzzShortests(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{0, 0, 9, 9, 27, 27, 1, 3, 5, 7, 11, 13, 0, 1})
	f.Add(bytes.Repeat([]byte{0, 1, 3, 9, 27, 80}, 5))
	f.Fuzz(func(t *testing.T, parts []byte) {
		vals := []string{"", "a", "b"}
		var ids list
		for _, p := range parts {
			ids = append(ids, ID{TestID: "t", Suite: vals[p%3], Target: vals[p/3%3], Variant: vals[p/9%3]})
		}
		out := make([]Shortest, len(ids))
		Shortests(ids, out)
		for i, s := range out {
			if got, want := s.Ref(ids[i], i), Short(ids, i); got != want {
				t.Fatalf("case %d of %v: Shortests names it %q, Short %q", i, ids, got, want)
			}
			if got, want := Short(ids, i), shortByResolve(ids, i); got != want {
				t.Fatalf("case %d of %v: Short names it %q, want %q", i, ids, got, want)
			}
			if got, want := ShortestOf(ids, i).Named(), Short(ids, i) != Position(i); got != want {
				t.Fatalf("case %d of %v: ShortestOf(...).Named() = %v, Short %q", i, ids, got, Short(ids, i))
			}
		}
	})
}

// shortByResolve is Short by its definition: the first part set, fewest
// first, whose reference Resolve resolves to case i, else its position.
func shortByResolve(cs list, i int) string {
	for _, p := range shortParts {
		ref := Format(cs[i], p)
		if j, err := Resolve(cs, ref); err == nil && j == i {
			return ref
		}
	}
	return Position(i)
}
