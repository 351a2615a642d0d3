package feedback

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/jsonnum"
	"agentv-review/plugin/internal/safefile"
)

// Kind names the shape of a feedback.json.
type Kind string

const (
	// KindReview is AgentV's documented review schema, which this package reads and writes.
	KindReview Kind = "agentv-review"
	// KindDashboard is AgentV's dashboard notes (v3.11–v4.42.4):
	// {"reviews":[{"test_id","comment","updated_at"}]}.
	KindDashboard Kind = "agentv-dashboard"
	// KindSkillCreator is Anthropic's skill-creator viewer:
	// {"reviews":[{"run_id","feedback","timestamp"}],"status"}.
	KindSkillCreator Kind = "skill-creator"
)

func (k Kind) describe() string {
	switch k {
	case KindDashboard:
		return "AgentV dashboard notes"
	case KindSkillCreator:
		return "skill-creator viewer notes"
	}
	return "a review"
}

// LegacyError is wrapped by the *clierr.Error Load returns for a file of a
// legacy kind; read such a file with LoadLegacy.
type LegacyError struct{ Kind Kind }

func (e *LegacyError) Error() string { return "legacy feedback file (" + string(e.Kind) + ")" }

// LegacyNote is one note from a legacy file.
type LegacyNote struct {
	TestID string // test_id (skill-creator: its run_id, which names the case)
	Note   string // comment / feedback; skill-creator's empty feedback reads "looked fine"
	Time   string // updated_at / timestamp, verbatim
	Source string // the file the note came from
}

// LooksFine is the note for skill-creator's empty feedback.
const LooksFine = "looked fine"

// Detect tells which kind of feedback file data is. Anything that is not a
// legacy shape counts as KindReview, so validation explains what is wrong.
func Detect(data []byte) Kind {
	if !json.Valid(data) {
		return KindReview
	}
	return detect(data)
}

// detect is Detect of JSON data; of other data it returns some kind.
func detect(data []byte) Kind {
	// The top-level members are scanned, not decoded: a review file can be
	// large. As in a decoded map, the last of a repeated key counts.
	top := map[string][]byte{}
	if !eachMember(data, func(key []byte, start int) int {
		end := skipValue(data, start)
		for _, k := range []string{"run_id", "reviews", "status"} {
			if isKey(key, k) {
				top[k] = data[start:end]
			}
		}
		if top["run_id"] != nil {
			return -1 // a review, whatever follows
		}
		return end
	}) || top["run_id"] != nil || top["reviews"] == nil {
		return KindReview
	}
	if top["status"] != nil {
		return KindSkillCreator
	}
	var reviews []map[string]json.RawMessage
	if json.Unmarshal(top["reviews"], &reviews) == nil && len(reviews) > 0 && reviews[0]["feedback"] != nil {
		return KindSkillCreator
	}
	return KindDashboard
}

// Load reads and validates a feedback file. Every error is a *clierr.Error
// with exit code 3 naming the file, the line and the field when known; a
// legacy file's error wraps a *LegacyError and has no hint (the caller
// knows what it offers instead), an unreadable file's wraps the os error
// (so errors.Is(err, fs.ErrNotExist) works).
//
// Load streams the file through the light validator (decodeLight), which
// accepts exactly what the schema and Validate accept, in one pass and
// without holding the file's bytes. Only a file it rejects is read again
// and checked by the full validator, which explains the rejection. A
// legacy file is always rejected by the light pass: the schema requires
// run_id, which no legacy shape has.
func Load(path string) (*File, error) {
	if f, ok := loadLight(path); ok {
		return f, nil
	}
	data, err := safefile.ReadBeside(path)
	if err != nil {
		return nil, &clierr.Error{Code: clierr.CodeInvalid, File: path, Msg: "cannot read feedback file: " + clierr.Cause(err), Err: err}
	}
	return parse(path, data)
}

func loadLight(path string) (*File, bool) {
	root, err := lightSchema()
	if err != nil {
		return nil, false
	}
	r, err := safefile.Beside(path)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	return parseLight(root, r)
}

// parseLight decodes and checks a document in one pass; false when it is
// not a valid feedback file.
func parseLight(root *node, r io.Reader) (*File, bool) {
	var f File
	if !decodeLight(r, root, &f) || hasDuplicates(f.PerCase) {
		return nil, false
	}
	return &f, true
}

// hasDuplicates tells whether two entries share their identity (Validate's
// duplicate rule; entries without test_id are left to the schema).
func hasDuplicates(cases []Case) bool {
	ids := make([]caseid.ID, len(cases))
	for i := range cases {
		ids[i] = cases[i].ID()
	}
	return len(duplicates(ids)) > 0
}

