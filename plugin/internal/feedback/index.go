package feedback

import (
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/offheap"
	"agentv-review/plugin/internal/safefile"
)

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
	if !caseid.ShortestOf(cs, i).Named() {
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
	match := caseid.NewMatcher(cs)
	for pos := range f.PerCase {
		e := &f.PerCase[pos]
		i, candidates := match.Match(e.ID())
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
			if exactness(old.ID(), cs, i) > exactness(e.ID(), cs, i) {
				ix.Shadowed = append(ix.Shadowed, pos)
				continue
			}
			ix.Shadowed = append(ix.Shadowed, int(ix.byCase[i]))
			ix.byCase[i] = int32(pos)
		}
	}
	return ix
}

// exactness counts the identity parts an entry (e) bound to case i of cs
// names that equal the case's. Its suite, target and variant equal the
// case's when it names them (caseid.Match binds no other); its eval_path
// may not, so only it is compared, and the case's identity is made only
// for an entry that names one.
func exactness(e caseid.ID, cs caseid.Cases, i int) int {
	n := 0
	for _, p := range [...]string{e.Suite, e.Target, e.Variant} {
		if p != "" {
			n++
		}
	}
	if e.EvalPath != "" && e.EvalPath == cs.ID(i).EvalPath {
		n++
	}
	return n
}

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
	ix.set(ix.slot(i), i, &e)
}

// set writes e, the entry of case i, at position p, named exactly.
func (ix *Index) set(p int32, i int, e *Case) {
	ix.f.PerCase[p] = *e
	setID(&ix.f.PerCase[p], ix.cases, i)
}

// slot is the position of case i's entry, a zero entry appended for a
// case that has none.
func (ix *Index) slot(i int) int32 {
	if p := ix.byCase[i]; p >= 0 {
		return p
	}
	ix.f.PerCase = append(ix.f.PerCase, Case{})
	ix.byCase[i] = int32(len(ix.f.PerCase) - 1)
	return ix.byCase[i]
}

