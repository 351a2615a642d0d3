package run

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"agentv-review/plugin/internal/jsonnum"
)

// skimRow decodes the light fields of one manifest line into a rowWire,
// as json.Unmarshal would, but skips the fields it does not need at memory
// speed: a real row is mostly scores[].input (the full grader prompt), and
// encoding/json validates every byte of it through its state machine.
// Strings that are kept and contain escapes or invalid UTF-8 are decoded by
// encoding/json itself, so their text is identical (U+FFFD for bad bytes).
//
// It returns the first field whose value had an unexpected type (like
// json.UnmarshalTypeError.Field, that value is left unset), or a syntax
// error. Unlike encoding/json it matches keys exactly (as AgentV does).
// Before a row is parsed, stage finds where its strings end (stage1.go).
func skimRow(line []byte) (w rowWire, typeErr string, err error) {
	var s skimmer
	wp, typeErr, err := s.row(line)
	return *wp, typeErr, err
}

// skimmer decodes rows one after another. Between rows it keeps its
// buffers, so the pointers and slices of the rowWire it returns are only
// valid until the next call of row.
type skimmer struct {
	b       []byte
	i       int
	depth   int
	typeErr string
	list    string // the list whose element is being read ("scores"), for typeErr

	w rowWire
	// in, when set, shares the repeated strings (targets, suites, grader
	// names, ...); see istr.
	in   interner
	keys map[string]memberKey // when set, the member keys members knows (the first maxKeys)
	// renames and folds are what members found of the row it split last.
	renames uint64
	folds   bool
	lately  [4]string  // strings recently kept, see recent
	seen    [64]string // a direct-mapped cache in front of in, see shared
	// Backing stores for the rowWire's pointers, reused from row to row.
	strs   []string
	floats []float64
	ints   []int
	open   []byte // skipNested's stack
	// spanned is compactRow's, for memberSpans. While compactRow reads a
	// row, the value at closedAt (0 for none) ends at closedEnd, as
	// memberSpans found it: rawString (for a string, which has no escape)
	// and looseEnd (for an object or array) take it from there instead
	// of looking again.
	spanned             [16]memberSpan
	closedAt, closedEnd int

	escaped bool // the string rawString read last has an escape
	// blocks are the stage-1 masks of the line row is reading (staged
	// set; a loose read has none and leaves staged unset): see stage.
	blocks []stageBlock
	staged bool
	// views, set for Open's rows, lets path read a string as a view of
	// the line instead of a copy (see path), and text every string of a
	// row read loosely: such a row is only counted, never kept (see
	// parseConfig.check).
	views bool
	// loose, when set, skips nested values by looseEnd, unchecked (see
	// Options.CheckKeptOnly).
	loose bool
	// spans, when on, records where the members a Basis reads lie in the
	// row (see memberValues.at).
	spans spanRecorder
}

// row decodes the light fields of line. The result is owned by s.
func (s *skimmer) row(line []byte) (w *rowWire, typeErr string, err error) {
	s.begin(line)
	s.blocks, s.staged = stage(line, s.blocks, s.loose), !s.loose
	switch {
	case s.spans.on:
		s.spans.reset()
		err = s.object(s.spanField)
	case s.loose && s.compactRow(): // most rows not kept, as object would
	default:
		err = s.object(nil)
	}
	s.staged = false // the other readers set s.b themselves
	if len(line) > blockSize {
		s.blocks = nil // a row longer than a read block keeps no masks for the rows after it
	}
	if err == nil {
		s.ws()
		if s.i != len(s.b) {
			err = s.fail("invalid character after top-level value")
		}
	}
	return &s.w, s.typeErr, err
}

// begin readies s to read line as a row from its start.
func (s *skimmer) begin(line []byte) {
	s.b, s.i, s.depth, s.typeErr, s.closedAt = line, 0, 0, "", 0
	s.strs, s.floats, s.ints = s.strs[:0], s.floats[:0], s.ints[:0]
	s.w = rowWire{
		Scores: s.w.Scores[:0], EvaluatorResults: s.w.EvaluatorResults[:0],
		Samples: s.w.Samples[:0], Attempts: s.w.Attempts[:0], Trials: s.w.Trials[:0],
	}
}

// recent returns raw as a string, sharing the copy made for an equal
// string of the last rows: the rows of one test on several targets follow
// each other and repeat its test_id, eval_path and folder.
func (s *skimmer) recent(raw []byte) string {
	for _, r := range s.lately {
		if r == string(raw) {
			return r
		}
	}
	r := string(raw)
	if s.in != nil {
		copy(s.lately[1:], s.lately[:])
		s.lately[0] = r
	}
	return r
}