func parse(path string, data []byte) (*File, error) {
	hint := fmt.Sprintf("run \"agentv review validate %s\" to list every problem", path)
	if k := Detect(data); k != KindReview {
		return nil, &clierr.Error{
			Code: clierr.CodeInvalid, File: path,
			Msg: "holds " + k.describe() + ", not a review (run_id, reviewer, per_case)",
			Err: &LegacyError{Kind: k},
		}
	}
	problems, err := Validate(data)
	if se, ok := errors.AsType[*SyntaxError](err); ok {
		return nil, &clierr.Error{Code: clierr.CodeInvalid, File: path, Line: se.Line, Msg: "not valid JSON: " + se.Msg, Hint: hint, Err: err}
	}
	if err != nil {
		return nil, clierr.Failure(err, "cannot validate "+path, "")
	}
	if len(problems) > 0 {
		p := problems[0]
		msg := strings.TrimPrefix(summarise(problems), p.Path+": ")
		return nil, clierr.Input(path, lineOf(data, p.Path), p.Path, msg, hint)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, clierr.Input(path, 0, "", "cannot decode: "+err.Error(), hint)
	}
	return &f, nil
}

// LoadLegacy reads the notes of a dashboard or skill-creator file. A file
// in the review format is an error: read it with Load.
func LoadLegacy(path string) ([]LegacyNote, Kind, error) {
	data, err := safefile.ReadBeside(path)
	if err != nil {
		return nil, "", &clierr.Error{Code: clierr.CodeInvalid, File: path, Msg: "cannot read feedback file: " + clierr.Cause(err), Err: err}
	}
	kind := Detect(data)
	var doc struct {
		Reviews []struct {
			TestID    string  `json:"test_id"`
			Comment   string  `json:"comment"`
			UpdatedAt string  `json:"updated_at"`
			RunID     string  `json:"run_id"`
			Feedback  *string `json:"feedback"`
			Timestamp string  `json:"timestamp"`
		} `json:"reviews"`
	}
	if kind == KindReview {
		return nil, kind, clierr.Input(path, 0, "", "not a legacy notes file", "read it as a review feedback file")
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, kind, legacyDecodeError(path, data, err)
	}
	notes := make([]LegacyNote, 0, len(doc.Reviews))
	for _, r := range doc.Reviews {
		n := LegacyNote{TestID: r.TestID, Note: r.Comment, Time: r.UpdatedAt, Source: path}
		if kind == KindSkillCreator {
			n = LegacyNote{TestID: r.RunID, Note: LooksFine, Time: r.Timestamp, Source: path}
			if r.Feedback != nil && strings.TrimSpace(*r.Feedback) != "" {
				n.Note = *r.Feedback
			}
		}
		notes = append(notes, n)
	}
	return notes, kind, nil
}

func legacyDecodeError(path string, data []byte, err error) error {
	e := clierr.Input(path, 0, "", "cannot read notes: "+err.Error(), "")
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		e.Line, _ = position(data, te.Offset)
		e.Field = te.Field
		e.Msg = "cannot read notes: expected " + te.Type.String() + ", found " + te.Value
	}
	return e
}

