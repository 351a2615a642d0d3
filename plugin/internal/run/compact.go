package run

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/offheap"
)

// compactCases is how Read keeps the cases under Options.Compact: 13 bytes
// a case (about 7 once finished: packedCases) and its test id once,
// instead of a Case. What many cases share
// (suite, target, variant, statuses and the grader and sample outlines)
// is one shape, stored once; so is each score (scoreTable). Rows are
// deduplicated as they come, on the same key as a full read (dedupeKey),
// by walking the cases of their test id; the first row of a key makes its
// case, a later one replaces its shape and score. Everything grows in fixed
// chunks (chunked), so growing never copies what is held and wastes at
// most one chunk, and past the first chunk outside the heap (newPart), so
// the collector does not double it.
type compactCases struct {
	cases  offheap.Chunked[compactCase] // until finished, then packed
	packed packedCases
	ids    idStore
	scores scoreTable
	shorts offheap.Chunked[caseid.Shortest] // each case's shortest reference, once finished

	shapes  []Case // a case of each shape, with no test id, score or position
	shapeOf map[shapeKey]uint32
	// seen holds the shapes found, by shapeMix: hashing a shapeKey's
	// five strings for the map costs more than comparing them with a
	// shape's found before, interned by the same worker (the same bytes).
	seen *[1 << shapeBits]shapeHit

	// Until finished: the cases of each test id, to deduplicate rows and
	// to name the cases.
	firstEval offheap.Chunked[uint64] // per test id: the eval_path hash of its first case
	last      offheap.Chunked[uint32] // per test id: its last case (+1: the head of its next chain)
	next      offheap.Chunked[uint32] // per case: the next case (+1) with its test id, 0 at the end
	evals     map[uint32]uint64       // the eval_path hash of each case whose hash is not its test id's
	dupes     int                     // rows a later row replaced
	first     int                     // the line of the first such row
	// keepIndex keeps ids' table, last and next once finished, for
	// eachWithTestID (see Run.KeepIndex).
	keepIndex bool
}

// compactCase is one case: its test id (an index into idStore), its shape
// and its score (an index into scoreTable).
type compactCase struct{ id, shape, score uint32 }

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

// shapeHit is a shape found (its index k + 1; 0: none), by the mix of its
// key.
type shapeHit struct {
	mix uint64
	k   uint32
}

// shapeBits sizes compactCases.seen: room for the few thousand shapes of a
// large run (a 100k-case run of 4.42.4 has about 1.5k), 64 KiB. A smaller
// table (it held 64) found 14 % of that run's shapes.
const shapeBits = 12

// shapeMix mixes where sh's strings and outlines lie, which a worker's
// interner keeps the same for the same text, and its counts.
func shapeMix(sh *shapeKey) uint64 {
	h := uint64(uintptr(unsafe.Pointer(sh.graders))) ^ uint64(uintptr(unsafe.Pointer(sh.samples)))<<1 ^ uint64(sh.nGraders)<<32 ^ uint64(sh.nSamples)<<48
	for _, p := range [...]string{sh.suite, sh.target, sh.variant, sh.status, sh.stage, string(sh.outcome)} {
		h = (h ^ uint64(uintptr(unsafe.Pointer(unsafe.StringData(p))))) * 0x9E3779B97F4A7C15
	}
	return h
}

func newCompactCases() *compactCases {
	return &compactCases{shapeOf: map[shapeKey]uint32{}, evals: map[uint32]uint64{}, seen: new([1 << shapeBits]shapeHit)}
}

// add adds the row at line whose case is c and whose eval_path hashes to
// eval (under Options.Outline).
func (cc *compactCases) add(c *Case, eval uint64, line int, rel string) error {
	id, fresh, err := cc.ids.intern(c.TestID)
	if err != nil {
		return clierr.Input(rel, line, "test_id", err.Error(), "split the run")
	}
	k := cc.shape(c)
	if fresh {
		cc.firstEval.Add(eval)
		cc.last.Add(0)
	} else {
		for p := cc.last.Get(int(id)); p != 0; p = cc.next.Get(int(p - 1)) {
			o := cc.cases.Get(int(p - 1))
			sh := &cc.shapes[o.shape]
			if sh.Suite == c.Suite && sh.Target == c.Target && sh.Variant == c.Variant && cc.eval(int(p-1)) == eval {
				o.shape, o.score = k, cc.scores.index(c.Score)
				cc.cases.Set(int(p-1), o)
				if cc.dupes == 0 {
					cc.first = line
				}
				cc.dupes++
				return nil
			}
		}
	}
	pos := uint32(cc.cases.Len())
	if eval != cc.firstEval.Get(int(id)) {
		cc.evals[pos] = eval
	}
	cc.next.Add(cc.last.Get(int(id)))
	cc.last.Set(int(id), pos+1)
	cc.cases.Add(compactCase{id: id, shape: k, score: cc.scores.index(c.Score)})
	return nil
}

