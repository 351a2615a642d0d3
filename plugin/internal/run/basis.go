package run

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"agentv-review/plugin/internal/safefile"
)

// Basis is what a verdict on a case rests on, read as Detail and Task read
// it: the answer, the input and the test definition. Answer and Input are
// Detail's, except that the Content of a sidecar is the file's raw bytes
// (response.md keeps its role blocks), whole unless Truncated, when Path
// has the rest. Task's slices may be shared with the other cases of the
// same bundle: read them only. Task is Task's test definition: without
// Graders and FileChanges, what the row recorded per grader.
type Basis struct {
	Case          *Case
	Answer, Input Text
	Task          *Task
}

// basisLimit is how much of a sidecar a Basis holds; a bigger one is read
// again from its Path by whoever needs all of it.
const basisLimit = 4 << 20

// basisChunk bounds the manifest bytes Bases reads at once for a run of
// neighbouring rows; a gap bigger than basisGap between two wanted rows
// starts a new read. (Variables for a test.)
var (
	basisChunk int64 = 1 << 20
	basisGap   int64 = 64 << 10
)

// Bases reads the Basis of every case of cs and calls fn(i, b) for cs[i],
// on every core (fn must be safe for concurrent use). b is fn's to keep,
// but for the Content of its Answer and Input, which is valid only until
// fn returns (the bytes of a sidecar are read into room Bases reuses):
// fn copies what it keeps of them.
// It reads the manifest once in file order, decodes each row once, and
// opens the run directory once for all sidecars, parses each EVAL.yaml
// bundle once for all its rows (see evalDefs), with Detail's checks: a
// row that is no longer the case's is an error, as is fn's. It returns the
// error of the lowest i that failed; once one fails, the rest are skipped.
func (r *Run) Bases(cs []*Case, fn func(i int, b *Basis) error) error {
	if len(cs) == 0 {
		return nil
	}
	rel := r.rel(r.Manifest)
	f, err := safefile.OpenIn(r.Dir, r.Manifest)
	if err != nil {
		return unreadable(rel, err)
	}
	defer f.Close()
	dir, err := safefile.OpenDir(r.Dir)
	if err != nil {
		return unreadable(r.Dir, err)
	}
	defer dir.Close()

	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a].Loc.Offset, cs[b].Loc.Offset) })

	var defs evalDefs
	errs := make([]error, len(cs))
	var failed atomic.Bool
	fail := func(i int, err error) {
		errs[i] = err
		failed.Store(true)
	}
	work := make(chan chunk, 2)
	// A worker hands a chunk's buffer back when done with its rows (no
	// Basis aliases it), for a later chunk.
	free := make(chan []byte, cap(work)+runtime.GOMAXPROCS(0)+1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			sc := scratch{sk: skimmer{keys: map[string]memberKey{}}}
			for ch := range work {
				for _, i := range ch.cases {
					if failed.Load() {
						break
					}
					c := cs[i]
					start := c.Loc.Offset - ch.offset
					if start+int64(c.Loc.Length) > int64(len(ch.data)) {
						fail(i, r.changed(c, "cannot re-read the row: "+ch.err.Error()))
						continue
					}
					b, err := r.basis(c, ch.data[start:start+int64(c.Loc.Length)], r.spansOf(c), &sc, dir, &defs)
					if err == nil {
						err = fn(i, b)
					}
					if err != nil {
						fail(i, err)
					}
				}
				select {
				case free <- ch.data:
				default:
				}
			}
		})
	}
	for lo := 0; lo < len(order) && !failed.Load(); {
		hi, first := lo+1, cs[order[lo]].Loc
		end := first.Offset + int64(first.Length)
		for ; hi < len(order); hi++ {
			next := cs[order[hi]].Loc
			if next.Offset-end > basisGap || next.Offset+int64(next.Length)-first.Offset > basisChunk {
				break
			}
			end = max(end, next.Offset+int64(next.Length))
		}
		ch := chunk{offset: first.Offset, data: buffer(free, end-first.Offset), cases: order[lo:hi]}
		n, err := f.ReadAt(ch.data, ch.offset)
		ch.data, ch.err = ch.data[:n], err
		work <- ch
		lo = hi
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// chunk is a run of neighbouring manifest rows read at once: data holds
// the bytes from offset on (short by a read error err), cases the indexes
// of the cases whose rows it spans.
type chunk struct {
	offset int64
	data   []byte
	err    error
	cases  []int
}

// buffer is n bytes, from a buffer in free when it holds one big enough.
func buffer(free chan []byte, n int64) []byte {
	select {
	case b := <-free:
		if int64(cap(b)) >= n {
			return b[:n]
		}
	default:
	}
	return make([]byte, n, max(n, basisChunk))
}

// maxKeys bounds the keys skimmer.members interns.
const maxKeys = 1024

// scratch is what a Bases worker reuses from row to row.
type scratch struct {
	sk     skimmer
	m      map[string]json.RawMessage // the row's members
	vals   memberValues               // those a Basis is read from
	scores rowScores                  // the row's scores[] as fromPrompts reads them, decoded as it was split
	read   recent
	d      Detail  // the reads' warnings, which a Basis does not keep
	row    rowFull // the row's text fields
}

// rowScores is a row's scores[] decoded by skimmer.members as it splits
// the row, in the same pass: list is decodeScoresIn (not full) of the last
// "scores" member when ok; else that decode has to be done (the row has
// none, one encoding/json decodes, or it was not split), in the room of
// list.
type rowScores struct {
	list []scoreRecord
	ok   bool
}

// prompts is the row's scores[] as Task.fromPrompts reads it, of raw,
// the row's "scores" member: list when ok, else decodeScoresIn of raw
// (not full, in the room of list) with sk. An empty list may be the
// reused room, where decodeScores has nil: fromPrompts reads the two alike.
func (rs *rowScores) prompts(raw []byte, sk *skimmer) []scoreRecord {
	if !rs.ok {
		decodeScoresIn(&rs.list, raw, sk, false)
	}
	return rs.list
}

// recent remembers the sidecars a Bases worker read last, by the path the
// row names: the rows of one test on several targets are neighbours and
// name the same input (AgentV 4.42.4 writes <suite>/<test_id>/ once per
// test), which is then read once for all of them, as an EVAL.yaml is (see
// evalDefs). A Text read is the file's whatever field named it (the field
// only words the warnings, which a Basis does not keep). The bytes of
// text[i] are in room[i], which the slot's next read reuses: a row reads
// at most two sidecars, so the texts of the row before, whose fn has
// returned, are the only ones a read overwrites.
type recent struct {
	rel  [4]string
	text [4]Text
	room [4][]byte
	next int
}

// maxRoom bounds the room recent keeps for a slot: a bigger sidecar is
// read into a buffer of its own, left to the collector.
const maxRoom = 256 << 10

// get is the Text of rel, read by read into the room given unless it is
// one of the last few. A text it gives is not overwritten by the next
// read (a hit on the slot to take next moves next on).
func (c *recent) get(rel string, read func(room *[]byte) Text) Text {
	for i, r := range c.rel {
		if r == rel && r != "" {
			if i == c.next {
				c.next = (c.next + 1) % len(c.rel)
			}
			return c.text[i]
		}
	}
	t := read(&c.room[c.next])
	c.rel[c.next], c.text[c.next] = rel, t
	c.next = (c.next + 1) % len(c.rel)
	return t
}

// into is a reader that reads beneath dir into *room, and keeps the
// buffer there for the next read when it is at most maxRoom (a failed
// read, which returns none, leaves the room as it was).
func into(dir *safefile.Dir, room *[]byte) reader {
	return func(name string, limit int64) ([]byte, int64, error) {
		b, size, err := dir.ReadInto(*room, name, limit)
		if err == nil && cap(b) <= maxRoom {
			*room = b[:0]
		}
		return b, size, err
	}
}

// basis reads the Basis of c from its row bytes line, where the members
// it reads lie at spans when spans is set (see memberValues.at): a line
// still the row Read read is not split again. Nothing it returns aliases
// line.
func (r *Run) basis(c *Case, line []byte, spans string, sc *scratch, dir *safefile.Dir, defs *evalDefs) (*Basis, error) {
	v, row := &sc.vals, &sc.row
	*row = rowFull{}
	sc.scores.ok = false // set by a split; from spans, scores[] is decoded only when testDef needs it
	fromSpans := spans != "" && rowSum(line) == c.Loc.Sum && v.at(rowBytes(line, true), spans)
	if !fromSpans || !textOf(v, false, row) {
		m, err := r.members(c, line, sc)
		if err != nil {
			return nil, err
		}
		v.of(m)
		*row = rowFull{}
		if !textOf(v, sc.sk.folds, row) {
			if err := r.decodeRow(c, m, textFields, row); err != nil {
				return nil, err
			}
		}
	}
	d := &sc.d
	*d = Detail{Case: c, Warnings: d.Warnings[:0]}
	text := func(field, rel string) Text {
		return sc.read.get(rel, func(room *[]byte) Text { return r.readFileWith(into(dir, room), d, field, rel, basisLimit) })
	}
	b := &Basis{Case: c, Answer: r.answer(*row, c.OverwrittenBy == "", text), Input: r.input(*row, text)}
	eval, named := r.sidecarOf("eval_path", v[evalMember])
	b.Task = r.testDef(dir.Read, defs, eval, named, c.TestID, func() []scoreRecord { return sc.scores.prompts(v[scoresMember], &sc.sk) })
	return b, nil
}

// members is verify for Bases: the members of c's row, read again as
// line, normalised. A line whose bytes hash as those Read decoded
// (RowLoc.Sum) is that row, which is only split, its scores[] decoded in
// the same pass (sc.scores); any other is checked by verify, which tells
// what changed or accepts a row that keeps the identity and outcome Read
// found.
func (r *Run) members(c *Case, line []byte, sc *scratch) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	var err error
	if rowSum(line) == c.Loc.Sum {
		m, err = r.split(c, rowBytes(line, true), &sc.sk, sc.m, &sc.scores)
	} else {
		_, m, err = r.verify(c, line, &sc.sk, sc.m)
	}
	if err == nil {
		sc.m = m
	}
	return m, err
}