// lineOf returns the 1-based line where the value at a Problem path starts,
// falling back to the closest existing parent (a missing field is reported
// at its object); 0 when unknown.
func lineOf(data []byte, path string) int {
	for p := path; p != "" && p != RootPath; {
		if off := offsetOf(data, p); off >= 0 {
			line, _ := position(data, off)
			return line
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

// offsetOf returns the offset just past the first token of the value at
// path (dot-separated keys and array indexes), -1 when absent.
func offsetOf(data []byte, path string) int64 {
	type frame struct {
		array    bool
		index    int
		key      string
		wantsKey bool
	}
	var stack []frame
	current := func() string {
		parts := make([]string, len(stack))
		for i, f := range stack {
			parts[i] = f.key
			if f.array {
				parts[i] = strconv.Itoa(f.index)
			}
		}
		return strings.Join(parts, ".")
	}
	advance := func() {
		if n := len(stack); n > 0 {
			stack[n-1].index++
			stack[n-1].wantsKey = !stack[n-1].array
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if n := len(stack); n > 0 && stack[n-1].wantsKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantsKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			advance()
			continue
		}
		if len(stack) > 0 && current() == path {
			return dec.InputOffset()
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{array: tok == json.Delim('['), wantsKey: tok == json.Delim('{')})
		default:
			advance()
		}
	}
}

// decodeLight reads one feedback document from r in a single pass,
// checking it against the light schema n (see node) while it fills dst.
// It reports false when the document is not JSON, breaks the schema, has
// a duplicate key or a value dst cannot hold; the caller then asks the
// full validator why (a rejection is rare, an explanation is worth a
// second read). Fields are matched by their exact JSON names; fields a
// struct does not declare go to its Extra map verbatim, at every level.
func decodeLight(r io.Reader, n *node, dst any) bool {
	return decodeEach(r, n, dst, nil, nil)
}

// decodeEach is decodeLight that hands each entry of a File's per_case to
// each as a draft (what a View keeps of it, reused from entry to entry)
// instead of keeping it. The other fields of an entry are only checked. A nil each keeps the entries.
// With sp, stretches of per_case are decoded by sp's segments on other
// cores (see split); each then learns which part of the file an entry
// comes from (0: the stretches r's decoder read).
func decodeEach(r io.Reader, n *node, dst any, each func(part int, e *draft), sp *split) bool {
	d := newDecoder(r, each)
	d.split = sp
	ok := d.value(d.memo(n), reflect.ValueOf(dst).Elem(), slotNone)
	d.space()
	_, more := d.peek()
	return ok && !more && d.readErr == nil
}

func newDecoder(r io.Reader, each func(part int, e *draft)) *decoder {
	return &decoder{r: r, buf: make([]byte, 64<<10), memos: map[*node]*memo{}, rats: map[string]*big.Rat{}, keys: map[string]string{}, each: each}
}

type decoder struct {
	r        io.Reader
	buf      []byte
	pos, end int
	readErr  error

	capture  []byte // bytes of the values being captured (Extra, uniqueItems)
	capStart int    // start in buf of the bytes not yet in capture
	capDepth int

	memos   map[*node]*memo     // what was learnt of each schema node
	rats    map[string]*big.Rat // see rat
	keys    map[string]string   // object keys
	scratch []byte

	each  func(part int, e *draft) // see decodeEach
	draft draft

	off   int64  // offset in the input of buf[0]
	split *split // per_case decoded in segments, nil: sequentially
	part  int    // the part of split this decoder reads: 0 the main one, j+1 split.segs[j]
	next  int    // the first of split.segs this decoder has not passed
}

// offset is the input offset of the next byte.
func (d *decoder) offset() int64 { return d.off + int64(d.pos) }

var caseSlice = reflect.TypeFor[[]Case]()

// internLimit is how many distinct strings a schema node interns; a node
// with more (test_id, notes) stops interning.
const internLimit = 512

// memo is what a decoder learns of one schema node (resolved) while it
// reads the values under it, so that the next value is read with fewer
// lookups: the strings found valid, and of objects their keys, each with
// what it resolves to, numbered so that a key's index is its bit in a
// mask of the keys an object has (duplicates, required).
type memo struct {
	n      *node
	strs   map[string]string // valid strings, interned (internLimit at most)
	recent [8]string         // strings found valid last, by recentSlot
	misses int               // lookups in a full strs that failed in a row

	keys    []memoKey // maxKeys at most; the declared properties first
	order   []uint8   // the index of the key read at each position of an object last when it had no lead
	reqMask uint64    // the bits of the required keys in keys
	reqRest bool      // some required key has no index: look it up by name

	// The text around the values of the last object and array under the
	// node, as it was read (see takes): most files are written by one
	// encoder, with the same spacing and keys from object to object.
	leads    []lead // of objects: before the member at each position
	objClose []byte // of objects: after the last member, to the '}'
	elemNext []byte // of arrays: between two elements (the comma)
	arrClose []byte // of arrays: after the last element, to the ']'
}

// lead is the text before a member of an object: whitespace (after the
// first member, a comma and whitespace), the key, the colon and
// whitespace; key is the key's index in memo.keys.
type lead struct {
	text []byte
	key  uint8
}

// maxLead is the longest text a memo keeps as a lead or a close.
const maxLead = 64

// takes consumes text when the input at pos starts with it, whole in the
// buffer. The text is one that was read before at the same place of an
// object or array under the same node, and read the same way then as it
// would be now; none is taken when text is empty.
func (d *decoder) takes(text []byte) bool {
	if len(text) == 0 || d.end-d.pos < len(text) || string(d.buf[d.pos:d.pos+len(text)]) != string(text) {
		return false
	}
	d.pos += len(text)
	return true
}

// keep remembers in *dst the text read from buf[at] to pos when it was read
// in the buffer as it is now (off: d.off then), at most maxLead bytes;
// otherwise *dst is emptied, so that it never holds a text read elsewhere.
func (d *decoder) keep(dst *[]byte, at int, off int64) {
	*dst = (*dst)[:0]
	if d.off == off && d.pos-at <= maxLead {
		*dst = append(*dst, d.buf[at:d.pos]...)
	}
}

// separator reads what comes before a member or an element: whitespace,
// then the closer (end) or, after the first (more), a comma and whitespace.
func (d *decoder) separator(more bool, closer byte) (end, ok bool) {
	d.space()
	c, ok := d.peek()
	switch {
	case !ok:
		return false, false
	case c == closer:
		d.pos++
		return true, true
	case !more:
		return false, true
	case c != ',':
		return false, false
	}
	d.pos++
	d.space()
	return false, true
}

// memoKey is a key of an object under a memo's node, resolved.
type memoKey struct {
	name   string
	schema *memo // the value's
	bad    bool  // propertyNames rejects it
	// child is the draft slot of the value in an object in slot from.
	from, child slot
}

// maxKeys is how many keys a memo numbers: a mask's bits.
const maxKeys = 64

// memo returns d's memo of n (resolved).
func (d *decoder) memo(n *node) *memo {
	n = n.resolve()
	if m, ok := d.memos[n]; ok {
		return m
	}
	m := &memo{n: n}
	d.memos[n] = m
	if n == nil {
		return m
	}
	// The required properties first, so that their bits make reqMask.
	var names []string
	for _, name := range append(slices.Clone(n.required), slices.Sorted(maps.Keys(n.properties))...) {
		if _, declared := n.properties[name]; declared && !slices.Contains(names, name) && len(names) < maxKeys {
			names = append(names, name)
		}
	}
	for _, name := range names {
		m.keys = append(m.keys, d.declared(m, n.properties[name]))
	}
	for _, r := range n.required {
		if i := m.index(r); i >= 0 {
			m.reqMask |= 1 << i
		} else {
			m.reqRest = true
		}
	}
	return m
}

// declared is the memoKey of a declared property p of m's node.
func (d *decoder) declared(m *memo, p property) memoKey {
	return memoKey{name: p.name, schema: d.memo(p.schema), bad: !m.keyAllowed(p.name)}
}

// keyAllowed applies propertyNames to a key of m's node.
func (m *memo) keyAllowed(key string) bool {
	n := m.n
	return n == nil || n.propNames == nil || n.propNames.resolve().checkString(key)
}

// resolveKey is the memoKey of the key b of an object under m's node;
// false when the node allows no such key.
func (d *decoder) resolveKey(m *memo, b []byte) (memoKey, bool) {
	n := m.n
	if n != nil {
		if p, ok := n.properties[string(b)]; ok {
			k := d.declared(m, p)
			return k, !k.bad
		}
		if n.noExtra {
			return memoKey{}, false
		}
	}
	key := d.key(b)
	var additional *node
	if n != nil {
		additional = n.additional
	}
	return memoKey{name: key, schema: d.memo(additional)}, m.keyAllowed(key)
}

// index is the index in m.keys of the key name, -1 when it has none.
func (m *memo) index(name string) int {
	for i := range m.keys {
		if m.keys[i].name == name {
			return i
		}
	}
	return -1
}

// find is the index in m.keys of the key b, the k-th of its object,
// -1 when it has none: most objects have the keys of the last one, in
// the same order.
func (m *memo) find(b []byte, k int) int {
	if k < len(m.order) {
		if i := m.order[k]; m.keys[i].name == string(b) {
			return int(i)
		}
	}
	for i := range m.keys {
		if m.keys[i].name == string(b) {
			return i
		}
	}
	return -1
}

// lookup returns the string b when it was found valid under m's node.
func (m *memo) lookup(b []byte) (string, bool) {
	if m.misses > internLimit {
		return "", false // the node's strings do not recur (test ids)
	}
	if r := m.recent[recentSlot(b, len(m.recent))]; r == string(b) && r != "" {
		return r, true
	}
	s, ok := m.strs[string(b)]
	switch {
	case ok:
		m.remember(s)
		m.misses = 0
	case len(m.strs) >= internLimit:
		m.misses++
	}
	return s, ok
}

// recentSlot places a string in a small cache of recent ones (memo.recent)
// of n slots: by its length and its last byte, which tell
// apart most of the few strings that recur in a feedback file (verdicts,
// targets, grader keys), with no hash.
func recentSlot[T string | []byte](s T, n int) int {
	k := len(s)
	if k > 0 {
		k += int(s[k-1])
	}
	return k % n
}

func (m *memo) remember(s string) {
	m.recent[recentSlot(s, len(m.recent))] = s
}

// interned is s, found valid under m's node, as lookup returns it from
// now on.
func (m *memo) interned(s string) string {
	if n := m.n; n != nil {
		for _, e := range n.enum {
			if e == s {
				s = e.(string)
				break
			}
		}
	}
	if m.strs == nil {
		m.strs = map[string]string{}
	}
	if len(m.strs) < internLimit {
		m.strs[s] = s
	}
	if m.misses <= internLimit {
		m.remember(s)
	}
	return s
}

// childOf is the draft slot of k's value in an object in slot s.
func (k *memoKey) childOf(s slot) slot {
	if k.from != s {
		k.from, k.child = s, s.child(k.name)
	}
	return k.child
}

func (d *decoder) fill() bool {
	if d.readErr != nil {
		return false
	}
	if d.capDepth > 0 {
		d.capture = append(d.capture, d.buf[d.capStart:d.end]...)
		d.capStart = 0
	}
	for {
		d.off += int64(d.end)
		n, err := d.r.Read(d.buf)
		d.pos, d.end = 0, n
		if err != nil && err != io.EOF || err == io.EOF && n == 0 {
			d.readErr = err
			if err == io.EOF {
				d.readErr = nil
				d.r = eofReader{}
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (d *decoder) peek() (byte, bool) {
	if d.pos >= d.end && !d.fill() {
		return 0, false
	}
	return d.buf[d.pos], true
}

// space skips whitespace; most values and keys follow none, or a line
// break and indentation.
func (d *decoder) space() {
	if d.pos < d.end && d.buf[d.pos] > ' ' {
		return
	}
	d.skipSpace()
}

func (d *decoder) skipSpace() {
	for {
		// Eight bytes at a time: the first byte that is not whitespace is
		// found in one step.
		for d.pos+8 <= d.end {
			if m := notSpace(binary.LittleEndian.Uint64(d.buf[d.pos:])); m != 0 {
				d.pos += bits.TrailingZeros64(m) / 8
				return
			}
			d.pos += 8
		}
		for ; d.pos < d.end; d.pos++ {
			if c := d.buf[d.pos]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return
			}
		}
		if !d.fill() {
			return
		}
	}
}

// Eight-byte words of one byte repeated, for scanning a word at a time.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	spaces = 0x20 * ones
	quotes = '"' * ones
	slashs = '\\' * ones
)

// notSpace has the high bit set of each byte of w that is not JSON
// whitespace (space, tab, line feed, carriage return), exactly.
func notSpace(w uint64) uint64 {
	return nonzero(w^spaces) & nonzero(w^('\t'*ones)) & nonzero(w^('\n'*ones)) & nonzero(w^('\r'*ones))
}

// nonzero has the high bit set of each byte of w that is not zero: the
// sum of a byte's low seven bits and 0x7f (highs-ones) carries into its
// high bit only when they are not all zero, and never into the next byte.
func nonzero(w uint64) uint64 { return ((w &^ highs) + (highs - ones) | w) & highs }

// plain is the length of the run of bytes at the start of b that need no
// care in a string: not a quote, a backslash, a control character or a
// byte of a multi-byte rune.
func plain(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte's high bit is set in m when it is a quote or a backslash
		// (it is zero after the xor), below 0x20 or at least 0x80; a borrow
		// can set bits above the first such byte only, never below it.
		q, s := w^quotes, w^slashs
		m := ((q-ones)&^q | (s-ones)&^s | (w-spaces)&^w | w) & highs
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// expect consumes the literal s.
func (d *decoder) expect(s string) bool {
	if d.end-d.pos >= len(s) && string(d.buf[d.pos:d.pos+len(s)]) == s {
		d.pos += len(s)
		return true
	}
	for i := 0; i < len(s); i++ {
		if c, ok := d.peek(); !ok || c != s[i] {
			return false
		}
		d.pos++
	}
	return true
}

func (d *decoder) beginCapture() int {
	if d.capDepth == 0 {
		d.capture, d.capStart = d.capture[:0], d.pos
	} else {
		d.capture, d.capStart = append(d.capture, d.buf[d.capStart:d.pos]...), d.pos
	}
	d.capDepth++
	return len(d.capture)
}

func (d *decoder) endCapture(mark int) []byte {
	d.capture, d.capStart = append(d.capture, d.buf[d.capStart:d.pos]...), d.pos
	d.capDepth--
	return bytes.Clone(d.capture[mark:])
}

// value reads one value valid under m's node into dst, or into d.draft's
// slot s (neither: validate only).
func (d *decoder) value(m *memo, dst reflect.Value, s slot) bool {
	n := m.n
	d.space()
	c, ok := d.peek()
	if !ok {
		return false
	}
	if dst.IsValid() && dst.Kind() == reflect.Pointer && c != 'n' {
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		dst = dst.Elem()
	}
	switch {
	case c == '{' || c == '[':
		if s != slotNone && !d.draft.begin(s, c == '[') {
			return false
		}
		if c == '{' {
			return n.allows(typeObject, false) && d.object(m, dst, s)
		}
		return n.allows(typeArray, false) && d.array(m, dst, s)
	case c == '"':
		b, ok := d.str()
		if !ok || !n.allows(typeString, false) {
			return false
		}
		// Only checked strings are interned: a known one needs no check.
		str, known := m.lookup(b)
		if !known {
			switch {
			case dst.IsValid():
			case s == slotNone && n.checkBytes(b):
				return true // valid, and not kept
			case s == slotTestID && n.checkBytes(b):
				d.draft.keepTestID(b) // valid, kept only until the entry is added
				return true
			}
			if str = string(b); !n.checkString(str) {
				return false
			}
			str = m.interned(str)
		}
		if s != slotNone {
			return d.draft.str(s, str)
		}
		if !dst.IsValid() {
			return true
		}
		if dst.Kind() != reflect.String {
			return false
		}
		dst.SetString(str)
		return true
	case c == 't' || c == 'f':
		b, lit := c == 't', "false"
		if b {
			lit = "true"
		}
		if !d.expect(lit) || !n.allows(typeBoolean, false) || !n.checkScalar(b) {
			return false
		}
		if s != slotNone {
			return d.draft.boolean(s, b)
		}
		if dst.IsValid() {
			if dst.Kind() != reflect.Bool {
				return false
			}
			dst.SetBool(b)
		}
		return true
	case c == 'n':
		if !d.expect("null") || !n.allows(typeNull, false) || !n.checkScalar(nil) {
			return false
		}
		if dst.IsValid() && dst.Kind() == reflect.Pointer {
			dst.SetZero()
		}
		return true
	}
	return d.number(n, dst, s)
}

// key returns the object key b as a string, the same string for the same
// key (the keys of a feedback file are few).
func (d *decoder) key(b []byte) string {
	if k, ok := d.keys[string(b)]; ok {
		return k
	}
	k := string(b)
	if len(d.keys) < internLimit {
		d.keys[k] = k
	}
	return k
}

func (d *decoder) number(n *node, dst reflect.Value, s slot) bool {
	b, kinds := d.numText()
	simple := kinds&(numPoint|numExp) == 0
	text := string(b) // on the stack: a short number is not kept
	f, valid, fits := jsonnum.Float(text)
	if !valid || kinds&numExp != 0 && hugeExponent(text) {
		return false
	}
	var rat *big.Rat
	exact := func() *big.Rat {
		if rat == nil {
			rat = d.rat(b)
		}
		return rat
	}
	// Whether a fraction is integral matters only where "integer" is
	// allowed and "number" is not.
	integral := simple || n != nil && n.types&typeInteger != 0 && n.types&typeNumber == 0 && exact().IsInt()
	if !n.allows(typeNumber, integral) || n != nil && n.enum != nil || !n.inRange(f, fits, exact) {
		return false
	}
	if s != slotNone {
		return fits && d.draft.num(s, f)
	}
	if !dst.IsValid() {
		return true
	}
	switch dst.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		if !integral && !exact().IsInt() {
			return false
		}
		if rat := exact(); !rat.Num().IsInt64() || dst.OverflowInt(rat.Num().Int64()) {
			return false
		}
		dst.SetInt(exact().Num().Int64())
	case reflect.Float64:
		if !fits {
			return false
		}
		dst.SetFloat(f)
	default:
		return false
	}
	return true
}

// numText reads the bytes of a number (its grammar is checked after),
// valid until the next read: in the buffer when they end there, else
// copied to d.scratch; kinds is the numClass of its bytes, or-ed.
func (d *decoder) numText() (b []byte, kinds uint8) {
	d.scratch = d.scratch[:0]
	for {
		i := d.pos
		for ; i < d.end && numClass[d.buf[i]] != 0; i++ {
			kinds |= numClass[d.buf[i]]
		}
		if i < d.end && len(d.scratch) == 0 {
			b, d.pos = d.buf[d.pos:i], i
			return b, kinds
		}
		d.scratch, d.pos = append(d.scratch, d.buf[d.pos:i]...), i
		if i < d.end || !d.fill() {
			return d.scratch, kinds
		}
	}
}

// numClass classes the bytes of a number's text: numPlain, digits and
// signs; numPoint, the point; numExp, the exponent's e; 0, any other byte.
var numClass = func() (t [256]uint8) {
	for _, c := range "0123456789+-" {
		t[c] = numPlain
	}
	t['.'], t['e'], t['E'] = numPoint, numExp, numExp
	return t
}()

const (
	numPlain = 1 << iota
	numPoint
	numExp
)

// rat is the exact value of the valid number b, not to be changed: the
// few that recur are made once (a bound such as 0 or 1 is compared
// exactly, and most scores are one).
func (d *decoder) rat(b []byte) *big.Rat {
	if r, ok := d.rats[string(b)]; ok {
		return r
	}
	r, _ := new(big.Rat).SetString(string(b))
	if len(d.rats) < maxRats {
		d.rats[string(b)] = r
	}
	return r
}

const maxRats = 64

// hugeExponent tells a number whose exponent has more than three digits:
// big.Rat takes minutes over 1e1000000000, and float64 cannot hold it
// anyway. The light pass leaves such a document to the full path.
func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	return i >= 0 && len(strings.TrimLeft(s[i+1:], "+-0")) > 3
}

// str reads a JSON string into d.scratch, valid until the next read;
// invalid UTF-8 becomes U+FFFD per byte, as in encoding/json (which the
// full validator reads with).
func (d *decoder) str() ([]byte, bool) {
	d.pos++ // the opening quote
	// Most strings are in the buffer whole, ASCII without escapes: they
	// need no copy.
	if i := d.pos + plain(d.buf[d.pos:d.end]); i < d.end && d.buf[i] == '"' {
		b := d.buf[d.pos:i]
		d.pos = i + 1
		return b, true
	}
	d.scratch = d.scratch[:0]
	ascii := true
	for {
		if d.pos >= d.end && !d.fill() {
			return nil, false
		}
		chunk := d.buf[d.pos:d.end]
		i := 0
		for ; i < len(chunk); i++ {
			c := chunk[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			if c >= utf8.RuneSelf {
				ascii = false
			}
		}
		d.scratch = append(d.scratch, chunk[:i]...)
		d.pos += i
		if i == len(chunk) {
			continue
		}
		switch chunk[i] {
		case '"':
			d.pos++
		case '\\':
			d.pos++
			if !d.escape() {
				return nil, false
			}
			ascii = false // an escape may have written any rune
			continue
		default:
			return nil, false // a control character
		}
		break
	}
	if ascii || utf8.Valid(d.scratch) {
		return d.scratch, true
	}
	var fixed []byte
	for s := d.scratch; len(s) > 0; {
		r, size := utf8.DecodeRune(s)
		fixed = utf8.AppendRune(fixed, r) // RuneError for an invalid byte
		s = s[size:]
	}
	d.scratch = fixed
	return d.scratch, true
}

func (d *decoder) escape() bool {
	c, ok := d.peek()
	if !ok {
		return false
	}
	d.pos++
	if i := strings.IndexByte(`"\/bfnrt`, c); i >= 0 {
		d.scratch = append(d.scratch, "\"\\/\b\f\n\r\t"[i])
		return true
	}
	if c != 'u' || !d.ensure(4) {
		return false
	}
	r, ok := hex4(d.buf[d.pos:])
	if !ok {
		return false
	}
	d.pos += 4
	if utf16.IsSurrogate(r) {
		// As in encoding/json: the next escape is taken only when it pairs
		// with this one; a lone surrogate is U+FFFD.
		pair := utf8.RuneError
		if d.ensure(6) && d.buf[d.pos] == '\\' && d.buf[d.pos+1] == 'u' {
			if r2, ok := hex4(d.buf[d.pos+2:]); ok {
				pair = utf16.DecodeRune(r, r2)
			}
		}
		if r = pair; r != utf8.RuneError {
			d.pos += 6
		}
	}
	d.scratch = utf8.AppendRune(d.scratch, r)
	return true
}

// ensure makes n bytes available at pos, false at the end of the input.
func (d *decoder) ensure(n int) bool {
	if d.end-d.pos >= n {
		return true
	}
	if d.capDepth > 0 {
		d.capture = append(d.capture, d.buf[d.capStart:d.pos]...)
	}
	d.off += int64(d.pos)
	d.end = copy(d.buf, d.buf[d.pos:d.end])
	d.pos, d.capStart = 0, 0
	for d.end < n && d.readErr == nil {
		m, err := d.r.Read(d.buf[d.end:])
		d.end += m
		if err == io.EOF {
			d.r = eofReader{}
			break
		}
		d.readErr = err
	}
	return d.end >= n
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// structFields maps a struct type's JSON names to field indexes; extra is
// the index of its Extra map, -1 when it has none.
type structFields struct {
	byName map[string]int
	extra  int
}

var fieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if sf, ok := fieldCache.Load(t); ok {
		return sf.(*structFields)
	}
	sf := &structFields{byName: map[string]int{}, extra: -1}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Name == "Extra" && f.Type == reflect.TypeFor[map[string]json.RawMessage]():
			sf.extra = i
		case name != "" && name != "-":
			sf.byName[name] = i
		}
	}
	fieldCache.Store(t, sf)
	return sf
}

func (d *decoder) object(m *memo, dst reflect.Value, s slot) bool {
	d.pos++ // {
	var sf *structFields
	kept := dst.IsValid() // else the values are only checked, or read into d.draft
	switch {
	case !kept:
	case dst.Kind() == reflect.Struct:
		sf = fieldsOf(dst.Type())
	case dst.Kind() == reflect.Map && dst.Type().Key().Kind() == reflect.String:
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(dst.Type()))
		}
	default:
		return false
	}
	var seen uint64   // the keys read that have an index in m.keys, by their bit
	var rest []string // the others (m.keys was full)
	for k := 0; ; k++ {
		i := -1
		var key *memoKey
		switch {
		case k < len(m.leads) && d.takes(m.leads[k].text):
			i = int(m.leads[k].key)
		case k > 0 && d.takes(m.objClose):
			return m.complete(seen, rest)
		default:
			var end, ok bool
			if i, key, end, ok = d.memberKey(m, k, &rest); !ok {
				return false
			} else if end {
				return m.complete(seen, rest)
			}
			// find guesses from the keys read here, where no lead was
			// taken: a taken lead names its key already.
			if i >= 0 && k < len(m.order) {
				m.order[k] = uint8(i)
			} else if i >= 0 && k == len(m.order) && k < maxKeys {
				m.order = append(m.order, uint8(i))
			}
		}
		if i >= 0 {
			if key = &m.keys[i]; key.bad || seen&(1<<i) != 0 {
				return false // a duplicate key: the full validator decides
			}
			seen |= 1 << i
		}
		child := slotNone
		if s != slotNone {
			child = key.childOf(s)
		}
		var ok bool
		if kept {
			ok = d.member(key.schema, dst, sf, key.name)
		} else {
			ok = d.value(key.schema, reflect.Value{}, child)
		}
		if !ok {
			return false
		}
	}
}

