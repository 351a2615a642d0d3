package feedback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"agentv-review/plugin/internal/jsonenc"
)

// sink receives a value as the tokens encoding/json writes for it through
// the MarshalJSON methods (known fields in declaration order, omitempty
// honoured, then Extra sorted by key): encoder writes them as Write's
// bytes, treeSink builds the tree gojsonschema validates (see tree), so a
// file is validated without being decoded again. The first error sticks.
type sink interface {
	object()
	array()
	end() // of the innermost object or array
	// key starts a member; html escapes < > & in it as json.Marshal does
	// (Extra's keys), known names need no escaping.
	key(k string, html bool)
	str(s string)
	float(f float64)
	integer(n int64)
	unsigned(n uint64)
	boolean(b bool)
	null()
	raw(v json.RawMessage) // an Extra value, verbatim
}

// emitFile sends f to w; cases sends the entries of per_case.
func emitFile(w sink, f *File, cases func()) {
	w.object()
	member(w, "run_id", f.RunID)
	member(w, "reviewer", f.Reviewer)
	member(w, "timestamp", f.Timestamp)
	optional(w, "overall_notes", f.OverallNotes)
	arrayAt(w, "per_case")
	cases()
	w.end()
	optional(w, "schema_version", f.SchemaVersion)
	if t := f.Tool; t != nil {
		objectAt(w, "tool")
		member(w, "name", t.Name)
		optional(w, "version", t.Version)
		extra(w, t.Extra, toolKeys)
	}
	optional(w, "reviewer_kind", f.ReviewerKind)
	if s := f.Scope; s != nil {
		objectAt(w, "scope")
		member(w, "mode", s.Mode)
		optional(w, "filter", s.Filter)
		if s.Seed != nil {
			w.key("seed", false)
			w.unsigned(*s.Seed)
		}
		optionalInt(w, "sample", s.Sample)
		extra(w, s.Extra, scopeKeys)
	}
	optional(w, "run_path", f.RunPath)
	optional(w, "previous", f.Previous)
	if s := f.Summary; s != nil {
		objectAt(w, "summary")
		count(w, "cases", s.Cases)
		count(w, "reviewed", s.Reviewed)
		count(w, "skipped", s.Skipped)
		sortedObject(w, "verdicts", s.Verdicts, count)
		extra(w, s.Extra, summaryKeys)
	}
	extra(w, f.Extra, fileKeys)
}

// emitCase sends one per_case entry to w.
func emitCase(w sink, c *Case) {
	w.object()
	member(w, "test_id", c.TestID)
	member(w, "verdict", c.Verdict)
	optional(w, "notes", c.Notes)
	sortedObject(w, "evaluator_overrides", c.EvaluatorOverrides, member)
	optional(w, "workspace_notes", c.WorkspaceNotes)
	optional(w, "target", c.Target)
	optional(w, "variant", c.Variant)
	optional(w, "suite", c.Suite)
	optional(w, "eval_path", c.EvalPath)
	if len(c.Signals) > 0 {
		arrayAt(w, "signals")
		for _, s := range c.Signals {
			w.str(s)
		}
		w.end()
	}
	optional(w, "reviewed_at", c.ReviewedAt)
	optional(w, "reviewer", c.Reviewer)
	optional(w, "reviewer_kind", c.ReviewerKind)
	if a := c.Automated; a != nil {
		objectAt(w, "automated")
		if a.Score != nil {
			w.key("score", false)
			w.float(*a.Score)
		}
		optional(w, "outcome", a.Outcome)
		optional(w, "execution_status", a.ExecutionStatus)
		if len(a.Graders) > 0 {
			arrayAt(w, "graders")
			for _, g := range a.Graders {
				w.object()
				member(w, "key", g.Key)
				w.key("score", false)
				orNull(w, g.Score, w.float)
				w.key("pass", false)
				orNull(w, g.Pass, w.boolean)
				extra(w, g.Extra, graderKeys)
			}
			w.end()
		}
		optional(w, "samples", a.Samples)
		extra(w, a.Extra, automatedKeys)
	}
	optional(w, "fingerprint", c.Fingerprint)
	optionalInt(w, "fingerprint_version", c.FingerprintV)
	if cf := c.CarriedFrom; cf != nil {
		objectAt(w, "carried_from")
		member(w, "run_id", cf.RunID)
		optional(w, "reviewed_at", cf.ReviewedAt)
		optional(w, "reviewer", cf.Reviewer)
		extra(w, cf.Extra, carriedKeys)
	}
	if fe := c.FlakyEvidence; fe != nil {
		objectAt(w, "flaky_evidence")
		optional(w, "samples", fe.Samples)
		optional(w, "runs", fe.Runs)
		extra(w, fe.Extra, flakyKeys)
	}
	if c.Stale {
		w.key("stale", false)
		w.boolean(true)
	}
	optional(w, "test_defect", c.TestDefect)
	optional(w, "blind_verdict", c.BlindVerdict)
	extra(w, c.Extra, caseKeys)
}