// textOf sets the textFields of row from v, the row's members (normalised)
// as decodeRow does, without encoding them again, when each field has one
// member of its exact name, that is when no key folds to one without being
// it (folds, skimmer.members': normalize only removes keys or adds first
// spellings, none of which folds so); else it reports false. The
// RawMessages alias v's values (decodeRow's are compact copies: the same
// JSON).
func textOf(v *memberValues, folds bool, row *rowFull) bool {
	if folds {
		return false
	}
	for i, f := range textMembers(row) {
		switch {
		case v[i] == nil: // absent
		case f.raw != nil:
			*f.raw = v[i]
		default: // a string: normalize keeps no other kind
			var ok bool
			if *f.path, ok = stringOf(v[i]); !ok {
				return false
			}
		}
	}
	return true
}

// memberValues are the values of the members a Basis is read from (nil:
// absent), by their index in spanned: the textMembers, eval_path, scores.
type memberValues [len(spanned)]json.RawMessage

const (
	evalMember   = textCount
	scoresMember = textCount + 1
)

// spanned are the names of memberValues, in their order.
var spanned = func() [textCount + 2]string {
	var names [textCount + 2]string
	for i, m := range textMembers(new(rowFull)) {
		names[i] = m.name
	}
	names[evalMember], names[scoresMember] = "eval_path", "scores"
	return names
}()