// memberKey reads what comes before the k-th member of an object under m's
// node, to its value, and remembers it as the lead of the k-th member (or
// the close); end: it was the object's end. The key's index in m.keys is
// i; a key with none (m.keys is full) is key, and is added to rest.
func (d *decoder) memberKey(m *memo, k int, rest *[]string) (i int, key *memoKey, end, ok bool) {
	at, off := d.pos, d.off
	if end, ok = d.separator(k > 0, '}'); !ok || end {
		if end && k > 0 {
			d.keep(&m.objClose, at, off)
		}
		return -1, nil, end, ok
	}
	if c, ok := d.peek(); !ok || c != '"' {
		return -1, nil, false, false
	}
	b, ok := d.str()
	if !ok {
		return -1, nil, false, false
	}
	if i = m.find(b, k); i < 0 {
		resolved, ok := d.resolveKey(m, b)
		switch {
		case !ok:
			return -1, nil, false, false
		case len(m.keys) < maxKeys:
			i, m.keys = len(m.keys), append(m.keys, resolved)
		case slices.Contains(*rest, resolved.name):
			return -1, nil, false, false // a duplicate key: the full validator decides
		default:
			*rest, key = append(*rest, resolved.name), &resolved
		}
	}
	d.space()
	if c, ok := d.peek(); !ok || c != ':' {
		return -1, nil, false, false
	}
	d.pos++
	d.space()
	if k < maxKeys {
		for len(m.leads) <= k {
			m.leads = append(m.leads, lead{})
		}
		l := &m.leads[k]
		if d.keep(&l.text, at, off); i < 0 {
			l.text = l.text[:0] // a key with no index
		}
		l.key = uint8(max(i, 0))
	}
	return i, key, false, true
}