// shared is s.in.bytes(raw) with a small cache in front: a manifest
// repeats a handful of targets, suites and grader names and types on
// every row, and comparing with one cached string is cheaper than a map
// lookup.
func (s *skimmer) shared(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	slot := &s.seen[(uint(len(raw))*31+uint(raw[0])*7+uint(raw[len(raw)-1]))&63]
	if *slot != string(raw) {
		*slot = s.in.bytes(raw)
	}
	return *slot
}

// stored appends v to *store and returns a pointer to it. Growing the store
// leaves earlier pointers on the old array, which stays alive.
func stored[T any](store *[]T, v T) *T {
	*store = append(*store, v)
	return &(*store)[len(*store)-1]
}

// maxDepth bounds nesting as encoding/json does, so a hostile line cannot
// exhaust the stack.
const maxDepth = 10000

var errSyntax = errors.New("syntax error")

type skimError struct {
	msg    string
	offset int
}

func (e *skimError) Error() string { return e.msg + " at byte " + strconv.Itoa(e.offset+1) }

func (e *skimError) Unwrap() error { return errSyntax }

func (s *skimmer) fail(msg string) error { return &skimError{msg, s.i} }

func (s *skimmer) ws() { s.i = wsEnd(s.b, s.i) }

func (s *skimmer) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads an object, calling member for each key with s positioned at
// its value; member must consume the value. Between members it works on
// locals (the line and the index); s.i is set before each call and error.
// A nil member reads a row's members into s.w (rowField): a direct call,
// where a closure cost about 18 instructions a member (5 % of a loose
// read's).
func (s *skimmer) object(member func(key []byte) error) error {
	b := s.b
	i := wsEnd(b, s.i)
	if i == len(b) || b[i] != '{' {
		s.i = i
		return s.fail("expected an object")
	}
	if s.depth++; s.depth > maxDepth {
		s.i = i
		return s.fail("nested too deeply")
	}
	defer func() { s.depth-- }()
	if i = wsEnd(b, i+1); i < len(b) && b[i] == '}' {
		s.i = i + 1
		return nil
	}
	for {
		if i == len(b) || b[i] != '"' {
			s.i = i
			return s.fail("expected a member name")
		}
		end, ok, escaped := s.near(i + 1) // ok: before len(b)
		if !ok {
			if !s.staged { // no masks (a loose read, or not a row): stringEnd would only pass it on
				end, ok, escaped = stringScan(b, i+1)
			} else {
				end, ok, escaped = s.stringEnd(i + 1)
			}
			if !ok || end == len(b) {
				s.i = end
				return s.stringFail(ok)
			}
		}
		key := b[i+1 : end]
		if escaped {
			var k string
			if json.Unmarshal(b[i:end+1], &k) != nil {
				s.i = end + 1
				return s.fail("invalid member name")
			}
			key = []byte(k)
		}
		if i = wsEnd(b, end+1); i == len(b) || b[i] != ':' {
			s.i = i
			return s.fail("expected ':' after a member name")
		}
		s.i = i + 1
		var err error
		if member == nil {
			err = s.rowField(&s.w, key)
		} else {
			err = member(key)
		}
		if err != nil {
			return err
		}
		switch i = wsEnd(b, s.i); {
		case i == len(b):
		case b[i] == ',':
			i = wsEnd(b, i+1)
			continue
		case b[i] == '}':
			s.i = i + 1
			return nil
		}
		s.i = i
		return s.fail("expected ',' or '}' after a member")
	}
}

// array reads an array, calling elem with s positioned at each element.
func (s *skimmer) array(elem func() error) error {
	if s.peek() != '[' {
		return s.fail("expected an array")
	}
	if s.depth++; s.depth > maxDepth {
		return s.fail("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.i++
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or ']' after an array element")
		}
	}
}

// rawString reads a string at s.i and returns its bytes between the quotes.
// It checks in the same pass that the body has no control character and
// only JSON's escapes, as encoding/json (and AgentV's JSON.parse) require.
func (s *skimmer) rawString() (raw []byte, err error) {
	start := s.i + 1
	end, ok, escaped := s.near(start) // ok: before len(s.b)
	if !ok {
		closed, spanned := s.closed(s.i)
		switch {
		case s.staged:
			end, ok, escaped = s.stringEnd(start)
		case spanned:
			end, ok = closed-1, true
		default: // as in object
			end, ok, escaped = stringScan(s.b, start)
		}
		if !ok || end == len(s.b) {
			s.i = end
			return nil, s.stringFail(ok)
		}
	}
	s.escaped = escaped
	s.i = end + 1
	return s.b[start:end], nil
}

