package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/plugin/internal/caseid"

	"agentv-review/schema"
)

// summarise is the first problem, and how many more there are.
func summarise(problems []Problem) string {
	s := problems[0].String()
	if n := len(problems) - 1; n == 1 {
		s += " (and 1 more problem)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more problems)", n)
	}
	return s
}

// RootPath is the Problem path of the document itself.
const RootPath = "(root)"

// Problem is one reason a document is not a valid feedback file.
type Problem struct {
	Path string // JSON path such as "per_case.2.verdict", or RootPath
	Msg  string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// SyntaxError reports input that is not JSON at all.
type SyntaxError struct {
	Line, Column int // 1-based
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// schemas are the embedded schema compiled for gojsonschema: whole, and
// split for validating a file's entries in parallel (see Validate).
type schemas struct {
	whole *gojsonschema.Schema
	// entry is per_case's items schema with the definitions beside it; nil
	// when per_case has keywords other than type and items, so the file
	// cannot be validated entry by entry.
	entry *gojsonschema.Schema
	// items and definitions are what entry is compiled from, for
	// compiledParts.
	items       map[string]json.RawMessage
	definitions json.RawMessage
}

var compiledSchemas = sync.OnceValues(func() (schemas, error) {
	var ss schemas
	var err error
	if ss.whole, err = schema.Compile("feedback.schema.json", schema.JSON); err != nil {
		return ss, err
	}
	var doc struct {
		Definitions json.RawMessage `json:"definitions"`
		Properties  struct {
			PerCase map[string]json.RawMessage `json:"per_case"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema.JSON, &doc); err != nil {
		return ss, err
	}
	var items map[string]json.RawMessage
	for k, v := range doc.Properties.PerCase {
		switch k {
		case "type", "description":
		case "items":
			err = json.Unmarshal(v, &items)
		default:
			return ss, nil // a constraint on the array as a whole
		}
	}
	if err != nil || items == nil || items["definitions"] != nil {
		return ss, err
	}
	items["$schema"], items["definitions"] = json.RawMessage(`"http://json-schema.org/draft-07/schema#"`), doc.Definitions
	entry, err := json.Marshal(items)
	if err == nil {
		ss.entry, err = schema.Compile("feedback.schema.json (per_case items)", entry)
	}
	ss.items, ss.definitions = items, doc.Definitions
	return ss, err
})

// compiledParts is the entry schema split by property (see entryParts);
// nil when it cannot be split exactly. Its parts are compiled when first
// used, two for each property a file has (some 60 ms for all of them), so
// only a file of at least minParts entries is validated by parts.
var compiledParts = sync.OnceValues(func() (*entryParts, error) {
	ss, err := compiledSchemas()
	if err != nil || ss.entry == nil {
		return nil, err
	}
	return compileParts(ss.items, ss.definitions)
})

// minParts is the fewest entries validated by parts: fewer cost less
// validated whole than compiling the parts. (A variable for the tests.)
var minParts = 4096

// entryParts is the entry schema split by property, so that a value that
// repeats across entries (a verdict, a target, the automated result of a
// common outcome) is validated once (see entryResults.checkRaw). The case
// schema asks only for an object's type, required names and each
// property's own schema, so what gojsonschema reports of an entry is
// exactly what shell reports of its names (the case schema with every
// property's schema true) and, for each property p it has, what one[p]
// reports of {p: value}: the case schema's properties.p alone, with the
// same definitions, at the same path.
//
// The values of a property met in a block of entries are validated
// together, as the items of one array by many[p] (type array, items
// properties.p, the same definitions): an item has no problems there if
// and only if it is valid alone, and only a value with problems is
// validated again by one[p] for Validate's problems. Each part is
// compiled when first used.
type entryParts struct {
	shell *gojsonschema.Schema
	names map[string]int // property → index in one and many
	one   []func() (*gojsonschema.Schema, error)
	many  []func() (*gojsonschema.Schema, error)
}

// caseKeywords are the keywords the case schema may have to be split:
// none of them looks at a property's value.
var caseKeywords = map[string]bool{"type": true, "required": true, "properties": true, "description": true, "title": true, "$comment": true}

// compileParts compiles the parts of per_case's items schema, nil when it
// is not a case schema that splits (or $ref or $id could resolve
// differently in a part).
func compileParts(items map[string]json.RawMessage, definitions json.RawMessage) (*entryParts, error) {
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(definitions, &defs); err != nil || !refsInternal(schema.JSON) {
		return nil, nil
	}
	var ref string
	if len(items) != 3 || json.Unmarshal(items["$ref"], &ref) != nil || !strings.HasPrefix(ref, "#/definitions/") {
		return nil, nil // items is not {"$ref": …} (beside $schema and definitions)
	}
	var kw, props map[string]json.RawMessage
	if json.Unmarshal(defs[strings.TrimPrefix(ref, "#/definitions/")], &kw) != nil || json.Unmarshal(kw["properties"], &props) != nil {
		return nil, nil
	}
	for k := range kw {
		if !caseKeywords[k] {
			return nil, nil
		}
	}
	draft := items["$schema"]
	compile := func(what string, v any) (*gojsonschema.Schema, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return schema.Compile("feedback.schema.json (per_case items, "+what+")", b)
	}
	lazily := func(what string, v any) func() (*gojsonschema.Schema, error) {
		return sync.OnceValues(func() (*gojsonschema.Schema, error) { return compile(what, v) })
	}
	parts := &entryParts{names: map[string]int{}}
	shellProps := map[string]bool{}
	for name, p := range props {
		parts.names[name] = len(parts.one)
		parts.one = append(parts.one, lazily("property "+name, map[string]any{"$schema": draft, "definitions": definitions,
			"properties": map[string]json.RawMessage{name: p}}))
		parts.many = append(parts.many, lazily("property "+name+" of many", map[string]any{"$schema": draft, "definitions": definitions,
			"type": "array", "items": p}))
		shellProps[name] = true
	}
	kw["$schema"] = draft
	shell := map[string]any{"properties": shellProps}
	for k, v := range kw {
		if k != "properties" {
			shell[k] = v
		}
	}
	var err error
	parts.shell, err = compile("names", shell)
	return parts, err
}

// refsInternal tells whether every $ref in the schema data points into
// its definitions and no $id but the root's changes what they resolve
// against: then they resolve the same in a part compiled with the
// definitions beside it. Any other shape (or a property named $ref or
// $id) is refused.
func refsInternal(data []byte) bool {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	var ok func(v any, root bool) bool
	ok = func(v any, root bool) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if r, isStr := x.(string); k == "$ref" && (!isStr || !strings.HasPrefix(r, "#/definitions/")) || k == "$id" && !root {
					return false
				}
				if !ok(x, false) {
					return false
				}
			}
		case []any:
			for _, x := range v {
				if !ok(x, false) {
					return false
				}
			}
		}
		return true
	}
	return ok(doc, true)
}

// Validate checks data against the feedback schema and for duplicate
// per_case entries (same suite, test_id, target and variant). It returns every
// problem, sorted by path; none means valid. The error is non-nil only
// when data is not JSON (a *SyntaxError) or the embedded schema is broken.
func Validate(data []byte) ([]Problem, error) {
	return validate(data, syntaxOf(data))
}

// Check tells which kind of feedback file data is (see Detect) and, when
// it is a review, validates it (see Validate), checking the syntax of data
// once.
func Check(data []byte) (Kind, []Problem, error) {
	valid := syntaxOf(data)
	if k := detect(data); k != KindReview && valid() {
		return k, nil, nil
	}
	problems, err := validate(data, valid)
	return KindReview, problems, err
}

// syntaxOf tells, when called, whether data is JSON.
func syntaxOf(data []byte) func() bool {
	return sync.OnceValue(func() bool { return json.Valid(data) })
}

// validate is Validate with the syntax check valid, called only when data
// cannot be split into its entries: a split document's syntax is checked
// piece by piece, the entries as they are read on every core.
func validate(data []byte, valid func() bool) ([]Problem, error) {
	ss, err := compiledSchemas()
	if err != nil {
		return nil, err
	}
	var problems []Problem
	notJSON := false
	if top, entries, ok := splitEntries(data); ok && ss.entry != nil {
		// Entry by entry on every core, and the rest with per_case
		// empty: the same problems as the whole, in a fraction of the time.
		// data is JSON when both are (the entries' separators are checked
		// by the split).
		if notJSON = !json.Valid(top); !notJSON {
			if problems, err = validateWith(ss.whole, top, ""); err == nil {
				var more []Problem
				more, err = validateEntries(ss.entry, entries)
				problems = append(problems, more...)
				notJSON = errors.Is(err, errNotJSON)
			}
		}
	} else if notJSON = !valid(); !notJSON {
		if problems, err = validateWith(ss.whole, data, ""); err == nil {
			problems = append(problems, duplicates(entryKeys(entriesOf(data)))...)
		}
	}
	if notJSON {
		var doc json.RawMessage
		err := json.Unmarshal(data, &doc)
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			line, col := position(data, se.Offset)
			return nil, &SyntaxError{Line: line, Column: col, Msg: se.Error()}
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	sortProblems(problems)
	return problems, nil
}

// sortProblems sorts problems by path, then by message: gojsonschema
// reports some problems of one path (names an object's propertyNames
// refuses) in Go map order, and the same file must always give the same
// report.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		if c := comparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
}

// validateWith validates data with s, prefixing each problem's path with
// prefix (the path of data in its document; "" for the document).
func validateWith(s *gojsonschema.Schema, data []byte, prefix string) ([]Problem, error) {
	return validateLoaded(s, gojsonschema.NewBytesLoader(data), prefix)
}

// decoded is a document decoded as gojsonschema decodes it (json.Number
// for numbers), handed to it without encoding it again.
type decoded struct {
	gojsonschema.JSONLoader // a document loader, for the other methods
	doc                     any
}

func (d decoded) LoadJSON() (any, error) { return d.doc, nil }

// validateLoaded validates the document l loads with s, prefixing each
// problem's path with prefix.
func validateLoaded(s *gojsonschema.Schema, l gojsonschema.JSONLoader, prefix string) ([]Problem, error) {
	problems, err := validateRel(s, l, prefix)
	return appendPrefixed(nil, problems, prefix), err
}

// validateRel validates the document l loads with s, the value at prefix
// in its document: the problems' paths are relative to it. A panic inside
// gojsonschema (it dereferences nil on a number it cannot parse, e.g.
// json.Number(".5"), which tree no longer makes) is an error naming
// prefix, not a crash of the command: Validate runs on other goroutines,
// where a panic would end the process with a stack trace.
func validateRel(s *gojsonschema.Schema, l gojsonschema.JSONLoader, prefix string) (problems []Problem, err error) {
	defer func() {
		if v := recover(); v != nil {
			where := prefix
			if where == "" {
				where = RootPath
			}
			problems, err = nil, fmt.Errorf("the JSON Schema validator failed on %s: %v", where, v)
		}
	}()
	res, err := s.Validate(l)
	if err != nil {
		return nil, err
	}
	for _, re := range res.Errors() {
		problems = append(problems, problemOf(re))
	}
	return problems, nil
}

// appendPrefixed appends problems to dst, each path prefixed with prefix
// (the path of their document's value in the whole; "" for the whole).
func appendPrefixed(dst, problems []Problem, prefix string) []Problem {
	for _, p := range problems {
		if prefix != "" {
			if p.Path == RootPath {
				p.Path = prefix
			} else {
				p.Path = prefix + "." + p.Path
			}
		}
		dst = append(dst, p)
	}
	return dst
}

var errNotJSON = errors.New("not JSON")

// validateEntries validates each per_case entry with the entry schema, the
// entries split between the cores, and checks for duplicates.
func validateEntries(s *gojsonschema.Schema, entries []json.RawMessage) ([]Problem, error) {
	r := newEntryResults(s, len(entries))
	err := inBlocks(len(entries), func(t *treeReader, block, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if ok, err := r.checkRaw(t, block, i, entries[i]); err != nil {
				return err // an earlier entry's error comes first (notJSON)
			} else if !ok {
				return errNotJSON
			}
		}
		return r.flush(t, block)
	})
	if err != nil {
		return nil, err
	}
	return r.problems(), nil
}

// entryBlock is how many entries a core takes at a time.
const entryBlock = 256

func blockCount(n int) int { return (n + entryBlock - 1) / entryBlock }

// inBlocks calls fn for the consecutive blocks of [0, n), numbered from
// 0, on every core, each core with its own treeReader. It stops at the
// first error.
func inBlocks(n int, fn func(t *treeReader, block, lo, hi int) error) error {
	blocks := blockCount(n)
	workers := min(runtime.GOMAXPROCS(0), max(blocks, 1))
	errs := make([]error, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var t treeReader
			for errs[w] == nil {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				errs[w] = fn(&t, b, b*entryBlock, min(n, (b+1)*entryBlock))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// entryResults gathers the results of validating entries block by block:
// their problems in entry order and their identities for duplicates.
type entryResults struct {
	schema *gojsonschema.Schema
	parts  *entryParts // the schema by parts, nil when it does not split
	keys   []caseid.ID
	found  [][]Problem // by block
}

func newEntryResults(s *gojsonschema.Schema, entries int) *entryResults {
	r := &entryResults{schema: s, keys: make([]caseid.ID, entries), found: make([][]Problem, blockCount(entries))}
	if entries < minParts {
		return r
	}
	if ss, err := compiledSchemas(); err == nil && s == ss.entry {
		if parts, err := compiledParts(); err == nil && parts != nil {
			r.parts = parts
		}
	}
	return r
}

// entryMemo is what the entries of a few blocks, checked one after
// another on one core, had validated by parts (see byParts): the problems,
// with paths relative to the entry, of each sequence of names and of each
// property's values, by their keys: a value's key is its JSON. It also
// holds the problems of the block being checked as pieces, in entry
// order, some of them a value still to be validated (see flush).
type entryMemo struct {
	names   map[string][]Problem
	props   []map[string][]Problem // by entryParts index
	tally   []memoTally            // by entryParts index
	seq     []byte                 // the names of the entry being checked
	members []entryMember          // of the entry being checked
	last    []int                  // by entryParts index: its member that counts (byParts)
	pieces  []piece                // the block's problems
	queue   [][]queued             // by entryParts index: the block's values to validate
	queued  []map[string]int       // by entryParts index: a looked-up value's place in queue
	items   []any                  // the values of one property validated together
	again   []bool                 // which of them to validate alone
}

// entryMember is a member of the entry being checked.
type entryMember struct {
	key    string
	prop   int    // entryParts index, -1 for a name the schema does not declare
	raw    []byte // the key of its value
	v      any    // its value, nil when raw was judged before (checkRaw) or it is str
	str    string // its value when isStr, a string not yet made an any (checkEncoded)
	isStr  bool
	looked bool // raw was looked up in the memo
	seen   bool // and found there, with these problems
	found  []Problem
}

// value is mb's value.
func (mb *entryMember) value() any {
	if mb.isStr {
		return mb.str
	}
	return mb.v
}

// text is mb's value when it is a string, else "".
func (mb *entryMember) text() string {
	if mb.isStr {
		return mb.str
	}
	s, _ := mb.v.(string)
	return s
}

// piece is some of the problems of entry i: problems, or when part is not
// -1 those of the value queue[part][k].
type piece struct {
	i, part, k int
	problems   []Problem
}

// queued is a value of a property to validate (see flush).
type queued struct {
	key      string // the property
	v        any
	memoKey  string // its key in the memo, "" when it is not remembered
	i        int    // the first entry that has it
	problems []Problem
	err      error
}

// memoLimit caps the values an entryMemo remembers per property: a full
// memo starts again, as values that repeat tend to repeat nearby.
const memoLimit = 8192

// memoTally counts the values of a property looked up in an entryMemo and
// those found, to stop looking up a property whose values hardly repeat
// (a test_id, a fingerprint).
type memoTally struct{ looked, found int }

// worth tells whether looking up a value of property p is worth it.
func (m *entryMemo) worth(p int) bool {
	t := m.tally[p]
	return t.looked < 1024 || t.found*8 >= t.looked
}

// lookup is the problems remembered of property p's value raw.
func (m *entryMemo) lookup(p int, raw []byte) (problems []Problem, seen bool) {
	problems, seen = m.props[p][string(raw)]
	m.tally[p].looked++
	if seen {
		m.tally[p].found++
	}
	return problems, seen
}

// memo is t's entryMemo: a treeReader checks the blocks of one core, one
// after another (inBlocks).
func (r *entryResults) memo(t *treeReader) *entryMemo {
	if t.memo != nil {
		return t.memo
	}
	n := len(r.parts.one)
	m := &entryMemo{names: map[string][]Problem{}, props: make([]map[string][]Problem, n), tally: make([]memoTally, n),
		last: make([]int, n), queue: make([][]queued, n), queued: make([]map[string]int, n)}
	for p := range n {
		m.props[p], m.queued[p] = map[string][]Problem{}, map[string]int{}
	}
	t.memo = m
	return m
}

// appendName adds name k to the entry's sequence of names.
func (m *entryMemo) appendName(k string) {
	m.seq = append(strconv.AppendInt(m.seq, int64(len(k)), 10), ':')
	m.seq = append(m.seq, k...)
}

// remember records the problems of key in memo.
func remember(memo map[string][]Problem, key string, problems []Problem) {
	if len(memo) >= memoLimit {
		clear(memo)
	}
	memo[key] = problems
}

// entryPath is the Problem path of entry i.
func entryPath(i int) string { return "per_case." + strconv.Itoa(i) }

// checkRaw validates entry i of block, raw JSON as per_case holds it; ok
// is false when raw is not JSON. An object is validated by parts, each
// value known by its bytes: the bytes of a JSON value decode to one tree,
// and bytes judged before are known to be JSON, so they are not decoded
// again (but for an identity field). Anything else is validated whole.
// The caller flushes each block once its entries are checked.
func (r *entryResults) checkRaw(t *treeReader, block, i int, raw []byte) (ok bool, err error) {
	if r.parts == nil || raw[0] != '{' {
		doc, ok := t.read(raw, 2) // in the document and per_case
		if !ok {
			return r.notJSON(t, block)
		}
		return true, r.checkWhole(t, block, i, doc)
	}
	m := r.memo(t)
	m.members, m.seq = m.members[:0], m.seq[:0]
	t.b, t.i, t.bad = raw, 0, false
	t.object(func(k string) {
		start := skipSpace(t.b, t.i)
		mb, first := r.newMember(m, k)
		if first {
			end := skipValue(t.b, start)
			if m.look(&mb, t.b[start:end]) {
				t.i = end
				m.members = append(m.members, mb)
				return
			}
		}
		mb.v = t.value(entryDepth)
		m.decoded(mb, t.b[start:t.i])
	})
	if t.space(); t.bad || t.i != len(t.b) {
		return r.notJSON(t, block)
	}
	return true, r.byParts(t, m, block, i)
}

// entryDepth is the depth of an entry's values: in the document, per_case
// and the entry.
const entryDepth = 3

// checkEncoded is checkRaw of the entry e has just encoded, entry i of
// block, by parts (r.parts is not nil), from what e noted of its members
// as it wrote them: each member's key and value are those checkRaw reads
// from the bytes (the key is what they decode to, readBack; a string value
// too), so no byte is read again but those of a value that is not a
// string and was not judged before.
func (r *entryResults) checkEncoded(t *treeReader, block, i int, e *entryEncoder) (ok bool, err error) {
	m := r.memo(t)
	m.members, m.seq = m.members[:0], m.seq[:0]
	for _, em := range e.members {
		raw := e.b[em.start:em.end]
		mb, first := r.newMember(m, readBack(em.key))
		if first && m.look(&mb, raw) {
			m.members = append(m.members, mb)
			continue
		}
		if em.isStr {
			mb.str, mb.isStr = readBack(em.str), true
		} else if mb.v, ok = t.read(raw, entryDepth); !ok {
			return r.notJSON(t, block)
		}
		m.decoded(mb, raw)
	}
	return true, r.byParts(t, m, block, i)
}

// notJSON is checkRaw's result for an entry that is not JSON, with the
// error of an earlier entry's value still to be validated, if one fails:
// callers look at the error first, as an earlier entry's error comes
// first.
func (r *entryResults) notJSON(t *treeReader, block int) (ok bool, err error) {
	return false, r.flush(t, block)
}

// newMember adds the name k to the entry being checked and starts its
// member; first tells whether its value is looked up in the memo by its
// bytes before it is decoded (a declared property but an identity field,
// whose value is needed, when looking it up is worth it).
func (r *entryResults) newMember(m *entryMemo, k string) (mb entryMember, first bool) {
	m.appendName(k)
	mb = entryMember{key: k, prop: -1}
	p, declared := r.parts.names[k]
	if !declared {
		return mb, false
	}
	mb.prop = p
	return mb, !slices.Contains(identityFields[:], k) && m.worth(p)
}

// look looks the value raw of mb up in the memo, telling whether it was
// judged before.
func (m *entryMemo) look(mb *entryMember, raw []byte) bool {
	mb.raw, mb.looked = raw, true
	mb.found, mb.seen = m.lookup(mb.prop, raw)
	return mb.seen
}

// decoded adds mb, its value decoded from raw, to the members of the entry
// being checked; an identity field is looked up in the memo now.
func (m *entryMemo) decoded(mb entryMember, raw []byte) {
	mb.raw = raw
	if mb.prop >= 0 && !mb.looked && m.worth(mb.prop) {
		m.look(&mb, raw)
	}
	m.members = append(m.members, mb)
}

// checkWhole validates entry i of block, decoded as doc, whole.
func (r *entryResults) checkWhole(t *treeReader, block, i int, doc any) error {
	r.keys[i] = entryKey(doc)
	problems, err := validateRel(r.schema, decoded{gojsonschema.NewGoLoader(nil), doc}, entryPath(i))
	if err != nil {
		return r.failed(t, block, err)
	}
	if r.parts == nil {
		r.found[block] = appendPrefixed(r.found[block], problems, entryPath(i))
	} else {
		r.memo(t).add(piece{i: i, part: -1, problems: problems})
	}
	return nil
}

// failed is err, an error validating an entry of block, unless an earlier
// entry's value still to be validated fails first.
func (r *entryResults) failed(t *treeReader, block int, err error) error {
	if first := r.flush(t, block); first != nil {
		return first
	}
	return err
}

// byParts validates entry i of block, an object whose members are
// m.members (the last of a repeated key counts) and names m.seq, by parts
// (see entryParts): the problems of a part whose key was judged before
// are those found then; a value not judged before is queued for flush.
func (r *entryResults) byParts(t *treeReader, m *entryMemo, block, i int) error {
	problems, seen := m.names[string(m.seq)]
	if !seen {
		names := make(map[string]any, len(m.members))
		for _, mb := range m.members {
			names[mb.key] = nil
		}
		var err error
		if problems, err = validateRel(r.parts.shell, decoded{gojsonschema.NewGoLoader(nil), names}, entryPath(i)); err != nil {
			return r.failed(t, block, err)
		}
		remember(m.names, string(m.seq), problems)
	}
	m.add(piece{i: i, part: -1, problems: problems})
	for j, mb := range m.members {
		if mb.prop >= 0 {
			m.last[mb.prop] = j // the last of a repeated key counts
		}
	}
	for j, mb := range m.members {
		if mb.prop < 0 || m.last[mb.prop] != j {
			continue // not declared, or not the member that counts
		}
		if mb.seen {
			m.add(piece{i: i, part: -1, problems: mb.found})
		} else {
			m.enqueue(i, mb)
		}
	}
	r.keys[i] = keyOf(func(k string) string {
		for j := len(m.members) - 1; j >= 0; j-- {
			if m.members[j].key == k {
				return m.members[j].text()
			}
		}
		return ""
	})
	return nil
}

// add appends pc to the block's problems; a piece of no problems is left out.
func (m *entryMemo) add(pc piece) {
	if pc.part >= 0 || len(pc.problems) > 0 {
		m.pieces = append(m.pieces, pc)
	}
}

// enqueue queues the value of member mb of entry i to be validated, once
// per block when it is looked up in the memo.
func (m *entryMemo) enqueue(i int, mb entryMember) {
	p := mb.prop
	var key string
	if mb.looked {
		if k, ok := m.queued[p][string(mb.raw)]; ok {
			m.tally[p].found++
			m.add(piece{i: i, part: p, k: k})
			return
		}
		key = string(mb.raw)
		m.queued[p][key] = len(m.queue[p])
	}
	m.add(piece{i: i, part: p, k: len(m.queue[p])})
	m.queue[p] = append(m.queue[p], queued{key: mb.key, v: mb.value(), memoKey: key, i: i})
}

// flush validates the values queued by the entries of block, property by
// property, remembers them, and appends the block's problems to its
// found, in order; the error is the first entry's that failed.
func (r *entryResults) flush(t *treeReader, block int) error {
	m := t.memo
	if m == nil {
		return nil
	}
	for p, q := range m.queue {
		if len(q) > 0 {
			if err := r.validateQueued(m, p, q); err != nil {
				return err
			}
		}
	}
	found := r.found[block]
	var err error
	for _, pc := range m.pieces {
		problems := pc.problems
		if pc.part >= 0 {
			q := &m.queue[pc.part][pc.k]
			if err = q.err; err != nil {
				break
			}
			problems = q.problems
		}
		if len(problems) > 0 {
			found = appendPrefixed(found, problems, entryPath(pc.i))
		}
	}
	r.found[block] = found
	for p, q := range m.queue {
		for _, v := range q {
			if v.memoKey != "" && v.err == nil {
				remember(m.props[p], v.memoKey, v.problems)
			}
		}
		clear(q)
		m.queue[p] = q[:0]
		clear(m.queued[p])
	}
	clear(m.pieces)
	m.pieces = m.pieces[:0]
	return err
}

// validateQueued validates the values q of property p: all of them as the
// items of one array, then alone each one that has problems there, for
// its problems (see entryParts).
func (r *entryResults) validateQueued(m *entryMemo, p int, q []queued) error {
	many, err := r.parts.many[p]()
	if err != nil {
		return err
	}
	m.items, m.again = m.items[:0], m.again[:0]
	for _, v := range q {
		m.items = append(m.items, v.v)
		m.again = append(m.again, false)
	}
	problems, err := validateRel(many, decoded{gojsonschema.NewGoLoader(nil), m.items}, "")
	clear(m.items)
	all := err != nil // a failure is reported by the entry's own validation
	for _, pr := range problems {
		if k, ok := itemOf(pr.Path); ok && k < len(q) {
			m.again[k] = true
		} else {
			all = true // a problem outside the items cannot be: validate them all alone
		}
	}
	var one *gojsonschema.Schema
	for k := range q {
		if !m.again[k] && !all {
			continue
		}
		if one == nil {
			if one, err = r.parts.one[p](); err != nil {
				return err
			}
		}
		q[k].problems, q[k].err = validateRel(one, decoded{gojsonschema.NewGoLoader(nil), map[string]any{q[k].key: q[k].v}}, entryPath(q[k].i))
	}
	return nil
}

// itemOf is the item of an array a Problem path relative to it is in.
func itemOf(path string) (int, bool) {
	n, _, _ := strings.Cut(path, ".")
	k, err := strconv.Atoi(n)
	return k, err == nil && k >= 0
}

// problems are the entries' problems, then their duplicates.
func (r *entryResults) problems() []Problem {
	return append(slices.Concat(r.found...), duplicates(r.keys)...)
}

// entriesOf is the per_case entries of data, nil when there are none.
func entriesOf(data []byte) []json.RawMessage {
	_, entries, _ := splitEntries(data)
	return entries
}

// splitEntries splits valid JSON data, a feedback document, into the
// document with per_case empty and per_case's entries, in one pass. It
// reads per_case as encoding/json and gojsonschema do: the last member of
// that exact name (escapes decoded) wins. ok is false when data is not an
// object or its per_case is not an array. On data that is not JSON it
// returns in time, without panicking, and data is JSON if and only if top
// and each entry are (ok is false when per_case's brackets and commas are
// not JSON's).
func splitEntries(data []byte) (top []byte, entries []json.RawMessage, ok bool) {
	start, end := -1, -1 // per_case's value
	separated := true
	if !eachMember(data, func(key []byte, vs int) int {
		if !isKey(key, "per_case") {
			return skipValue(data, vs)
		}
		start, entries = vs, nil
		if data[vs] != '[' {
			end = skipValue(data, vs)
			return end
		}
		// The entries are found as the array is read, and the commas
		// between them checked.
		i := skipSpace(data, vs+1)
		for i < len(data) && data[i] != ']' {
			e := skipValue(data, i)
			if e == i {
				end = len(data) // not JSON
				return end
			}
			entries = append(entries, data[i:e])
			if i = skipSpace(data, e); i < len(data) && data[i] == ',' {
				if i = skipSpace(data, i+1); i < len(data) && data[i] == ']' {
					separated = false // a trailing comma
				}
			} else if i < len(data) && data[i] != ']' {
				separated = false // no comma
			}
		}
		end = min(i+1, len(data))
		return end
	}) || !separated || start < 0 || start >= len(data) || data[start] != '[' {
		return nil, nil, false
	}
	top = slices.Concat(data[:start], []byte("[]"), data[end:])
	return top, entries, true
}

// eachMember calls fn with the raw key and the value's start of each
// member of valid JSON data, in order; fn returns the value's end, or -1
// to stop. It reports false when data is not an object.
func eachMember(data []byte, fn func(key []byte, start int) (end int)) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; {
		keyEnd := skipValue(data, i)
		start := skipSpace(data, skipSpace(data, keyEnd)+1) // past the colon
		if keyEnd-i < 2 || start >= len(data) {
			return true // not JSON
		}
		end := fn(data[i:keyEnd], start)
		if end < 0 {
			return true
		}
		if end <= start {
			return true // not JSON
		}
		if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return true
}

// isKey tells whether the JSON string raw is name.
func isKey(raw []byte, name string) bool {
	if !bytes.Contains(raw, []byte(`\`)) {
		return string(raw[1:len(raw)-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value of valid JSON that starts at i
// (of other data, some offset up to len(data)).
func skipValue(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		if depth > 0 && !nesting[data[i]] {
			continue // inside an object or array only these bytes count
		}
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
			if depth == 0 {
				return min(i+1, len(data))
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a number or literal
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i // the end of a number or literal
			}
		}
	}
	return min(i, len(data))
}

// nesting are the bytes skipValue looks at inside an object or array.
var nesting = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// stringEnd returns the offset of the quote that ends the string starting
// at i, len(data) when there is none.
func stringEnd(data []byte, i int) int {
	for {
		j := bytes.IndexByte(data[i+1:], '"')
		if j < 0 {
			return len(data)
		}
		i += j + 1
		k := i - 1
		for data[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i // not escaped
		}
	}
}

// problemOf turns a schema error into a Problem. A missing required field
// is reported at the field's own path ("per_case.0.verdict") rather than
// at its parent, so the path names what to add.
func problemOf(re gojsonschema.ResultError) Problem {
	path := re.Field()
	if re.Type() == "required" {
		if prop, ok := re.Details()["property"].(string); ok {
			return Problem{Path: joinPath(path, prop), Msg: "required field is missing"}
		}
	}
	// Descriptions of some errors start with the field; the path says it.
	msg := strings.TrimPrefix(re.Description(), re.Field()+" ")
	return Problem{Path: path, Msg: lowerFirst(msg)}
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

func joinPath(parent, child string) string {
	if parent == RootPath || parent == "" {
		return child
	}
	return parent + "." + child
}

// duplicates reports the per_case entries whose identity (suite, test_id,
// target, variant, eval_path; see entryKey) repeats an earlier entry's.
// Entries without a test_id are left to the schema. The identities are
// compared only when two of their hashes meet (identitiesMayRepeat): a
// map of 100k identities cost apply's write and validate a fifth of their
// time.
func duplicates(keys []caseid.ID) []Problem {
	if !identitiesMayRepeat(keys) {
		return nil
	}
	first := make(map[caseid.ID]int, len(keys))
	var problems []Problem
	for i, k := range keys {
		if k.TestID == "" {
			continue
		}
		if j, seen := first[k]; seen {
			problems = append(problems, Problem{
				Path: "per_case." + strconv.Itoa(i),
				Msg:  fmt.Sprintf("duplicate of per_case.%d (same suite, test_id, target and variant)", j),
			})
			continue
		}
		first[k] = i
	}
	return problems
}

// entryKeys are the identities of entries (see entryKey).
func entryKeys(entries []json.RawMessage) []caseid.ID {
	keys := make([]caseid.ID, len(entries))
	for i, raw := range entries {
		doc, _ := tree(raw) // valid JSON: the document is
		keys[i] = entryKey(doc)
	}
	return keys
}

// entryKey is a decoded entry's identity; a field that is not a string
// counts as empty (and an entry that is not an object has none): the
// schema reports them.
func entryKey(entry any) caseid.ID {
	e, _ := entry.(map[string]any)
	return keyOf(func(k string) string {
		s, _ := e[k].(string)
		return s
	})
}

// identityFields are the names of an entry's identity (see keyOf).
var identityFields = [...]string{"suite", "test_id", "target", "variant", "eval_path"}

// keyOf is the identity of the entry whose member k is the string text(k)
// ("" when it has none or it is not a string).
func keyOf(text func(k string) string) caseid.ID {
	return caseid.ID{Suite: text("suite"), TestID: text("test_id"), Target: text("target"), Variant: text("variant"), EvalPath: text("eval_path")}
}

// comparePaths orders paths segment by segment, numbers numerically, so
// per_case.2 sorts before per_case.10 and RootPath sorts first.
func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	if a == RootPath {
		return -1
	}
	if b == RootPath {
		return 1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		an, aerr := strconv.Atoi(as[i])
		bn, berr := strconv.Atoi(bs[i])
		var c int
		if aerr == nil && berr == nil {
			c = an - bn
		} else {
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

// position converts the offset of a *json.SyntaxError (the count of bytes
// read, so the offending byte is the one before it) into a 1-based line and
// column. At the end of the input it points at the last non-space byte.
func position(data []byte, offset int64) (line, col int) {
	end := len(bytes.TrimRight(data, " \t\r\n"))
	before := data[:max(min(int(offset), end)-1, 0)]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// node is one compiled schema of the light validator: the subset of JSON
// Schema draft-07 feedback.schema.json uses, interpreted from the embedded
// schema itself, so a constraint added there is enforced by the light read
// path (LoadFast) too. A keyword outside the subset fails compileLight,
// which the tests run: extending the schema with a new kind of rule means
// extending this interpreter, never silently ignoring the rule.
type node struct {
	types      jsonTypes // 0: any type
	enum       []any     // strings, bools and nil (null) only
	required   []string
	properties map[string]property
	additional *node // schema of other properties; nil: any
	noExtra    bool  // additionalProperties: false
	propNames  *node
	items      *node
	unique     bool
	minimum    *big.Rat
	maximum    *big.Rat
	minFloat   exactFloat
	maxFloat   exactFloat
	pattern    *pattern
	format     string
	ref        string // "#/definitions/x", resolved into target
	target     *node
}

// property is a declared property: its name (so a key read from a
// document need not be made a string to be named) and its schema.
type property struct {
	name   string
	schema *node
}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true,
	"$comment": true, "default": true, "examples": true, "definitions": true}

var (
	lightOnce sync.Once
	lightRoot *node
	lightErr  error
)

// lightSchema compiles the embedded schema for the light validator once.
func lightSchema() (*node, error) {
	lightOnce.Do(func() {
		lightRoot, lightErr = compileLight(schema.JSON)
		if lightErr != nil {
			lightErr = fmt.Errorf("embedded schema/feedback.schema.json: %w", lightErr)
		}
	})
	return lightRoot, lightErr
}

func compileLight(data []byte) (*node, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var defs map[string]json.RawMessage
	if raw, ok := doc["definitions"]; ok {
		if err := json.Unmarshal(raw, &defs); err != nil {
			return nil, fmt.Errorf("definitions: %w", err)
		}
	}
	compiled := map[string]*node{}
	var refs []*node
	var compile func(path string, raw json.RawMessage) (*node, error)
	compile = func(path string, raw json.RawMessage) (*node, error) {
		var kw map[string]json.RawMessage
		if err := json.Unmarshal(raw, &kw); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		n := &node{}
		for k, v := range kw {
			var err error
			switch k {
			case "type":
				var one string
				var many []string
				if json.Unmarshal(v, &one) == nil {
					many = []string{one}
				} else {
					err = json.Unmarshal(v, &many)
				}
				for _, t := range many {
					bit, known := typeBits[t]
					if !known {
						err = fmt.Errorf("unknown type %q", t)
					}
					n.types |= bit
				}
			case "enum":
				err = json.Unmarshal(v, &n.enum)
				for _, e := range n.enum {
					switch e.(type) {
					case string, bool, nil:
					default:
						err = fmt.Errorf("enum value %v: only strings, booleans and null are supported", e)
					}
				}
			case "required":
				err = json.Unmarshal(v, &n.required)
			case "properties":
				var props map[string]json.RawMessage
				if err = json.Unmarshal(v, &props); err == nil {
					n.properties = map[string]property{}
					for name, p := range props {
						pn, err := compile(path+".properties."+name, p)
						if err != nil {
							return nil, err
						}
						n.properties[name] = property{name, pn}
					}
				}
			case "additionalProperties":
				var b bool
				if json.Unmarshal(v, &b) == nil {
					n.noExtra = !b
				} else {
					n.additional, err = compile(path+"."+k, v)
				}
			case "propertyNames":
				n.propNames, err = compile(path+"."+k, v)
			case "items":
				n.items, err = compile(path+"."+k, v)
			case "uniqueItems":
				err = json.Unmarshal(v, &n.unique)
			case "minimum", "maximum":
				r, ok := new(big.Rat).SetString(string(v))
				if !ok {
					err = fmt.Errorf("%s is not a number", v)
				} else if k == "minimum" {
					n.minimum, n.minFloat = r, exactFloatOf(r)
				} else {
					n.maximum, n.maxFloat = r, exactFloatOf(r)
				}
			case "pattern":
				var p string
				if err = json.Unmarshal(v, &p); err == nil {
					n.pattern, err = compilePattern(p)
				}
			case "format":
				err = json.Unmarshal(v, &n.format)
			case "$ref":
				if err = json.Unmarshal(v, &n.ref); err == nil && !strings.HasPrefix(n.ref, "#/definitions/") {
					err = fmt.Errorf("$ref %q: only #/definitions/ references are supported", n.ref)
				}
				refs = append(refs, n)
			default:
				if !annotations[k] {
					err = fmt.Errorf("keyword %q is not supported by the light validator", k)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", path, k, err)
			}
		}
		if n.ref != "" && (len(kw) > 1+countAnnotations(kw)) {
			return nil, fmt.Errorf("%s: keywords beside $ref are ignored by draft-07; remove them", path)
		}
		return n, nil
	}
	root, err := compile("(schema)", data)
	if err != nil {
		return nil, err
	}
	for name, raw := range defs {
		if compiled[name], err = compile("(schema).definitions."+name, raw); err != nil {
			return nil, err
		}
	}
	for _, n := range refs {
		if n.target = compiled[strings.TrimPrefix(n.ref, "#/definitions/")]; n.target == nil {
			return nil, fmt.Errorf("$ref %q: no such definition", n.ref)
		}
	}
	return root, nil
}

func countAnnotations(kw map[string]json.RawMessage) int {
	n := 0
	for k := range kw {
		if annotations[k] {
			n++
		}
	}
	return n
}

// resolve follows $ref chains.
func (n *node) resolve() *node {
	for n != nil && n.target != nil {
		n = n.target
	}
	return n
}

// allows tells whether the schema admits a value of JSON type t (an
// integral number also counts as "integer").
func (n *node) allows(t jsonTypes, integral bool) bool {
	if n == nil || n.types == 0 || n.types&t != 0 {
		return true
	}
	return t == typeNumber && integral && n.types&typeInteger != 0
}

// jsonTypes is a set of JSON Schema types.
type jsonTypes uint8

const (
	typeObject jsonTypes = 1 << iota
	typeArray
	typeString
	typeBoolean
	typeNull
	typeNumber
	typeInteger
)

var typeBits = map[string]jsonTypes{"object": typeObject, "array": typeArray, "string": typeString,
	"boolean": typeBoolean, "null": typeNull, "number": typeNumber, "integer": typeInteger}

// checkString applies the string keywords and enum.
func (n *node) checkString(s string) bool {
	if n == nil {
		return true
	}
	if n.enum != nil && !slices.Contains(n.enum, any(s)) {
		return false
	}
	if n.pattern != nil && !n.pattern.matchString(s) {
		return false
	}
	return n.format == "" || gojsonschema.FormatCheckers.IsFormat(n.format, s)
}

// checkBytes is checkString for a value that is not kept: true when b is
// valid, false when it is not or a check needs it as a string (format).
func (n *node) checkBytes(b []byte) bool {
	if n == nil {
		return true
	}
	if n.format != "" || n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { s, ok := e.(string); return ok && s == string(b) }) {
		return false
	}
	return n.pattern == nil || n.pattern.match(b)
}

// inRange applies minimum and maximum to a number whose nearest float64
// is f (fits: within float64's range) and exact value exact(). A number
// whose nearest float64 lies strictly inside bounds that are themselves
// exact float64 values is inside them (rounding to nearest keeps order);
// any other number is compared exactly.
func (n *node) inRange(f float64, fits bool, exact func() *big.Rat) bool {
	if n == nil || n.minimum == nil && n.maximum == nil {
		return true
	}
	if fits &&
		(n.minimum == nil || n.minFloat.ok && f > n.minFloat.v) && (n.maximum == nil || n.maxFloat.ok && f < n.maxFloat.v) {
		return true
	}
	r := exact()
	return (n.minimum == nil || r.Cmp(n.minimum) >= 0) && (n.maximum == nil || r.Cmp(n.maximum) <= 0)
}

// exactFloat is a bound as a float64, ok when it is exactly that.
type exactFloat struct {
	v  float64
	ok bool
}

func exactFloatOf(r *big.Rat) exactFloat {
	v, exact := r.Float64()
	return exactFloat{v, exact}
}

// checkScalar applies enum to true, false and null.
func (n *node) checkScalar(v any) bool {
	return n == nil || n.enum == nil || slices.Contains(n.enum, v)
}