var (
	toolKeys      = keysOf[Tool]()
	scopeKeys     = keysOf[Scope]()
	summaryKeys   = keysOf[Summary]()
	automatedKeys = keysOf[Automated]()
	graderKeys    = keysOf[GraderResult]()
	carriedKeys   = keysOf[CarriedFrom]()
	flakyKeys     = keysOf[FlakyEvidence]()
)

// objectAt and arrayAt start a member whose value is an object or an array.
func objectAt(w sink, k string) { w.key(k, false); w.object() }
func arrayAt(w sink, k string)  { w.key(k, false); w.array() }

// sortedObject sends m as the object at k, its members in key order (as
// encoding/json writes a map) by value; an empty m is left out.
func sortedObject[V any](w sink, k string, m map[string]V, value func(w sink, k string, v V)) {
	if len(m) == 0 {
		return
	}
	objectAt(w, k)
	for _, key := range slices.Sorted(maps.Keys(m)) {
		value(w, key, m[key])
	}
	w.end()
}

// orNull sends *p by send, or null when p is nil.
func orNull[T any](w sink, p *T, send func(T)) {
	if p == nil {
		w.null()
		return
	}
	send(*p)
}

func member(w sink, k, v string) {
	w.key(k, false)
	w.str(v)
}

func optional(w sink, k, v string) {
	if v != "" {
		member(w, k, v)
	}
}

func count(w sink, k string, n int) {
	w.key(k, false)
	w.integer(int64(n))
}

func optionalInt(w sink, k string, n int) {
	if n != 0 {
		count(w, k, n)
	}
}

// extra sends the members of Extra that are not known fields, sorted by
// key, and ends the object.
func extra(w sink, fields map[string]json.RawMessage, known map[string]bool) {
	if len(fields) > 0 {
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if !known[k] { // a known field always wins over a stray copy in Extra
				w.key(k, true)
				w.raw(fields[k])
			}
		}
	}
	w.end()
}

// encoder writes tokens as Write writes a file: two-space indent, HTML
// characters of values unescaped, Extra values compacted and re-indented.
type encoder struct {
	b    []byte
	open []container
	err  error
}