// stringFail is the error for a string that stringEnd did not find
// well formed (ok false) or did not find the end of, at s.i.
func (s *skimmer) stringFail(ok bool) error {
	if !ok {
		return s.fail("invalid character or escape in string")
	}
	return s.fail("unterminated string")
}

// stringEnd scans a string body from i: it returns the index of the
// closing quote (len(b) when there is none), or ok false and the index of
// a control character or bad escape; escaped tells whether the body has an
// escape.
// It is the portable definition: the skimmer calls stringScan (assembly
// on amd64, this elsewhere).
func stringEnd(b []byte, i int) (end int, ok, escaped bool) {
	for {
		var skipped bool
		i, skipped = stringRun(b, i)
		escaped = escaped || skipped
		if i == len(b) || b[i] == '"' {
			return i, true, escaped
		}
		if b[i] < 0x20 {
			return i, false, escaped
		}
		n := escapeLen(b[i:])
		if n == 0 {
			return i, false, escaped
		}
		i += n
		escaped = true
	}
}

// specialBytes flags (with its high bit) each byte of the little-endian
// word x that is a quote, a backslash or a control character. A flag can
// be wrong only above a real one, so the lowest flag is always right.
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^ones*'"', x^ones*'\\'
	return ((x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs) & highs
}

// escapeLen is the length of the valid JSON escape at the start of b (which
// starts with a backslash), 0 when it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// ascii tells whether b has no byte above 0x7f, looking at a word at a
// time (the last one overlaps the one before): a kept string is short and
// almost always ASCII, which is valid UTF-8.
func ascii(b []byte) bool {
	var x uint64
	if len(b) < 8 {
		for _, c := range b {
			x |= uint64(c)
		}
		return x < 0x80
	}
	for i := 0; i+8 < len(b); i += 8 {
		x |= binary.LittleEndian.Uint64(b[i:])
	}
	x |= binary.LittleEndian.Uint64(b[len(b)-8:])
	return x&0x8080808080808080 == 0
}

// plainRun returns the index of the first byte from i on that may need a
// look (a control character or a backslash), checking eight bytes at a
// time; len(raw) when there is none.
func plainRun(raw []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(raw); i += 8 {
		x := binary.LittleEndian.Uint64(raw[i:])
		b := x ^ ones*'\\'
		if (x-ones*0x20)&^x&highs != 0 || (b-ones)&^b&highs != 0 {
			break
		}
	}
	for ; i < len(raw) && raw[i] >= 0x20 && raw[i] != '\\'; i++ {
	}
	return i
}

// skip reads and discards any value, checking it as encoding/json would.
// Nested values are walked by skipNested, without recursion.
func (s *skimmer) skip() error {
	switch s.peek() {
	case '"':
		if end, ok, _ := s.near(s.i + 1); ok { // the string ends in its block (most do): no call
			s.i = end + 1
			return nil
		}
		_, err := s.rawString()
		return err
	case '{', '[':
		if s.loose {
			return s.skipLoose()
		}
		return s.skipNested()
	}
	_, err := s.literal()
	return err
}

// skipLoose skips the object or array at s.i by looseEnd.
func (s *skimmer) skipLoose() error {
	end, ok := s.looseEnd(s.i)
	s.i = end
	if !ok {
		return s.fail("unexpected end of input")
	}
	return nil
}