// of sets v from the members m of a row, normalised.
func (v *memberValues) of(m map[string]json.RawMessage) {
	for i, name := range spanned {
		v[i] = m[name]
	}
}

// A row's spans tell where the values of its spanned members lie in the
// row (rowBytes of its line), so Bases reads them without splitting the
// row again. Read records them as it checks a row it may read again (see
// spanRecorder), only for a row whose members split and normalize leave
// as they are: each spanned key at most once, spelled exactly, the path
// fields strings, and no key that is a spelling of their groups or folds
// to one of spanned (textOf's folds). The spans are a count of members,
// then for each, in row order, its index in spanned and, as uvarints, the
// gap from the end of the one before and its length: a few bytes a row.
//
// at sets v from the spans of row; it reports false (v then partly set)
// for spans that do not fit row.
func (v *memberValues) at(row []byte, spans string) bool {
	*v = memberValues{}
	end := 0
	b := unsafe.Slice(unsafe.StringData(spans), len(spans)) // read only
	for rest, n := b[1:], b[0]; n > 0; n-- {
		if len(rest) == 0 || int(rest[0]) >= len(v) {
			return false
		}
		k := rest[0]
		gap, g := binary.Uvarint(rest[1:])
		size, l := binary.Uvarint(rest[1+max(g, 0):])
		if g <= 0 || l <= 0 || gap > uint64(len(row)-end) || size > uint64(len(row)-end)-gap || size == 0 {
			return false
		}
		start := end + int(gap)
		end = start + int(size)
		v[k] = row[start:end:end]
		rest = rest[1+g+l:]
	}
	return true
}