// complete tells whether an object under m's node that has the keys seen
// (and rest) has every required key.
func (m *memo) complete(seen uint64, rest []string) bool {
	if seen&m.reqMask != m.reqMask {
		return false
	}
	if m.reqRest {
		for _, r := range m.n.required {
			if i := m.index(r); i >= 0 && seen&(1<<i) == 0 || i < 0 && !slices.Contains(rest, r) {
				return false
			}
		}
	}
	return true
}

// member reads the value of key into the struct field, the Extra map or
// the map element it belongs to (the object's, dst).
func (d *decoder) member(pn *memo, dst reflect.Value, sf *structFields, key string) bool {
	switch {
	case sf == nil: // a map
		elem := reflect.New(dst.Type().Elem()).Elem()
		if !d.value(pn, elem, slotNone) {
			return false
		}
		dst.SetMapIndex(reflect.ValueOf(key), elem)
		return true
	}
	if i, ok := sf.byName[key]; ok {
		return d.value(pn, dst.Field(i), slotNone)
	}
	if sf.extra < 0 {
		return d.value(pn, reflect.Value{}, slotNone)
	}
	d.space()
	mark := d.beginCapture()
	if !d.value(pn, reflect.Value{}, slotNone) {
		return false
	}
	extra := dst.Field(sf.extra)
	if extra.IsNil() {
		extra.Set(reflect.ValueOf(map[string]json.RawMessage{}))
	}
	extra.SetMapIndex(reflect.ValueOf(key), reflect.ValueOf(json.RawMessage(d.endCapture(mark))))
	return true
}