// container is an open object or array: how many members it has so far.
type container struct {
	n     int
	array bool
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// value starts a value: in an array, a new item.
func (e *encoder) value() {
	if k := len(e.open); k > 0 && e.open[k-1].array {
		e.next()
	}
}

// next separates a member or item from the one before and starts its line.
func (e *encoder) next() {
	c := &e.open[len(e.open)-1]
	if c.n > 0 {
		e.b = append(e.b, ',')
	}
	c.n++
	e.newline(len(e.open))
}

func (e *encoder) newline(depth int) {
	e.b = append(e.b, '\n')
	for range depth {
		e.b = append(e.b, ' ', ' ')
	}
}

func (e *encoder) object() { e.value(); e.b = append(e.b, '{'); e.open = append(e.open, container{}) }
func (e *encoder) array() {
	e.value()
	e.b = append(e.b, '[')
	e.open = append(e.open, container{array: true})
}

func (e *encoder) end() {
	c := e.open[len(e.open)-1]
	e.open = e.open[:len(e.open)-1]
	if c.n > 0 {
		e.newline(len(e.open))
	}
	if c.array {
		e.b = append(e.b, ']')
	} else {
		e.b = append(e.b, '}')
	}
}

func (e *encoder) key(k string, html bool) {
	e.next()
	e.b = jsonenc.AppendString(e.b, k, html)
	e.b = append(e.b, ':', ' ')
}

func (e *encoder) str(s string) { e.value(); e.b = jsonenc.AppendString(e.b, s, false) }
func (e *encoder) integer(n int64) {
	e.value()
	e.b = strconv.AppendInt(e.b, n, 10)
}
func (e *encoder) unsigned(n uint64) { e.value(); e.b = strconv.AppendUint(e.b, n, 10) }
func (e *encoder) boolean(b bool)    { e.value(); e.b = strconv.AppendBool(e.b, b) }
func (e *encoder) null()             { e.value(); e.b = append(e.b, "null"...) }

func (e *encoder) float(f float64) {
	e.value()
	var err error
	if e.b, err = jsonenc.AppendFloat(e.b, f); err != nil {
		e.fail(err)
	}
}

// raw writes an Extra value as encoding/json writes a MarshalJSON result
// inside an indented document: compacted, then indented at this depth.
func (e *encoder) raw(v json.RawMessage) {
	e.value()
	var b bytes.Buffer
	indent := bytes.Repeat([]byte("  "), len(e.open))
	if err := json.Indent(&b, bytes.TrimRight(v, " \t\r\n"), string(indent), "  "); err != nil {
		e.fail(fmt.Errorf("a kept unknown field is not JSON: %w", err))
		return
	}
	e.b = append(e.b, b.Bytes()...)
}

// entryEncoder is the encoder of per_case's entries: it notes where each
// member of the entry being encoded lies in b, and a string value itself,
// for entryResults.checkEncoded. Start each entry with members empty.
type entryEncoder struct {
	encoder
	members []encodedMember
}

// encodedMember is a member of the entry being encoded: its key as
// written (before escaping) and where its value lies in b.
type encodedMember struct {
	key        string
	start, end int
	str        string // the value, when isStr: a string
	isStr      bool
}

// inEntry tells whether the next token is a member of the entry (a key)
// or the value of one (anything else).
func (e *entryEncoder) inEntry() bool { return len(e.open) == entryDepth }

// closeMember ends the member before, if any, where b ends.
func (e *entryEncoder) closeMember() {
	if n := len(e.members); n > 0 && e.members[n-1].end < 0 {
		e.members[n-1].end = len(e.b)
	}
}

func (e *entryEncoder) key(k string, html bool) {
	if !e.inEntry() {
		e.encoder.key(k, html)
		return
	}
	e.closeMember()
	e.encoder.key(k, html)
	e.members = append(e.members, encodedMember{key: k, start: len(e.b), end: -1})
}

func (e *entryEncoder) str(s string) {
	if e.inEntry() {
		m := &e.members[len(e.members)-1]
		m.str, m.isStr = s, true
	}
	e.encoder.str(s)
}

func (e *entryEncoder) end() {
	if e.inEntry() {
		e.closeMember()
	}
	e.encoder.end()
}

// treeSink builds the tree the tokens' JSON decodes to (see tree): strings
// as encoding/json reads back what it wrote, numbers as json.Number. It
// reports no errors: the encoder of the same tokens does.
type treeSink struct {
	t       *treeReader // reads Extra values
	open    []treeNode
	items   []treeItem // of the open objects and arrays, innermost last
	pending string     // the key of the member being read
	root    any
	num     []byte
}

// treeNode is an open object or array: where its items start, and the
// key it is the value of.
type treeNode struct {
	start  int
	object bool
	key    string
}

type treeItem struct {
	key string
	v   any
}

func (s *treeSink) put(v any) {
	if len(s.open) == 0 {
		s.root = v
		return
	}
	s.items = append(s.items, treeItem{s.pending, v})
}

func (s *treeSink) object() { s.push(true) }
func (s *treeSink) array()  { s.push(false) }

func (s *treeSink) push(object bool) {
	s.open = append(s.open, treeNode{start: len(s.items), object: object, key: s.pending})
}

// end makes the innermost object or array, sized to fit, and puts it in
// its parent.
func (s *treeSink) end() {
	n := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	items := s.items[n.start:]
	var v any
	if n.object {
		m := make(map[string]any, len(items))
		for _, it := range items {
			m[it.key] = it.v // the last of a repeated key counts
		}
		v = m
	} else {
		a := make([]any, len(items))
		for i, it := range items {
			a[i] = it.v
		}
		v = a
	}
	clear(items)
	s.items, s.pending = s.items[:n.start], n.key
	s.put(v)
}

func (s *treeSink) key(k string, _ bool) { s.pending = readBack(k) }
func (s *treeSink) str(v string)         { s.put(readBack(v)) }
func (s *treeSink) integer(n int64)      { s.number(strconv.AppendInt(s.num[:0], n, 10)) }
func (s *treeSink) unsigned(n uint64)    { s.number(strconv.AppendUint(s.num[:0], n, 10)) }
func (s *treeSink) boolean(b bool)       { s.put(b) }
func (s *treeSink) null()                { s.put(nil) }

func (s *treeSink) float(f float64) {
	b, _ := jsonenc.AppendFloat(s.num[:0], f) // the encoder reports NaN and infinities
	s.number(b)
}

func (s *treeSink) number(b []byte) {
	s.num = b
	s.put(json.Number(b))
}

func (s *treeSink) raw(v json.RawMessage) {
	doc, _ := s.t.read(v, 0) // the encoder reports a value that is not JSON
	s.put(doc)
}

// readBack is the string encoding/json decodes from jsonenc.AppendString(s): s
// itself unless s is not valid UTF-8.
func readBack(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var back string
	_ = json.Unmarshal(jsonenc.AppendString(nil, s, false), &back) // AppendString writes a valid JSON string
	return back
}