// spanKeys are spanned, then the other spellings of their rowSpellings
// groups: the keys a spanRecorder looks for, listed by length in
// spanKeysBy; spanGrouped has a bit for each of spanned in a group.
var (
	spanKeys, spanGrouped = func() ([]string, uint16) {
		keys, grouped := slices.Clone(spanned[:]), uint16(0)
		for i, name := range spanned {
			if g, ok := spellingGroup[name]; ok {
				keys, grouped = append(keys, rowSpellings[g][1:]...), grouped|1<<i
			}
		}
		return keys, grouped
	}()
	spanKeysBy = func() (by [][]uint8) {
		for i, k := range spanKeys {
			for len(by) <= len(k) {
				by = append(by, nil)
			}
			by[len(k)] = append(by[len(k)], uint8(i))
		}
		return by
	}()
	// spanLens has, for each first byte, a bit for the length of each of
	// spanKeys that starts with it: most keys of a row are ruled out by it.
	spanLens = func() (lens [256]uint32) {
		for _, k := range spanKeys {
			lens[k[0]] |= 1 << len(k)
		}
		return lens
	}()
)

// spanKey is the index of key in spanKeys, -1 when it is none.
func spanKey(key []byte) int {
	if len(key) == 0 || len(key) >= len(spanKeysBy) || spanLens[key[0]]&(1<<len(key)) == 0 {
		return -1
	}
	for _, k := range spanKeysBy[len(key)] {
		if string(key) == spanKeys[k] {
			return int(k)
		}
	}
	return -1
}