func (d *decoder) array(m *memo, dst reflect.Value, s slot) bool {
	d.pos++ // [
	if dst.IsValid() && dst.Kind() != reflect.Slice {
		return false
	}
	elem := s.elem()
	if dst.IsValid() && d.each != nil && dst.Type() == caseSlice {
		elem, dst = slotEntry, reflect.Value{} // each entry is handed to d.each
	}
	if dst.IsValid() {
		dst.Set(reflect.MakeSlice(dst.Type(), 0, 0))
	}
	return d.elements(m, dst, elem, true)
}

// elements reads the elements of an array valid under m's node, from the first
// (first: just past its '[') or from any other, to its ']', into dst or
// d.draft's slot s. Elements in slotEntry are per_case entries, each
// handed to d.each.
func (d *decoder) elements(m *memo, dst reflect.Value, s slot, first bool) bool {
	var itemsNode *node
	unique := false
	if n := m.n; n != nil {
		itemsNode, unique = n.items, n.unique
	}
	items := d.memo(itemsNode)
	var seen []string
	length := 0
	for k := 0; ; k++ {
		switch {
		case k == 0 && !first:
			d.space()
		case k > 0 && d.takes(m.elemNext):
			d.space()
		case k > 0 && d.takes(m.arrClose):
			return true
		default:
			// No lead before the first element: it would be whitespace
			// only, which an empty array's ']' may follow.
			at, off := d.pos, d.off
			end, ok := d.separator(k > 0, ']')
			if !ok {
				return false
			}
			if k > 0 && end {
				d.keep(&m.arrClose, at, off)
			} else if k > 0 {
				d.keep(&m.elemNext, at, off)
			}
			if end {
				return true
			}
		}
		if s == slotEntry && d.split != nil && !unique {
			if done, ok := d.split.reached(d); done {
				return ok
			}
		}
		var elem reflect.Value
		if dst.IsValid() {
			if length == dst.Cap() {
				// Doubling: reflect.Append grows a long slice by a quarter at a time.
				grown := reflect.MakeSlice(dst.Type(), length, max(4, 2*length))
				reflect.Copy(grown, dst)
				dst.Set(grown)
			}
			dst.SetLen(length + 1)
			elem = dst.Index(length)
		}
		length++
		mark := 0
		if unique {
			mark = d.beginCapture()
		}
		if !d.value(items, elem, s) {
			return false
		}
		if s == slotEntry {
			d.each(d.part, &d.draft)
		}
		if unique {
			canon, ok := canonical(d.endCapture(mark))
			if !ok || slices.Contains(seen, canon) {
				return false
			}
			seen = append(seen, canon)
		}
	}
}

// canonical is a value's JSON text with object keys sorted, as the full
// validator compares items for uniqueItems.
func canonical(raw []byte) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}