// skipNested skips the object or array at s.i. Most of a manifest row's
// bytes are in values nobody reads (grader prompts, assertions, metadata
// objects): this loop walks them with one explicit stack of open brackets
// instead of a call per member, and checks the same grammar as object and
// array. It has no state variable: each place in the grammar is a place
// in the code (a value starts at the top of the loop, what may follow one
// is read below it), so the next token is found with few branches.
func (s *skimmer) skipNested() error {
	b, i := s.b, s.i
	open := s.open[:0] // the brackets still open, innermost last
	defer func() { s.open = open[:0] }()
	fail := func(msg string) error {
		s.i = i
		return s.fail(msg)
	}
	var msg string
	for {
		// A value starts at i.
		switch c := b[i]; c {
		case '{', '[':
			if s.depth+len(open) >= maxDepth {
				return fail("nested too deeply")
			}
			open = append(open, c)
			if i = wsEnd(b, i+1); i == len(b) {
				return fail("unexpected end of input")
			}
			switch {
			case b[i] == c+2: // the empty {} or []
				open = open[:len(open)-1]
				i++
			case c == '[':
				continue
			default:
				if i, msg = s.memberEnd(i); msg != "" {
					return fail(msg)
				}
				continue
			}
		case '"':
			end, ok, _ := s.near(i + 1)
			if !ok {
				end, ok, _ = s.stringEnd(i + 1)
			}
			if !ok || end == len(b) {
				i = end
				return fail("invalid character or escape in string")
			}
			i = end + 1
		default:
			end, ok := literalEnd(b, i)
			if !ok {
				return fail("invalid value")
			}
			i = end
		}
		// A value ended: close brackets until a ',' starts the next one.
		for {
			if len(open) == 0 {
				s.i = i
				return nil
			}
			if i = wsEnd(b, i); i == len(b) {
				return fail("unexpected end of input")
			}
			top := open[len(open)-1]
			if c := b[i]; c != ',' {
				if c != top+2 { // '}' is '{'+2, ']' is '['+2
					return fail("expected ',' or a closing bracket")
				}
				open = open[:len(open)-1]
				i++
				continue
			}
			if i = wsEnd(b, i+1); i == len(b) {
				return fail("unexpected end of input")
			}
			if top == '{' {
				if i, msg = s.memberEnd(i); msg != "" {
					return fail(msg)
				}
			}
			break
		}
	}
}

// memberEnd reads the member name and colon at i and returns the index of
// the member's value; or, when they are not well formed, where and what
// the error is.
func (s *skimmer) memberEnd(i int) (int, string) {
	b := s.b
	if b[i] != '"' {
		return i, "expected a member name"
	}
	end, ok, _ := s.near(i + 1)
	if !ok {
		end, ok, _ = s.stringEnd(i + 1)
	}
	if !ok || end == len(b) {
		return end, "invalid member name"
	}
	if i = wsEnd(b, end+1); i == len(b) || b[i] != ':' {
		return i, "expected ':' after a member name"
	}
	if i = wsEnd(b, i+1); i == len(b) {
		return i, "unexpected end of input"
	}
	return i, ""
}