// PutAll is Put of each of entries in order (a later entry of a case
// replaces an earlier one), the entries copied and named on every core
// when they are many: where each lands is decided first, in order, then
// only the last entry for each case is written.
func (ix *Index) PutAll(entries []Bound) {
	if len(entries) < 2*entryBlock {
		for _, b := range entries {
			ix.Put(b.Case, b.Entry)
		}
		return
	}
	slot := make([]int32, len(entries))
	for k, b := range entries {
		slot[k] = ix.slot(b.Case)
	}
	last := make([]int32, len(ix.f.PerCase)) // by position: 1 + the last of entries that lands there
	for k, p := range slot {
		last[p] = int32(k + 1)
	}
	inBlocks(len(entries), func(_ *treeReader, _, lo, hi int) error {
		for k := lo; k < hi; k++ {
			if p := slot[k]; last[p] == int32(k+1) {
				ix.set(p, entries[k].Case, &entries[k].Entry)
			}
		}
		return nil
	})
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

// View is a feedback file read to count review states (status, list):
// its top-level fields and, of each entry bound to a case, only what
// decides the case's state: verdict, reviewer_kind and the machine verdict
// (automated: score, outcome, graders). It is validated exactly as Load
// validates, and binds entries to cases exactly as Bind does, but holds
// 32 bytes per entry and 16 per grader result where a File holds about
// 700 per entry.
type View struct {
	// File holds the top-level fields; its PerCase is nil.
	File *File
	// Unmatched and Ambiguous are the entries that name no case of the
	// run, or could be several (see Index); Shadowed counts the entries
	// another entry of the same case replaced.
	Unmatched, Ambiguous Strays
	Shadowed             int

	cases  caseid.Cases
	byCase []int32 // entry of each case, counted over parts, -1 when unreviewed
	// parts hold the entries, in file order, as they were read (not
	// copied: two copies of 100k entries would not fit status's memory).
	parts []*viewPart
	bases []int // the count of the entries of the parts before each
	names names // verdicts, kinds, outcomes and grader keys
}

// names numbers strings, each once.
type names struct {
	list []string
	ids  map[string]uint32
	// recent holds a string looked up last, by where its bytes lie: the
	// few names of an entry (verdict, kind, outcome, grader keys) mostly
	// recur, the same strings (interned by the decoder, so at the same
	// place), and most lookups need no hash and compare no bytes.
	recent [64]struct {
		s  string
		id uint32
		ok bool
	}
}

func (n *names) id(s string) uint32 {
	r := &n.recent[(uintptr(unsafe.Pointer(unsafe.StringData(s)))>>4^uintptr(len(s)))%uintptr(len(n.recent))]
	if r.ok && r.s == s {
		return r.id
	}
	id, ok := n.ids[s]
	if !ok {
		if n.ids == nil {
			n.ids = map[string]uint32{}
		}
		id = uint32(len(n.list))
		n.list = append(n.list, s)
		n.ids[s] = id
	}
	r.s, r.id, r.ok = s, id, true
	return id
}

// Strays counts entries that belong to no case, naming the first.
type Strays struct {
	Count int
	First caseid.ID
}

type viewEntry struct {
	score                  float64
	verdict, kind, outcome uint32 // in names
	graders                uint32 // its first grader; its last is before the next entry's first
	caseIndex              int32  // the case it is bound to, -1 for a stray (see viewPart.add)
	automated, hasScore    bool
	exactness              uint8
}

type viewGrader struct {
	key                     uint32 // in names
	hasScore, pass, hasPass bool
	score                   float64
}

// LoadView reads a feedback file as Load does and binds its entries to
// the cases cs of run runID, keeping only what tells each case's review
// state. A file of another run binds no entry (its verdicts are not this
// run's), as runState does with Bind. A file of more than minSplit bytes
// is decoded in about GOMAXPROCS segments on as many cores (see split),
// each entry bound to its case as it is read: only what decides its state
// is kept, and a hash of its identity (for Validate's duplicate rule), not
// the identity.
func LoadView(path, runID string, cs caseid.Cases) (*View, error) {
	v := newView(cs)
	f, parts, ok := readView(path, runtime.GOMAXPROCS(0), cs)
	if !ok || !v.mergeParts(parts) {
		// A file the light pass rejected (or that repeats an identity:
		// Validate's duplicate rule, told by a hash of each identity, so a
		// collision only sends the file to the full validator) is read by
		// Load, which explains why, or reads the rare valid file the light
		// pass leaves to the full validator.
		full, err := Load(path)
		if err != nil {
			return nil, err
		}
		v = newView(cs)
		p := newPart(maphash.MakeSeed(), cs)
		for i := range full.PerCase {
			p.add(draftOf(&full.PerCase[i]))
		}
		v.mergeParts([]*viewPart{p}) // Load found no repeated identity
		f, full.PerCase = full, nil
	}
	if f.RunID != runID {
		v = newView(cs)
	}
	v.File = f
	return v, nil
}

// readView decodes the file at path for a View, its entries bound to the
// cases cs: the top-level fields, and the parts in file order; ok when
// the light pass accepted it.
func readView(path string, parts int, cs caseid.Cases) (f *File, ps []*viewPart, ok bool) {
	root, err := lightSchema()
	if err != nil {
		return nil, nil, false
	}
	r, err := safefile.Beside(path) // as Load: no FIFO, no symlink out of the folder
	if err != nil {
		return nil, nil, false
	}
	defer r.Close()
	fi, err := r.Stat()
	if err != nil {
		return nil, nil, false
	}
	var starts []int64
	if fi.Size() >= minSplit {
		starts = guessStarts(r, fi.Size(), parts)
	}
	f, ps, _, ok = decodeParts(r, fi.Size(), root, starts, cs)
	return f, ps, ok
}

func newView(cs caseid.Cases) *View {
	v := &View{cases: cs, byCase: make([]int32, cs.Len())}
	for i := range v.byCase {
		v.byCase[i] = -1
	}
	return v
}

// decodeParts reads the document of ra's size bytes, per_case in segments
// from starts (see split), into parts in file order, each entry bound to
// its case of cs; used is how many segments counted.
func decodeParts(ra io.ReaderAt, size int64, root *node, starts []int64, cs caseid.Cases) (f *File, parts []*viewPart, used int, ok bool) {
	seed := maphash.MakeSeed()
	ps := make([]*viewPart, len(starts)+1)
	for i := range ps {
		ps[i] = newPart(seed, cs)
	}
	each := func(part int, e *draft) { ps[part].add(e) }
	var sp *split
	if arr := root.resolve().properties["per_case"].schema.resolve(); len(starts) > 0 && arr != nil && !arr.unique {
		sp = newSplit(ra, size, arr, starts, each)
	}
	f = new(File)
	ok = decodeEach(io.NewSectionReader(ra, 0, size), root, f, each, sp)
	chain := []int{0}
	if sp != nil {
		sp.Close()
		chain = append(chain, sp.chain...)
	}
	if !ok {
		return nil, nil, len(chain) - 1, false
	}
	for _, i := range chain {
		parts = append(parts, ps[i])
	}
	return f, parts, len(chain) - 1, true
}

// mergeParts merges ps, the parts of a file in order, their entries
// bound, into v; false when two entries share their identity.
func (v *View) mergeParts(ps []*viewPart) bool {
	for _, p := range ps {
		v.merge(p)
	}
	if v.mayRepeat() && repeats(ps) {
		return false
	}
	for _, p := range ps {
		p.ids.Free()
	}
	return true
}

// mayRepeat tells whether two entries of v may share their identity. Two
// that do bind to the same case (caseid.Match is a function of the
// identity), so one shadows the other, or are both strays: without
// either, as in most files, the identities need no comparing.
func (v *View) mayRepeat() bool {
	return v.Shadowed > 0 || v.Unmatched.Count+v.Ambiguous.Count > 1
}

// repeats tells whether two entries of the parts ps share their identity,
// told by a hash of each.
func repeats(ps []*viewPart) bool {
	n := 0
	for _, p := range ps {
		n += p.ids.Len()
	}
	ids := make([]uint64, 0, n)
	for _, p := range ps {
		ids = p.ids.AppendTo(ids)
	}
	return repeated(ids)
}

// repeated tells whether hashes holds a value twice; it sorts hashes.
func repeated(hashes []uint64) bool {
	slices.Sort(hashes)
	for i := 1; i < len(hashes); i++ {
		if hashes[i] == hashes[i-1] {
			return true
		}
	}
	return false
}

// identitiesMayRepeat tells whether two of ids with a test_id may be the same,
// told by a hash of each: false means none is (Validate's duplicate rule
// then holds without comparing identities).
func identitiesMayRepeat(ids []caseid.ID) bool {
	seed := maphash.MakeSeed()
	hashes := make([]uint64, 0, len(ids))
	for _, id := range ids {
		if id.TestID != "" {
			hashes = append(hashes, maphash.Comparable(seed, id))
		}
	}
	return repeated(hashes)
}

// viewPart is the entries of a stretch of per_case, in file order, each
// bound to its case of cases (or found a stray) as it is added, to be
// merged into the View in the order of the stretches. A part has its own
// names and Matcher, so parts are filled on several cores.
type viewPart struct {
	entries              offheap.Chunked[viewEntry]
	graders              offheap.Chunked[viewGrader]
	names                names
	unmatched, ambiguous Strays
	seed                 maphash.Seed
	ids                  offheap.Chunked[uint64] // hashes of the identities of the entries with a test_id
	cases                caseid.Cases
	match                *caseid.Matcher
}

func newPart(seed maphash.Seed, cs caseid.Cases) *viewPart {
	return &viewPart{seed: seed, cases: cs, match: caseid.NewMatcher(cs)}
}

// add keeps entry e, bound to its case as Bind binds it, or counts it a
// stray.
func (p *viewPart) add(e *draft) {
	id := e.id
	if id.TestID != "" {
		p.ids.Add(maphash.Comparable(p.seed, id))
	}
	ve := viewEntry{verdict: p.names.id(e.verdict), kind: p.names.id(e.kind), caseIndex: -1, graders: uint32(p.graders.Len())}
	switch i, candidates := p.match.Match(id); {
	case len(candidates) > 1:
		p.ambiguous.add(id)
	case i < 0:
		p.unmatched.add(id)
	default:
		ve.caseIndex, ve.exactness = int32(i), uint8(exactness(id, p.cases, i))
	}
	if e.automated {
		ve.automated, ve.outcome, ve.score, ve.hasScore = true, p.names.id(e.outcome), e.score, e.hasScore
		for _, g := range e.graders {
			p.graders.Add(viewGrader{key: p.names.id(g.key), score: g.score, hasScore: g.hasScore, pass: g.pass, hasPass: g.hasPass})
		}
	}
	p.entries.Add(ve)
}

// merge takes the entries of p, the part that follows those merged so
// far, each bound to its case, and gives each case one as Bind does: of
// two entries of one case the one naming it more exactly wins, else the
// later one.
func (v *View) merge(p *viewPart) {
	v.Unmatched.join(p.unmatched)
	v.Ambiguous.join(p.ambiguous)
	names := make([]uint32, len(p.names.list))
	for i, s := range p.names.list {
		names[i] = v.names.id(s)
	}
	for k := range p.graders.Len() {
		g := p.graders.At(k)
		g.key = names[g.key]
	}
	base := 0
	if n := len(v.parts); n > 0 {
		base = v.bases[n-1] + v.parts[n-1].entries.Len()
	}
	v.parts, v.bases = append(v.parts, p), append(v.bases, base)
	for k := range p.entries.Len() {
		pe := p.entries.At(k)
		if pe.caseIndex < 0 {
			continue // a stray
		}
		pe.verdict, pe.kind = names[pe.verdict], names[pe.kind]
		if pe.automated {
			pe.outcome = names[pe.outcome]
		}
		if old := v.byCase[pe.caseIndex]; old >= 0 {
			v.Shadowed++
			if oe, _, _ := v.entry(old); oe.exactness > pe.exactness {
				continue // the earlier entry names the case more exactly
			}
		}
		v.byCase[pe.caseIndex] = int32(base + k)
	}
}

// entry is the entry at position g over the parts, with its part and its
// position k in the part.
func (v *View) entry(g int32) (e *viewEntry, p *viewPart, k int) {
	j := len(v.bases) - 1
	for int(g) < v.bases[j] {
		j--
	}
	p, k = v.parts[j], int(g)-v.bases[j]
	return p.entries.At(k), p, k
}

// add counts id, whose strings may be the decoder's: the first is
// copied.
func (s *Strays) add(id caseid.ID) {
	if s.Count == 0 {
		s.First = caseid.ID{EvalPath: strings.Clone(id.EvalPath), Suite: strings.Clone(id.Suite), TestID: strings.Clone(id.TestID),
			Target: strings.Clone(id.Target), Variant: strings.Clone(id.Variant)}
	}
	s.Count++
}

// join counts the strays of a later part.
func (s *Strays) join(later Strays) {
	if s.Count == 0 {
		s.First = later.First
	}
	s.Count += later.Count
}

// Entry returns the entry of case i as far as the view keeps it (verdict,
// reviewer_kind, automated; the other fields are empty), nil when the case
// has none. Each call returns a new Case.
func (v *View) Entry(i int) *Case { return v.EntryIn(i, new(Scratch)) }

// Scratch holds a Case EntryIn fills and what it points to, reused from
// call to call: a loop over every case (status) then allocates no Case
// per case.
type Scratch struct {
	c       Case
	a       Automated
	score   float64
	vals    []viewGrader
	graders []GraderResult
}

// EntryIn is Entry made in buf: the Case is valid until the next call
// with buf.
func (v *View) EntryIn(i int, buf *Scratch) *Case {
	p := v.byCase[i]
	if p < 0 {
		return nil
	}
	ve, part, k := v.entry(p)
	buf.c = Case{Verdict: v.names.list[ve.verdict], ReviewerKind: v.names.list[ve.kind]}
	if !ve.automated {
		return &buf.c
	}
	a := &buf.a
	*a = Automated{Outcome: v.names.list[ve.outcome]}
	if ve.hasScore {
		buf.score = ve.score
		a.Score = &buf.score
	}
	end := part.graders.Len()
	if k+1 < part.entries.Len() {
		end = int(part.entries.At(k + 1).graders)
	}
	if n := end - int(ve.graders); n > 0 {
		buf.vals, buf.graders = buf.vals[:0], slices.Grow(buf.graders[:0], n)[:n]
		for g := range n {
			buf.vals = append(buf.vals, *part.graders.At(int(ve.graders) + g))
		}
		for k := range buf.vals {
			g, gr := &buf.vals[k], &buf.graders[k]
			*gr = GraderResult{Key: v.names.list[g.key]}
			if g.hasScore {
				gr.Score = &g.score
			}
			if g.hasPass {
				gr.Pass = &g.pass
			}
		}
		a.Graders = buf.graders
	}
	buf.c.Automated = a
	return &buf.c
}