// eval is the eval_path hash of case p.
func (cc *compactCases) eval(p int) uint64 {
	if h, ok := cc.evals[uint32(p)]; ok {
		return h
	}
	return cc.firstEval.Get(int(cc.cases.Get(p).id))
}

// shape is the index of c's shape, added when new.
func (cc *compactCases) shape(c *Case) uint32 {
	sh := shapeOf(c)
	mix := shapeMix(&sh)
	hit := &cc.seen[mix>>(64-shapeBits)]
	if hit.k > 0 && hit.mix == mix && sameAs(shapeOf(&cc.shapes[hit.k-1]), sh) {
		return hit.k - 1
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
	*hit = shapeHit{mix: mix, k: k + 1}
	return k
}

// sameAs tells whether a and b are the same shape by where their strings
// lie, a stricter test than a == b that compares no bytes: the same text
// interned by one worker lies in one place.
func sameAs(a, b shapeKey) bool {
	same := func(x, y string) bool {
		return len(x) == len(y) && (len(x) == 0 || unsafe.StringData(x) == unsafe.StringData(y))
	}
	return same(a.suite, b.suite) && same(a.target, b.target) && same(a.variant, b.variant) && same(a.status, b.status) &&
		same(a.stage, b.stage) && same(string(a.outcome), string(b.outcome)) && a.workspace == b.workspace &&
		a.graders == b.graders && a.samples == b.samples && a.nGraders == b.nGraders && a.nSamples == b.nSamples
}

// shapeOf is c's shapeKey.
func shapeOf(c *Case) shapeKey {
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
	return sh
}

// finish names every case (its Shortest, one test id at a time), counts
// the cases passed, failed and errored, and frees what only reading
// needed.
func (cc *compactCases) finish() *[3]int {
	for range cc.cases.Len() {
		cc.shorts.Add(0)
	}
	var group []int
	var ids []caseid.ID
	var out []caseid.Shortest
	for id := range cc.last.Len() {
		group, ids = group[:0], ids[:0]
		testID := cc.ids.view(uint32(id))
		for p := cc.last.Get(id); p != 0; p = cc.next.Get(int(p - 1)) {
			group = append(group, int(p-1))
			ids = append(ids, cc.idNamed(cc.cases.Get(int(p-1)).shape, testID))
		}
		out = slices.Grow(out[:0], len(ids))[:len(ids)]
		caseid.Shortests(ids, out)
		for k, p := range group {
			cc.shorts.Set(p, out[k])
		}
	}
	var counts [3]int
	for i := range cc.cases.Len() {
		switch cc.shapes[cc.cases.Get(i).shape].Outcome {
		case Passed:
			counts[0]++
		case Failed:
			counts[1]++
		case Errored:
			counts[2]++
		}
	}
	runtime.KeepAlive(cc) // the views in ids
	// Freed now, not by the collector later, so that the packed cases do
	// not come on top of them.
	cc.firstEval.Free()
	if !cc.keepIndex {
		cc.last.Free()
		cc.next.Free()
		cc.ids.finish()
	}
	cc.evals, cc.shapeOf, cc.seen, cc.scores.of = nil, nil, nil, nil
	cc.packed = packCases(&cc.cases)
	cc.cases.Free()
	return &counts
}

func (cc *compactCases) len() int { return cc.packed.n }

// indexed tells whether cc is a finished read that kept its index by test
// id (keepIndex); false for nil.
func (cc *compactCases) indexed() bool { return cc != nil && cc.keepIndex && cc.ids.table != nil }

// eachWithTestID calls yield with the position of each case whose test id
// is id, in run order, until it returns false. cc is indexed.
func (cc *compactCases) eachWithTestID(id string, yield func(pos int32) bool) {
	k, ok := cc.ids.lookup(id)
	if !ok {
		return
	}
	// The cases of a test id are chained from its last: walked back,
	// yielded forth.
	var room [8]int32
	group := room[:0]
	for p := cc.last.Get(int(k)); p != 0; p = cc.next.Get(int(p - 1)) {
		group = append(group, int32(p-1))
	}
	runtime.KeepAlive(cc)
	for j := len(group) - 1; j >= 0; j-- {
		if !yield(group[j]) {
			return
		}
	}
}

// fill sets *c to the case at position i, its TestID a view of the store
// (see idStore.view). It has no Loc, Error, Duplicates or OverwrittenBy
// (and, under Options.Outline, no EvalPath): it is not one for Detail.
func (cc *compactCases) fill(i int, c *Case) {
	cs := cc.packed.get(i)
	*c = cc.shapes[cs.shape]
	c.Index, c.TestID, c.Score = int32(i), cc.ids.view(cs.id), cc.scores.values.Get(int(cs.score))
}

// id is the identity of the case at position i, made without a Case.
func (cc *compactCases) id(i int) caseid.ID {
	id := cc.idView(i)
	id.TestID = strings.Clone(id.TestID)
	runtime.KeepAlive(cc)
	return id
}

// idView is id with the test id a view of the store (see idStore.view).
func (cc *compactCases) idView(i int) caseid.ID {
	cs := cc.packed.get(i)
	return cc.idNamed(cs.shape, cc.ids.view(cs.id))
}

// idNamed is the identity of a case of that shape whose test id is testID.
func (cc *compactCases) idNamed(shape uint32, testID string) caseid.ID {
	sh := &cc.shapes[shape]
	return caseid.ID{Suite: sh.Suite, TestID: testID, Target: sh.Target, Variant: sh.Variant}
}

// CaseAt sets *c to the case at position pos, as At gives it, without
// making one: a loop over every case of a compact read needs one Case.
// pos must be a case Read kept.
func (r *Run) CaseAt(pos int, c *Case) {
	r.CaseViewAt(pos, c)
	if r.compact != nil {
		c.TestID = strings.Clone(c.TestID)
		runtime.KeepAlive(r)
	}
}

// CaseViewAt is CaseAt without copying the test id of a compact read's
// case: c.TestID is then a view of the run's own copy, valid only while r
// is reachable (copy it to keep it longer), so that a loop over every
// case (triage ranking a million of them) allocates nothing.
func (r *Run) CaseViewAt(pos int, c *Case) {
	if r.compact != nil {
		r.compact.fill(pos, c)
		return
	}
	*c = *r.At(pos)
}

// RefAt is the shortest reference of the case at position pos: Ref of
// it, which a compact read worked out for every case as it finished.
func (r *Run) RefAt(pos int) string {
	if cc := r.compact; cc != nil {
		ref := cc.shorts.Get(pos).Ref(cc.idView(pos), pos) // a new string: the view is not kept
		runtime.KeepAlive(cc)
		return ref
	}
	return caseid.Short(r.CaseIDs(), pos)
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

// slotID is the identity of slot i of the test_id index, whose test id
// is testID.
func (r *Run) slotID(i int32, testID string) caseid.ID {
	if cc := r.compact; cc != nil {
		return cc.idNamed(cc.packed.get(int(i)).shape, testID)
	}
	return r.Cases[i].ID()
}

// slotTestID is the test id of slot i of the test_id index, which only
// hashes and compares it: under Options.Compact a view of the store (see
// idStore.view), valid while r is.
func (r *Run) slotTestID(i int) string {
	if r.compact != nil {
		return r.compact.ids.view(r.compact.packed.get(i).id)
	}
	return r.Cases[i].TestID
}

// packedCases are the cases of a finished compact read, each in as many
// bits as the largest test id, shape and score index take (about 50 bits
// for a million cases instead of compactCase's 96), one after the other.
type packedCases struct {
	words                        offheap.Chunked[uint64]
	n, width                     int
	idBits, shapeBits            int
	idMask, shapeMask, scoreMask uint32
}

// packCases packs cs.
func packCases(cs *offheap.Chunked[compactCase]) packedCases {
	var top compactCase // the bits set in any case's
	for i := range cs.Len() {
		c := cs.Get(i)
		top.id, top.shape, top.score = top.id|c.id, top.shape|c.shape, top.score|c.score
	}
	p := packedCases{n: cs.Len(), idBits: bits.Len32(top.id), shapeBits: bits.Len32(top.shape)}
	scoreBits := bits.Len32(top.score)
	p.width = p.idBits + p.shapeBits + scoreBits
	mask := func(n int) uint32 { return uint32(1<<n - 1) }
	p.idMask, p.shapeMask, p.scoreMask = mask(p.idBits), mask(p.shapeBits), mask(scoreBits)
	var word uint64 // the word being filled, its low used bits
	used := 0
	put := func(v uint32, n int) {
		word |= uint64(v) << used
		if used += n; used >= 64 {
			p.words.Add(word)
			used -= 64
			word = uint64(v) >> (n - used) // the bits that did not fit (none when used is 0)
		}
	}
	for i := range cs.Len() {
		c := cs.Get(i)
		put(c.id, p.idBits)
		put(c.shape, p.shapeBits)
		put(c.score, scoreBits)
	}
	if used > 0 {
		p.words.Add(word)
	}
	return p
}

// get is case i: its three fields from one window of 64 bits, or, when
// they take more, each from its own.
func (p *packedCases) get(i int) compactCase {
	at := i * p.width
	v := p.window(at)
	c := compactCase{id: uint32(v) & p.idMask}
	if p.width > 64 {
		c.shape, c.score = uint32(p.window(at+p.idBits)), uint32(p.window(at+p.idBits+p.shapeBits))
	} else {
		c.shape, c.score = uint32(v>>p.idBits), uint32(v>>(p.idBits+p.shapeBits))
	}
	c.shape &= p.shapeMask
	c.score &= p.scoreMask
	return c
}

// window is the 64 bits from bit at on (0 past the last word).
func (p *packedCases) window(at int) uint64 {
	w, b := at>>6, at&63
	if w >= p.words.Len() {
		return 0 // all fields are empty
	}
	v := p.words.Get(w) >> b
	if b > 0 && w+1 < p.words.Len() {
		v |= p.words.Get(w+1) << (64 - b)
	}
	return v
}

// scoreTable holds the scores of a compact read: a run's scores are mostly
// a few hundred values, each stored once while there are at most
// maxShared of them; past that a new value is stored for each case that
// has it (which costs at most the 8 bytes a case a float64 would), so the
// table never holds more than maxShared values by map.
type scoreTable struct {
	values offheap.Chunked[float64]
	of     map[uint64]uint32 // by math.Float64bits, so 0 and -0 stay apart
}

const maxShared = 1 << 16

// index is where score is in the table, added when new.
func (t *scoreTable) index(score float64) uint32 {
	bits := math.Float64bits(score)
	if i, ok := t.of[bits]; ok {
		return i
	}
	i := uint32(t.values.Len())
	t.values.Add(score)
	if t.of == nil {
		t.of = map[uint64]uint32{}
	}
	if len(t.of) < maxShared {
		t.of[bits] = i
	}
	return i
}

// idStore holds each distinct test id once: its bytes, after their length
// as a uvarint, in chunks of storeChunk bytes (newPart: outside the heap;
// an id longer than that has a chunk of its own) after a first one of
// offheap.MinMapped on the heap, found by an open-addressing table while reading.
type idStore struct {
	bytes []*offheap.Part[byte]
	used  int                     // bytes used in the last chunk
	at    offheap.Chunked[uint32] // where each id is: chunk<<storeShift | offset

	// Until finished (unless kept: compactCases.keepIndex).
	seed  maphash.Seed
	table *offheap.Part[uint32] // an entry (see entry), 0: empty
	// wide: the table's entries are indexes alone, without a tag, once
	// the ids are too many for both to fit (tagBits): at wideAt ids
	// (0: 1<<tagShift - 1; tests make it smaller).
	wide   bool
	wideAt int
}

const (
	storeShift = 20
	storeChunk = 1 << storeShift
	maxChunks  = 1 << (32 - storeShift)

	// tagBits of an id's hash are kept in its table entry, above its
	// index: a probe compares the ids only when their tags agree, so
	// most probes that pass over other ids (most test ids of a run have
	// the same length) read no id bytes. Up to 1<<(32-tagBits) - 1 ids.
	tagBits  = 8
	tagShift = 32 - tagBits
)

// entry is the table's entry for the id at index i whose hash is h: 1 + i,
// with the tag of h above it.
func (s *idStore) entry(i uint32, h uint64) uint32 { return s.tag(h) | (i + 1) }

// tag is the bits above the index of the entry of an id whose hash is h:
// its top tagBits, none when wide.
func (s *idStore) tag(h uint64) uint32 {
	if s.wide {
		return 0
	}
	return uint32(h>>(64-tagBits)) << tagShift
}

// index is the id index of a table entry e (not 0).
func (s *idStore) index(e uint32) uint32 {
	if s.wide {
		return e - 1
	}
	return e&(1<<tagShift-1) - 1
}

// intern returns the index of id, adding it (fresh) when new.
func (s *idStore) intern(id string) (i uint32, fresh bool, err error) {
	if s.table == nil {
		s.seed, s.table = maphash.MakeSeed(), offheap.NewPart[uint32](64)
	}
	k, h := s.slot(id)
	if e := s.table.S[k]; e != 0 {
		return s.index(e), false, nil
	}
	at, err := s.put(id)
	if err != nil {
		return 0, false, err
	}
	i = uint32(s.at.Len())
	s.at.Add(at)
	s.table.S[k] = s.entry(i, h)
	switch n := s.at.Len(); {
	case !s.wide && (n == s.wideAt || n == 1<<tagShift-1): // the next index would reach the tag
		s.wide = true
		s.rebuild(len(s.table.S))
	case n*3 >= len(s.table.S)*2: // at most two thirds full
		s.rebuild(2 * len(s.table.S))
	}
	return i, true, nil
}

// lookup is the index of id, false when it has none.
func (s *idStore) lookup(id string) (uint32, bool) {
	if s.table == nil {
		return 0, false
	}
	k, _ := s.slot(id)
	e := s.table.S[k]
	runtime.KeepAlive(s)
	if e == 0 {
		return 0, false
	}
	return s.index(e), true
}

// slot is where id is in the table (k: its entry, or the empty one it
// would take), and its hash.
func (s *idStore) slot(id string) (k int, h uint64) {
	mask := len(s.table.S) - 1
	h = maphash.String(s.seed, id)
	tag := s.tag(h)
	k = int(h) & mask
	for e := s.table.S[k]; e != 0; e = s.table.S[k] {
		if (s.wide || e&^(1<<tagShift-1) == tag) && s.view(s.index(e)) == id {
			break
		}
		k = (k + 1) & mask
	}
	runtime.KeepAlive(s) // the views and the table
	return k, h
}

// rebuild makes the table size entries long and enters every id again.
func (s *idStore) rebuild(size int) {
	old := s.table
	s.table = offheap.NewPart[uint32](size)
	s.table.Populate(0, len(s.table.S)) // a third of it is written at once, at random
	for i := range s.at.Len() {
		k, h := s.slot(s.view(uint32(i)))
		s.table.S[k] = s.entry(uint32(i), h)
	}
	runtime.KeepAlive(s)
	old.Free()
}

// put stores id's bytes and returns where they are.
func (s *idStore) put(id string) (uint32, error) {
	need := binary.MaxVarintLen64 + len(id)
	switch {
	case len(s.bytes) == 0: // the first chunk grows on the heap as it fills: a small run maps nothing
		s.bytes = append(s.bytes, &offheap.Part[byte]{})
	case s.used+need > storeChunk, len(s.bytes) == 1 && s.used+need > offheap.MinMapped:
		if len(s.bytes) == maxChunks {
			return 0, errTooLong
		}
		s.bytes, s.used = append(s.bytes, offheap.NewPart[byte](max(need, storeChunk))), 0
	}
	last := s.bytes[len(s.bytes)-1]
	at := uint32(len(s.bytes)-1)<<storeShift | uint32(s.used)
	last.S = append(binary.AppendUvarint(last.S[:s.used], uint64(len(id))), id...)
	s.used = len(last.S)
	return at, nil
}

var errTooLong = errors.New("the run's test ids are longer than a compact read holds (4 GiB in all)")

// get is test id i.
func (s *idStore) get(i uint32) string {
	id := strings.Clone(s.view(i))
	runtime.KeepAlive(s)
	return id
}

// view is test id i as a view of the store (whose bytes never change),
// valid while s is: its callers keep s alive past their last use of it.
func (s *idStore) view(i uint32) string {
	at := s.at.Get(int(i))
	b := s.bytes[at>>storeShift].S[at&(storeChunk-1):]
	if n := b[0]; n < 0x80 { // a length below 128 is one byte: most ids
		return unsafe.String(unsafe.SliceData(b[1:]), int(n))
	}
	n, w := binary.Uvarint(b)
	return unsafe.String(unsafe.SliceData(b[w:]), int(n))
}

func (s *idStore) finish() {
	s.table.Free()
	s.table = nil
}