// wsEnd returns the index of the first byte from i on that is not JSON
// whitespace.
func wsEnd(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// literal reads true, false, null or a number.
func (s *skimmer) literal() ([]byte, error) {
	start := s.i
	end, ok := literalEnd(s.b, start)
	if !ok {
		return nil, s.fail("invalid value")
	}
	s.i = end
	return s.b[start:end], nil
}

// literalEnd returns the end of the literal at b[i] (the run of bytes
// from i that isLiteralByte accepts) and whether it is true, false, null
// or a number. The literal is read once (a number by its grammar,
// jsonnum.End) when the byte after it ends the run, as it does in every
// well-formed row.
func literalEnd(b []byte, i int) (end int, ok bool) {
	switch end = i + 4; {
	case end <= len(b) && (string(b[i:end]) == "true" || string(b[i:end]) == "null"):
	case end < len(b) && string(b[i:end+1]) == "false":
		end++
	default:
		end = jsonnum.End(b, i)
	}
	if end > i && (end == len(b) || !isLiteralByte(b[end])) {
		return end, true
	}
	for end = i; end < len(b) && isLiteralByte(b[end]); end++ {
	}
	switch string(b[i:end]) {
	case "true", "false", "null":
		return end, true
	}
	return end, jsonnum.Valid(b[i:end])
}

// mistyped records the first field with an unexpected type and skips it.
func (s *skimmer) mistyped(field string) error {
	if s.typeErr == "" {
		if s.list != "" {
			field = s.list + "." + field
		}
		s.typeErr = field
	}
	return s.skip()
}

// str reads a string into *dst; null leaves it unchanged.
func (s *skimmer) str(dst *string, field string) error { return s.text(dst, field, false) }

// istr is str for a value that repeats across rows (a target, a suite, a
// grader name): with s.in set, all rows share one copy of it.
func (s *skimmer) istr(dst *string, field string) error { return s.text(dst, field, true) }

func (s *skimmer) text(dst *string, field string, intern bool) error {
	switch s.peek() {
	case '"':
		start := s.i
		raw, err := s.rawString()
		if err != nil {
			return err
		}
		switch {
		case s.escaped || !ascii(raw) && !utf8.Valid(raw):
			if json.Unmarshal(s.b[start:s.i], dst) != nil {
				return s.fail("invalid string")
			}
			if intern {
				*dst = s.in.get(*dst)
			}
		case intern && s.in != nil:
			*dst = s.shared(raw)
		case s.loose && s.views: // a row read loosely is not kept (see views)
			*dst = unsafe.String(unsafe.SliceData(raw), len(raw))
		default:
			*dst = s.recent(raw)
		}
		return nil
	case 'n':
		_, err := s.literal()
		return err
	}
	*dst = "" // a value of another type counts as absent, even after an earlier duplicate
	return s.mistyped(field)
}

// path is strPtr for a path that Open only tests or hashes, never keeps
// (workspace_path, result_dir, grading_path, ...). With s.views set, a
// plain string is a view of the line, valid only until the line's buffer
// is reused: parseRow must not let it escape.
func (s *skimmer) path(dst **string, field string) error {
	if !s.views || s.peek() != '"' {
		return s.strPtr(dst, field)
	}
	start := s.i
	raw, err := s.rawString()
	if err != nil || s.escaped || !ascii(raw) && !utf8.Valid(raw) {
		s.i = start
		return s.strPtr(dst, field)
	}
	*dst = stored(&s.strs, unsafe.String(unsafe.SliceData(raw), len(raw)))
	return nil
}

// strPtr reads a string into *dst; null sets it to nil.
func (s *skimmer) strPtr(dst **string, field string) error { return s.textPtr(dst, field, false) }

// istrPtr is strPtr for a repeating value (see istr).
func (s *skimmer) istrPtr(dst **string, field string) error { return s.textPtr(dst, field, true) }

func (s *skimmer) textPtr(dst **string, field string, intern bool) error {
	if s.peek() == '"' {
		*dst = stored(&s.strs, "")
		return s.text(*dst, field, intern)
	}
	return s.nullOr(func() { *dst = nil }, field)
}

// nullOr consumes null, or records a type error; either way the value is
// absent (set is called), as the last occurrence of a key wins.
func (s *skimmer) nullOr(set func(), field string) error {
	if s.peek() == 'n' {
		lit, err := s.literal()
		if err == nil && string(lit) == "null" {
			set()
		}
		return err
	}
	set()
	return s.mistyped(field)
}

func (s *skimmer) float(dst **float64, field string) error {
	if c := s.peek(); c == '-' || c >= '0' && c <= '9' {
		start := s.i
		lit, err := s.literal()
		if err != nil {
			return err
		}
		v, ok := parseNumber(lit)
		if !ok {
			s.i = start
			*dst = nil
			return s.mistyped(field) // out of range, as encoding/json
		}
		*dst = stored(&s.floats, v)
		return nil
	}
	return s.nullOr(func() { *dst = nil }, field)
}

func (s *skimmer) int(dst **int, field string) error {
	if c := s.peek(); c == '-' || c >= '0' && c <= '9' {
		start := s.i
		lit, err := s.literal()
		if err != nil {
			return err
		}
		v, ok := parseWhole(lit)
		if !ok {
			s.i = start
			*dst = nil
			return s.mistyped(field)
		}
		*dst = stored(&s.ints, v)
		return nil
	}
	return s.nullOr(func() { *dst = nil }, field)
}

func (s *skimmer) bool(dst **bool, field string) error {
	switch s.peek() {
	case 't', 'f':
		lit, err := s.literal()
		if err != nil {
			return err
		}
		switch string(lit) {
		case "true":
			*dst = boolPtr(true)
		case "false":
			*dst = boolPtr(false)
		default:
			return s.fail("invalid value")
		}
		return nil
	}
	return s.nullOr(func() { *dst = nil }, field)
}

// list reads an array of objects, decoding each with member; null sets the
// slice to nil. A non-object element is a type error and stays zero.
func list[T any](s *skimmer, dst *[]T, field string, member func(v *T, key []byte) error) error {
	if s.peek() != '[' {
		return s.nullOr(func() { *dst = nil }, field)
	}
	*dst = (*dst)[:0]
	if s.loose { // a row read loosely is not kept: its lists are not needed
		return s.skipLoose()
	}
	var zero T
	return s.array(func() error {
		*dst = append(*dst, zero)
		if s.peek() != '{' {
			return s.mistyped(field)
		}
		v := &(*dst)[len(*dst)-1] // no other append to *dst until the element ends
		s.list = field
		err := s.object(func(key []byte) error { return member(v, key) })
		s.list = ""
		return err
	})
}

func (s *skimmer) rowField(w *rowWire, key []byte) error {
	switch string(key) {
	case "test_id":
		return s.strPtr(&w.TestID, "test_id")
	case "testId":
		return s.strPtr(&w.TestIDCamel, "testId")
	case "eval_id":
		return s.strPtr(&w.EvalID, "eval_id")
	case "suite":
		return s.istrPtr(&w.Suite, "suite")
	case "dataset":
		return s.istrPtr(&w.Dataset, "dataset")
	case "eval_set":
		return s.istrPtr(&w.EvalSet, "eval_set")
	case "target":
		return s.istr(&w.Target, "target")
	case "variant":
		return s.istr(&w.Variant, "variant")
	case "eval_path":
		return s.path(&w.EvalPath, "eval_path")
	case "evalPath":
		return s.path(&w.EvalPathCamel, "evalPath")
	case "score":
		return s.float(&w.Score, "score")
	case "execution_status":
		return s.istrPtr(&w.ExecutionStatus, "execution_status")
	case "executionStatus":
		return s.istrPtr(&w.ExecutionStatusCamel, "executionStatus")
	case "error":
		return s.str(&w.Error, "error")
	case "failure_stage":
		return s.istrPtr(&w.FailureStage, "failure_stage")
	case "failureStage":
		return s.istrPtr(&w.FailureStageCamel, "failureStage")
	case "scores":
		return list(s, &w.Scores, "scores", s.graderField)
	case "evaluator_results":
		return list(s, &w.EvaluatorResults, "evaluator_results", s.graderField)
	case "samples":
		return list(s, &w.Samples, "samples", s.repeatField)
	case "attempts":
		return list(s, &w.Attempts, "attempts", s.repeatField)
	case "trials":
		return list(s, &w.Trials, "trials", s.repeatField)
	case "workspace_path":
		return s.path(&w.WorkspacePath, "workspace_path")
	case "workspacePath":
		return s.path(&w.WorkspacePathCamel, "workspacePath")
	case "file_changes_path":
		return s.path(&w.FileChangesPath, "file_changes_path")
	case "fileChangesPath":
		return s.path(&w.FileChangesPathCamel, "fileChangesPath")
	case "result_dir":
		return s.path(&w.ResultDir, "result_dir")
	case "resultDir":
		return s.path(&w.ResultDirCamel, "resultDir")
	case "artifact_dir":
		return s.path(&w.ArtifactDir, "artifact_dir")
	case "artifactDir":
		return s.path(&w.ArtifactDirCaml, "artifactDir")
	case "grading_path":
		return s.path(&w.GradingPath, "grading_path")
	case "gradingPath":
		return s.path(&w.GradingPathCaml, "gradingPath")
	}
	return s.skip()
}

// spanField is rowField for a row whose spans are recorded (s.spans on).
func (s *skimmer) spanField(key []byte) error {
	start := wsEnd(s.b, s.i)
	err := s.rowField(&s.w, key)
	if err == nil {
		s.spans.note(s.b, key, start, s.i)
	}
	return err
}

func (s *skimmer) graderField(g *graderWire, key []byte) error {
	switch string(key) {
	case "name":
		return s.istr(&g.Name, "name")
	case "type":
		return s.istr(&g.Type, "type")
	case "score":
		return s.float(&g.Score, "score")
	case "weight":
		return s.float(&g.Weight, "weight")
	case "verdict":
		return s.istr(&g.Verdict, "verdict")
	case "pass":
		return s.bool(&g.Pass, "pass")
	}
	return s.skip()
}

func (s *skimmer) repeatField(r *repeatWire, key []byte) error {
	switch string(key) {
	case "sample":
		return s.int(&r.Sample, "sample")
	case "attempt":
		return s.int(&r.Attempt, "attempt")
	case "sample_path":
		return s.istr(&r.SamplePath, "sample_path")
	case "attempt_path":
		return s.istr(&r.AttemptPath, "attempt_path")
	case "run_path":
		return s.istr(&r.RunPath, "run_path")
	case "score":
		return s.float(&r.Score, "score")
	case "status":
		return s.istr(&r.Status, "status")
	case "verdict":
		return s.istr(&r.Verdict, "verdict")
	}
	return s.skip()
}
