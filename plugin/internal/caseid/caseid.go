// Package caseid is the one definition of which case of a run something is
// about: a verdict, a list row, a reference typed on the command line, an
// earlier run's judgment. Every package that names or matches cases (run,
// feedback, review, history, triage, app) goes through it.
//
// # Identity
//
// A case is identified by the fields AgentV dedupes result rows on:
// eval_path, suite, test_id, target and variant (the last row with a key
// wins). In AgentV 4.42.4 eval_path is the per-test task bundle, so it
// never tells two cases of one test apart; it only matters when two source
// evals share a suite and test id.
//
// # References
//
// A reference names a case on the command line and in output:
//
//	[SUITE::]TEST_ID[@TARGET][#VARIANT]     e.g. haiku, haiku@canned, core::haiku@canned#v2
//	#N                                      the case at position N (1-based) in the run
//
// Inside a part, a backslash takes the next character literally, so a test
// id holding @, #, : or \ is written with those escaped (a\@b), and one that
// starts with - (which a command line would take for a flag) as \-id. A part
// written with nothing after its separator means "empty" (haiku@ is the
// haiku case that has no target). A reference that matches nothing as
// parsed is tried once more as a literal test id, so an unescaped "a@b"
// still finds test a@b when no test a has target b.
//
// #N is the case's position in the run after AgentV's dedupe (manifest
// order of first appearance). It never depends on review order, filters or
// verdicts: `list` prints it in its first column whatever it filters or
// sorts, and `show`, `set` and the guided review's "jump to" accept it.
//
// The shortest reference of a case (Short) names the test id alone when it
// is unique in the run, then adds the target, the suite, the variant — the
// fewest parts that single the case out — and is #N only when even all of
// them do not (two source evals with the same suite and test id).
package caseid

import (
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// ID is a case's identity.
type ID struct {
	EvalPath string `json:"eval_path,omitempty"`
	Suite    string `json:"suite,omitempty"`
	TestID   string `json:"test_id"`
	Target   string `json:"target,omitempty"`
	Variant  string `json:"variant,omitempty"`
}

// AcrossRuns is the identity that names the same case in another run of
// the same evals: eval_path is left out (in AgentV 4.42.4 it is a path
// inside the run).
func (id ID) AcrossRuns() ID {
	id.EvalPath = ""
	return id
}

// Cases is an indexed list of case identities, such as a run's cases.
type Cases interface {
	Len() int
	// ID returns the identity of case i (0-based).
	ID(i int) ID
	// WithTestID yields the indexes of the cases with that test id, in order.
	WithTestID(testID string) iter.Seq[int]
}

// TestIDIndex is implemented by Cases that walk the cases of a test id
// without making an iterator, each with its identity: a Matcher of such
// Cases allocates nothing per match, nor asks ID for a copy of what it
// only compares.
type TestIDIndex interface {
	// EachWithTestID calls yield with the index and the identity of
	// each case with that test id, in order, until yield returns false.
	// The identity's strings may be valid only during the call.
	EachWithTestID(testID string, yield func(int, ID) bool)
}

// Parts says which parts of an ID a reference names (the test id always).
type Parts uint8

const (
	PartSuite Parts = 1 << iota
	PartTarget
	PartVariant
)

// Ref is a parsed reference.
type Ref struct {
	Pos     int   // > 0 for "#N"
	ID      ID    // the parts named (EvalPath is never named)
	Parts   Parts // which of suite, target and variant were named
	Literal string
}

// Hint is the one-line syntax reminder for errors about references.
const Hint = "name a case as TEST_ID, TEST_ID@TARGET, SUITE::TEST_ID[@TARGET][#VARIANT] or #N (its position, the first column of 'agentv review list'); escape @ # : \\ and a leading - with \\"

// Parse parses a reference.
func Parse(s string) (Ref, error) {
	if n, ok := strings.CutPrefix(s, "#"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		pos, err := strconv.Atoi(n)
		if err != nil || pos < 1 {
			return Ref{}, fmt.Errorf("%q is not a case position (they start at #1)", s)
		}
		return Ref{Pos: pos, Literal: s}, nil
	}
	ref := Ref{Literal: s}
	var parts [4]strings.Builder // suite, test, target, variant
	cur := 1
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\':
			if i+1 == len(s) {
				return Ref{}, fmt.Errorf("%q ends with a lone \\", s)
			}
			i++
			parts[cur].WriteByte(s[i])
		case ch == ':' && cur == 1 && ref.Parts == 0 && i+1 < len(s) && s[i+1] == ':' && parts[0].Len() == 0:
			parts[0].WriteString(parts[1].String())
			parts[1].Reset()
			ref.Parts |= PartSuite
			i++
		case ch == '@' && cur == 1:
			cur, ref.Parts = 2, ref.Parts|PartTarget
		case ch == '#' && cur <= 2:
			cur, ref.Parts = 3, ref.Parts|PartVariant
		default:
			parts[cur].WriteByte(ch)
		}
	}
	ref.ID = ID{Suite: parts[0].String(), TestID: parts[1].String(), Target: parts[2].String(), Variant: parts[3].String()}
	if ref.ID.TestID == "" {
		return Ref{}, fmt.Errorf("%q names no test id", s)
	}
	return ref, nil
}