// lowerASCII tells whether key is ASCII without upper-case letters: such a
// key folds to a textField (all lower-case ASCII) only by being it. It
// looks at a word at a time (the last one overlaps the one before): a byte
// is upper-case when adding 0x80-'A' sets its high bit and adding
// 0x80-'Z'-1 does not, which carries into no other byte of an ASCII word.
func lowerASCII(key []byte) bool {
	if len(key) < 8 {
		for _, c := range key {
			if c-'A' < 26 || c >= 0x80 {
				return false
			}
		}
		return true
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	upper := func(x uint64) uint64 { return x | (x+ones*(0x80-'A'))&^(x+ones*(0x80-'Z'-1)) }
	var x uint64
	for i := 0; i+8 < len(key); i += 8 {
		x |= upper(binary.LittleEndian.Uint64(key[i:]))
	}
	return (x|upper(binary.LittleEndian.Uint64(key[len(key)-8:])))&highs == 0
}

// spanRecorder records the spans of the row a skimmer reads (see
// memberValues.at) when on.
type spanRecorder struct {
	on   bool
	bad  bool   // the row's spans are not recorded: Bases splits it
	seen uint16 // the spanned members met
	end  int    // of the last member recorded
	buf  []byte
}

// reset starts a row.
func (sr *spanRecorder) reset() {
	sr.bad, sr.seen, sr.end, sr.buf = false, 0, 0, sr.buf[:0]
}

// note is the member key of the row b, its value at b[start:end].
func (sr *spanRecorder) note(b, key []byte, start, end int) {
	if sr.bad {
		return
	}
	k := spanKey(key)
	switch {
	case k < 0:
		// A key that folds to a textField without being one (textOf's
		// folds) leaves the texts to decodeRow.
		sr.bad = !lowerASCII(key) && fieldOf(key, textFields) == len(textFields)
		return
	case k >= len(spanned) || sr.seen&(1<<k) != 0 || spanGrouped&(1<<k) != 0 && jsonKind(b[start:end]) != valueKind(spanned[k]):
		// Another spelling, a repeat, a value normalize drops (as
		// skimmer.members' renames).
		sr.bad = true
		return
	}
	sr.seen |= 1 << k
	sr.buf = append(sr.buf, byte(k))
	sr.buf = binary.AppendUvarint(sr.buf, uint64(start-sr.end))
	sr.buf = binary.AppendUvarint(sr.buf, uint64(end-start))
	sr.end = end
}

// textMember is a field of rowFull the answer or the input is read from:
// a path, or an inline value.
type textMember struct {
	name string
	path *string
	raw  *json.RawMessage
}

// textCount is how many textMembers there are.
const textCount = 9

func textMembers(row *rowFull) [textCount]textMember {
	return [...]textMember{
		{"output_path", &row.OutputPath, nil}, {"answer_path", &row.AnswerPath, nil},
		{"response_path", &row.ResponsePath, nil}, {"input_path", &row.InputPath, nil},
		{"output", nil, &row.Output}, {"answer", nil, &row.Answer}, {"output_text", nil, &row.OutputText},
		{"candidate_answer", nil, &row.CandidateAnswer}, {"input", nil, &row.Input},
	}
}

// members splits a JSON object (one that checkRow accepted) into its
// members as json.Unmarshal into a map[string]json.RawMessage does: the
// last of repeated keys wins, invalid UTF-8 in a key becomes U+FFFD. The
// values alias line. They are put in m, emptied first, or when m is nil
// in a new map. With s.keys set, what is known of a key is kept there (the
// first maxKeys), so the rows of a run, which share their keys, share
// their strings and learn it once. It sets s.renames, the rowSpellings
// groups normalize has work in, and s.folds, whether a key folds to a
// textField without being one (see textOf). With scores set, the value of
// a "scores" member is decoded into it as it is read (see rowScores).
func (s *skimmer) members(line []byte, m map[string]json.RawMessage, scores *rowScores) (map[string]json.RawMessage, error) {
	s.b, s.i, s.depth = line, 0, 0
	s.renames, s.folds = 0, false
	if m == nil {
		m = make(map[string]json.RawMessage, 32)
	}
	clear(m)
	err := s.object(func(key []byte) error {
		k, ok := s.keys[string(key)]
		if !ok {
			k = memberKeyOf(string(key))
			if s.keys != nil && len(s.keys) < maxKeys {
				s.keys[string(key)] = k
			}
		}
		s.ws()
		start := s.i
		if scores != nil && k.name == "scores" {
			// The list of the row before is no one's: its room is reused.
			list := scores.list[:0]
			ok, err := s.scoreList(&list, false) // what rowScores.prompts hands on
			if err != nil {                      // left to decodeScoresIn, which hands it to encoding/json
				ok, s.i = false, start
			}
			*scores = rowScores{list, ok}
		}
		if s.i == start {
			if err := s.skip(); err != nil {
				return err
			}
		}
		v := s.b[start:s.i]
		m[k.name] = v
		// A group whose only member is its first spelling, of its kind,
		// is as normalize leaves it.
		if k.group >= 0 && (k.alias || jsonKind(v) != valueKind(k.name)) {
			s.renames |= 1 << k.group
		}
		s.folds = s.folds || k.folds
		return nil
	})
	return m, err
}

// memberKey is what skimmer.members knows of a member's raw key.
type memberKey struct {
	name  string // the key, invalid UTF-8 replaced
	group int    // in rowSpellings, or -1
	alias bool   // a spelling of group other than the first
	folds bool   // it folds to a textField without being one
}

func memberKeyOf(raw string) memberKey {
	k := memberKey{name: raw, group: -1}
	if !utf8.ValidString(raw) {
		// A raw key: no escapes or control characters to quote.
		_ = json.Unmarshal([]byte(`"`+raw+`"`), &k.name)
	}
	if g, ok := spellingGroup[k.name]; ok {
		k.group, k.alias = g, rowSpellings[g][0] != k.name
	}
	k.folds = fieldOf(k.name, textFields) == len(textFields)
	return k
}

// spansOf is the spans of c's row when Read recorded them, else "".
func (r *Run) spansOf(c *Case) string {
	if i := int(c.Index); i < len(r.spans) && r.Cases[i] == c {
		return r.spans[i]
	}
	return ""
}