// Format writes id as a reference naming the given parts.
func Format(id ID, parts Parts) string {
	var b strings.Builder
	b.Grow(len(id.Suite) + len(id.TestID) + len(id.Target) + len(id.Variant) + 4) // enough unless escaped
	if parts&PartSuite != 0 {
		escape(&b, id.Suite, true, true)
		b.WriteString("::")
	}
	escape(&b, id.TestID, parts&PartSuite == 0, true)
	if parts&PartTarget != 0 {
		b.WriteByte('@')
		escape(&b, id.Target, false, false)
	}
	if parts&PartVariant != 0 {
		b.WriteByte('#')
		escape(&b, id.Variant, false, false)
	}
	return b.String()
}

// escape writes one part of a reference: \, @ and # always escaped, a
// leading - in the first part, and in the suite and test id a : that could
// be read as (part of) the suite separator. The bytes between escapes are
// written as one string (a part rarely has any).
func escape(b *strings.Builder, s string, first, colons bool) {
	if first && strings.HasPrefix(s, "-") {
		b.WriteByte('\\') // the - is written with the bytes after it
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if ch := s[i]; !escapable[ch] || ch == ':' && !(colons && (i+1 == len(s) || s[i+1] == ':')) {
			continue
		}
		b.WriteString(s[start:i])
		b.WriteByte('\\')
		start = i // the byte is written with the bytes after it
	}
	b.WriteString(s[start:])
}

// escapable are the bytes escape may escape after a part's first byte.
var escapable = [256]bool{'\\': true, '@': true, '#': true, ':': true}

// Full is the reference naming every part of id that is set.
func Full(id ID) string {
	var p Parts
	if id.Suite != "" {
		p |= PartSuite
	}
	if id.Target != "" {
		p |= PartTarget
	}
	if id.Variant != "" {
		p |= PartVariant
	}
	return Format(id, p)
}

// Position is the "#N" reference of case i.
func Position(i int) string { return "#" + strconv.Itoa(i+1) }

// matches reports whether id has the parts ref names.
func (ref Ref) matches(id ID) bool {
	return (ref.Parts&PartSuite == 0 || id.Suite == ref.ID.Suite) &&
		(ref.Parts&PartTarget == 0 || id.Target == ref.ID.Target) &&
		(ref.Parts&PartVariant == 0 || id.Variant == ref.ID.Variant)
}

// ErrNoCase is wrapped by Resolve's error when nothing matches.
var ErrNoCase = errors.New("no such case")

// AmbiguousError is Resolve's error when a reference matches several cases.
type AmbiguousError struct {
	Ref        string
	Candidates []string // the shortest reference of each match
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d cases: %s", e.Ref, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

// Resolve finds the one case a reference names. Its errors wrap ErrNoCase
// or are an *AmbiguousError.
func Resolve(cs Cases, s string) (int, error) {
	ref, err := Parse(s)
	if err != nil {
		return -1, err
	}
	if ref.Pos > 0 {
		if ref.Pos > cs.Len() {
			return -1, fmt.Errorf("%w: %s (the run has %d)", ErrNoCase, s, cs.Len())
		}
		return ref.Pos - 1, nil
	}
	var found []int
	for i := range cs.WithTestID(ref.ID.TestID) {
		if ref.matches(cs.ID(i)) {
			found = append(found, i)
		}
	}
	if len(found) == 0 && ref.Literal != ref.ID.TestID {
		for i := range cs.WithTestID(ref.Literal) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return -1, fmt.Errorf("%w: %q", ErrNoCase, s)
	case 1:
		return found[0], nil
	}
	amb := &AmbiguousError{Ref: s}
	for _, i := range found {
		amb.Candidates = append(amb.Candidates, Short(cs, i))
	}
	return -1, amb
}

// shortParts are the part sets Short tries, fewest first.
var shortParts = [...]Parts{0, PartTarget, PartSuite, PartVariant, PartSuite | PartTarget, PartTarget | PartVariant, PartSuite | PartVariant, PartSuite | PartTarget | PartVariant}

// Short is the shortest reference that Resolve resolves to case i.
func Short(cs Cases, i int) string { return ShortestOf(cs, i).Ref(cs.ID(i), i) }

// ShortestOf is which parts the shortest reference to case i names.
func ShortestOf(cs Cases, i int) Shortest {
	// taken bit k: another case has the parts shortParts[k] names. One
	// pass over the test id's cases, collecting none of them.
	id := cs.ID(i)
	var taken uint8
	walker(cs)(id.TestID, func(j int, o ID) bool {
		if j != i {
			taken |= clashes(id, o)
		}
		return true
	})
	return shortestOf(taken)
}

// clashes has bit k set when o has the parts of id that shortParts[k]
// names (o has id's test id).
func clashes(id, o ID) uint8 {
	var same Parts
	if id.Suite == o.Suite {
		same |= PartSuite
	}
	if id.Target == o.Target {
		same |= PartTarget
	}
	if id.Variant == o.Variant {
		same |= PartVariant
	}
	return clashesOf[same]
}

// clashesOf[same] is clashes of two identities whose equal parts are
// same: part set k clashes when it names no part that differs.
var clashesOf = func() (t [(PartSuite | PartTarget | PartVariant) + 1]uint8) {
	for same := range t {
		for k, p := range shortParts {
			if p&^Parts(same) == 0 {
				t[same] |= 1 << k
			}
		}
	}
	return t
}()

// Shortest is which parts a case's shortest reference names (see Short):
// one byte a case, so a run can hold every case's (Shortests).
type Shortest uint8

// byPosition is the Shortest of a case no part set singles out.
const byPosition = Shortest(len(shortParts))

// shortestOf is the Shortest of a case whose taken part sets are taken.
func shortestOf(taken uint8) Shortest {
	for k := range shortParts {
		if taken&(1<<k) == 0 {
			return Shortest(k)
		}
	}
	return byPosition
}

// Named reports whether s names a case by its identity, not by its
// position: whether some of its parts single it out.
func (s Shortest) Named() bool { return s != byPosition }

// Ref is the reference s names for id, the identity of case i.
func (s Shortest) Ref(id ID, i int) string {
	if s == byPosition {
		return Position(i)
	}
	return Format(id, shortParts[s])
}

// Shortests sets out[k] to the Shortest of the case whose identity is
// ids[k], where ids are every case of a run with one test id: what Short
// gives, for all of them at once in time linear in len(ids) (Short of
// each would take len(ids)² in all).
func Shortests(ids []ID, out []Shortest) {
	if len(ids) <= shortestsPairwise {
		var taken [shortestsPairwise]uint8
		for k, id := range ids {
			for j := k + 1; j < len(ids); j++ { // each pair once: clashes is symmetric
				c := clashes(id, ids[j])
				taken[k] |= c
				taken[j] |= c
			}
			out[k] = shortestOf(taken[k])
		}
		return
	}
	// taken bit b of case k: another case has its parts shortParts[b],
	// that is, the projection of ids[k] on them occurs twice or more.
	taken := make([]uint8, len(ids))
	count := make(map[ID]int, len(ids))
	for b, p := range shortParts {
		clear(count)
		for _, id := range ids {
			count[project(id, p)]++
		}
		for k, id := range ids {
			if count[project(id, p)] > 1 {
				taken[k] |= 1 << b
			}
		}
	}
	for k := range ids {
		out[k] = shortestOf(taken[k])
	}
}

// shortestsPairwise is how many cases of a test id Shortests compares
// pair by pair, beyond which counting is faster.
const shortestsPairwise = 8

// project is the parts of id that p names (the test id is shared).
func project(id ID, p Parts) ID {
	var o ID
	if p&PartSuite != 0 {
		o.Suite = id.Suite
	}
	if p&PartTarget != 0 {
		o.Target = id.Target
	}
	if p&PartVariant != 0 {
		o.Variant = id.Variant
	}
	return o
}

// Match finds the case a recorded identity (a feedback entry's test_id,
// suite, target, variant, eval_path) belongs to. A part the entry leaves
// empty matches any value, since AgentV's documented feedback.json names
// test_id only, but only while that is unambiguous: among several
// candidates the one whose parts equal the entry's exactly (empty included)
// wins; otherwise i is -1 and candidates lists the cases it could be (none
// when it fits no case). An eval_path the entry names is compared only with
// cases whose eval_path is known.
func Match(cs Cases, e ID) (i int, candidates []int) {
	return NewMatcher(cs).Match(e)
}

// Matcher is Match for many identities against the same cases: a match
// allocates nothing but a candidates slice from the second candidate, and
// what cs.WithTestID does unless cs is a TestIDIndex, where a loop over
// cs.WithTestID would allocate its body and the variables it changes at
// every call.
type Matcher struct {
	cs    Cases
	e     ID
	m     matching
	each  func(testID string, yield func(int, ID) bool) // cs's walk of a test id's cases
	yield func(int, ID) bool                            // m.see, made once
}

// NewMatcher returns a Matcher of the cases cs.
func NewMatcher(cs Cases) *Matcher {
	x := &Matcher{cs: cs, each: walker(cs)}
	x.yield = x.see
	return x
}

// walker is cs's walk of a test id's cases with their identities: its
// own when cs is a TestIDIndex, else WithTestID and ID.
func walker(cs Cases) func(testID string, yield func(int, ID) bool) {
	if ix, ok := cs.(TestIDIndex); ok {
		return ix.EachWithTestID
	}
	return func(testID string, yield func(int, ID) bool) {
		for j := range cs.WithTestID(testID) {
			if !yield(j, cs.ID(j)) {
				return
			}
		}
	}
}

// Match is Match(cs, e).
func (x *Matcher) Match(e ID) (i int, candidates []int) {
	x.e, x.m = e, matching{first: -1, exact: -1}
	x.each(e.TestID, x.yield)
	switch m := &x.m; {
	case m.n == 1:
		return m.first, nil
	case m.exact >= 0:
		return m.exact, nil
	}
	return -1, x.m.more
}

func (x *Matcher) see(j int, c ID) bool {
	x.m.try(x.e, c, j)
	return true
}

// matching is Match's state: the candidates found (n, the first; more,
// all of them once there are two) and the exact match (-1: none yet, -2:
// two).
type matching struct {
	n, first, exact int
	more            []int
}

// try takes case j, whose identity is c, as a candidate for e if it fits.
func (m *matching) try(e, c ID, j int) {
	if !part(e.Suite, c.Suite) || !part(e.Target, c.Target) || !part(e.Variant, c.Variant) ||
		(e.EvalPath != "" && c.EvalPath != "" && e.EvalPath != c.EvalPath) {
		return
	}
	switch m.n++; m.n {
	case 1:
		m.first = j
	case 2:
		m.more = []int{m.first, j}
	default:
		m.more = append(m.more, j)
	}
	if e.Suite == c.Suite && e.Target == c.Target && e.Variant == c.Variant && (e.EvalPath == "" || e.EvalPath == c.EvalPath) {
		if m.exact >= 0 {
			m.exact = -2 // two exact matches: eval_path unknown on both sides
		} else if m.exact == -1 {
			m.exact = j
		}
	}
}

func part(entry, c string) bool { return entry == "" || entry == c }
