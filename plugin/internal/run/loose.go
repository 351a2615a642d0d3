package run

import (
	"math/bits"
	"reflect"
)

// A loose skip finds where a nested value ends without checking its
// grammar: from the value's first bracket on, it counts the brackets
// outside strings (not escaped and not between a quote no backslash
// escapes and the next one), sixty-four bytes at a time. On a well-formed
// value it ends exactly where skipNested does (the closing bracket that
// matches the first); on a malformed one it ends somewhere or reports no
// end, and never reads past the line. A backslash escapes the next byte,
// in a string or not.
//
// The count starts at the value, not at the start of the line: every
// byte before a value looseEnd is called at was read strictly (its
// strings end at a quote no backslash escapes) or skipped by looseEnd (up
// to a closing bracket outside strings), so the line is outside strings
// there and no backslash escapes the first bracket, as a count from the
// start of the line would find too.
//
// Only a read that checks the kept rows alone uses it
// (Options.CheckKeptOnly): every row that read keeps, every row it fails
// on and a last line without its newline are read again strictly.

// looseEnd returns the index just past the object or array that starts at
// s.b[i] (a '{' or '[' outside strings and not escaped); ok is false when
// the line ends first. It needs no stage: a line staged loose has no
// masks (see stage).
func (s *skimmer) looseEnd(i int) (end int, ok bool) {
	if end, ok := s.closed(i); ok {
		return end, true
	}
	b := s.b[i:]
	var st skipState
	whole := len(b) &^ 63
	for k := 0; k < whole; k += stageRun * 64 { // a few microseconds in assembly at a time (see stageRun)
		if e := looseSkip(b[k:min(k+stageRun*64, whole)], &st); e >= 0 {
			return i + k + e, true
		}
	}
	pad := spaces
	copy(pad[:], b[whole:])
	if e := looseSkip(pad[:], &st); e >= 0 {
		return i + whole + e, true
	}
	return len(s.b), false
}

// skipState is what a loose skip carries from one block to the next.
type skipState struct {
	carry  uint64 // 1 when the last block ended with an escaping backslash
	inside uint64 // all ones when the last block ended in a string
	depth  int    // the brackets open
}

// looseSkipWords is looseSkip in portable Go: the implementation where
// the processor lacks what the assembly needs, and its reference in
// tests. It counts the brackets outside strings of b, whole blocks of 64
// bytes, from the state the blocks before left in *st (which it updates),
// and returns the index just past the bracket that closes the first (the
// depth falls to 0), -1 when none in b does.
func looseSkipWords(b []byte, st *skipState) int {
	var bl [1]stageBlock
	for k := 0; k < len(b); k += 64 {
		stageMasksWords(b[k:k+64], bl[:], true)
		open, close := looseBrackets(&bl[0], st)
		for m := open | close; m != 0; m &= m - 1 {
			if open&(m&-m) != 0 {
				st.depth++
			} else if st.depth--; st.depth == 0 {
				return k + bits.TrailingZeros64(m) + 1
			}
		}
	}
	return -1
}

// looseBrackets returns the brackets of a block, whose raw masks
// stageMasksWords made with brackets, that are outside strings and not
// escaped, given the state the blocks before left in *st (which it
// updates): the bytes in strings are the prefix XOR of the quotes no
// backslash escapes (from an opening quote up to its closing one).
func looseBrackets(bl *stageBlock, st *skipState) (open, close uint64) {
	var escaped uint64
	if bl.escaped|st.carry != 0 {
		escaped, st.carry = escapes(bl.escaped, st.carry)
	}
	str := prefixXor(bl.quote&^escaped) ^ st.inside
	st.inside = uint64(int64(str) >> 63)
	out := ^(str | escaped)
	return bl.open & out, bl.close & out
}

// A loose read of a row not kept (Options.CheckKeptOnly) reads most rows
// by compactRow, whose memberSpans walks their members a few at a call,
// strings and nested values (by looseSkip) included, as the loose
// skimmer would; the rest (a row with spaces, an escape in a name) by
// object, as any row.

// compactRow reads the members of a row read loosely into s.w as
// object(nil) does, when the row is written as AgentV writes it: no
// space between its tokens and no escape in its member names. For such
// a row it makes the same calls at the same places (its readers see the
// same bytes), but finds where most members lie by memberSpans, a few
// at a call, instead of a scan for each name and, for a member rowField
// does not read, for its value. On any other row it returns false
// having read nothing that counts (s is begun again): object reads it,
// errors and all.
func (s *skimmer) compactRow() bool {
	b := s.b
	if len(b) < 2 || b[0] != '{' || b[1] != '"' {
		return false
	}
members:
	for i := 1; ; { // a member name's opening quote
		n, next := memberSpans(b, i, &rowNames, s.spanned[:])
		for _, m := range s.spanned[:n] {
			if _, ok := s.compactMember(m.name, m.value, m.end); !ok {
				return s.again()
			}
		}
		if next == len(b) {
			break
		}
		// The member memberSpans stopped at, by scans.
		end, ok, escaped := stringScan(b, next+1)
		if !ok || escaped || end+1 >= len(b) || b[end+1] != ':' {
			return s.again()
		}
		at, ok := s.compactMember(next+1, end+2, -1)
		switch {
		case !ok:
			return s.again()
		case at+1 < len(b) && b[at] == ',' && b[at+1] == '"':
			i = at + 1
		case at+1 == len(b) && b[at] == '}':
			break members
		default:
			return s.again()
		}
	}
	s.i, s.closedAt = len(b), 0 // no other reader takes a value's end from memberSpans
	return true
}

// compactMember reads the member whose name starts at s.b[name] (and
// ends, with its closing quote and colon, before value) into s.w by
// rowField, or, when rowField does not read it (see rowNames), skips its
// value by skip. It returns the index just past the value, and false when
// the value is not one they read whole or, with end set (not -1), when it
// does not end at end: memberSpans found its string or nested value as
// skip would, and left literals to literalEnd.
func (s *skimmer) compactMember(name, value, end int) (int, bool) {
	key := s.b[name : value-2]
	read := rowNames.has(key)
	if end >= 0 && value < len(s.b) {
		switch s.b[value] {
		case '"', '{', '[': // memberSpans found where it ends
			if !read {
				return end, true // nothing to read: skip would end there too
			}
			s.closedAt, s.closedEnd = value, end // for its reader's rawString or looseEnd
		}
	}
	s.i = value
	var err error
	if read {
		err = s.rowField(&s.w, key)
	} else {
		err = s.skip()
	}
	return s.i, err == nil && (end < 0 || s.i == end)
}

// again begins the row again for object, and returns false.
func (s *skimmer) again() bool {
	s.begin(s.b)
	return false
}

// closed is where the value at i ends when memberSpans found it
// (closedAt): ok is false for any other value.
func (s *skimmer) closed(i int) (end int, ok bool) {
	return s.closedEnd, i == s.closedAt && i > 0
}

// memberSpan is where one member of a compact row lies (see
// memberSpans): its name's first byte, its value's first byte (the name
// ends two bytes before, with its closing quote and the colon), and the
// index just past the value.
type memberSpan struct{ name, value, end int }

// memberSpansWords is memberSpans in portable Go: the implementation where
// the processor lacks what the assembly needs, and its reference in tests.
// From the opening quote of a member name at b[i], it walks the members
// that follow one another as AgentV writes them: a name with no quote,
// backslash or control character in it, then a colon, then a value: a
// string with none either, an object or array that looseSkip closes
// within its first stageRun whole blocks of 64 bytes, or anything else up
// to the next ',' or '}' (a literal, for literalEnd to check); after the
// value, a comma and the next name's quote, or the row's closing brace as
// its last byte. It puts in out the spans of those whose value is a
// literal or whose name names has (the others are skipped whole, as a
// loose read would), up to len(out), and takes no member that starts
// stageRun*64 bytes or more after b[i] (so that the assembly runs a few
// microseconds at a time, see stageRun). It returns how many it put,
// and the index of the name's quote of the member it stopped at, len(b)
// when it reached the row's end.
func memberSpansWords(b []byte, i int, names *nameSet, out []memberSpan) (n, next int) {
	for start := i; n < len(out) && i-start < stageRun*64; {
		k := plainEnd(b, i+1)
		if k+2 >= len(b) || b[k] != '"' || b[k+1] != ':' {
			return n, i
		}
		value, end, literal := k+2, -1, false
		switch b[value] {
		case '"':
			if k = plainEnd(b, value+1); k < len(b) && b[k] == '"' {
				end = k + 1
			}
		case '{', '[':
			var st skipState
			if whole := min(len(b)-value, stageRun*64) &^ 63; whole > 0 {
				if e := looseSkipWords(b[value:value+whole], &st); e >= 0 {
					end = value + e
				}
			}
		default:
			for k = value; k < len(b) && b[k] != ',' && b[k] != '}'; k++ {
			}
			if k < len(b) && k > value {
				end, literal = k, true
			}
		}
		after := end + 1
		switch {
		case end < 0 || end >= len(b):
			return n, i
		case after == len(b) && b[end] == '}':
		case after == len(b) || b[end] != ',' || b[after] != '"':
			return n, i
		}
		if literal || names.has(b[i+1:value-2]) {
			out[n] = memberSpan{i + 1, value, end}
			n++
		}
		if i = after; i == len(b) {
			return n, i
		}
	}
	return n, i
}

// plainEnd is the index of the first quote, backslash or control
// character from i on, len(b) when there is none.
func plainEnd(b []byte, i int) int {
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	return i
}

// nameSet is a set of member names by a hash of their length and first
// and last bytes: has is true for every name added, and for a few
// others. (memberSpansAVX2 computes nameBit too. Its factors are such
// that no name of AgentV's rows that rowField does not read, timestamp,
// category, token_usage, cost_usd, duration_ms, the *_path names,
// projection_identity, export_metadata, experiment and the like, shares
// a bit with one it reads: such a one costs rowField's call.)
type nameSet [4]uint64

func nameBit[T string | []byte](name T) uint {
	return (uint(len(name))*5 + uint(name[0])*59 + uint(name[len(name)-1])) & 255
}

func (n *nameSet) add(name string) { b := nameBit(name); n[b/64] |= 1 << (b % 64) }

func (n *nameSet) has(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	b := nameBit(name)
	return n[b/64]&(1<<(b%64)) != 0
}

// rowNames holds the names rowField reads, rowWire's: compactMember
// skips the value of a member named otherwise without a call of
// rowField, which would skip it (TestRowNames checks that it reads no
// other).
var rowNames = func() (n nameSet) {
	for f := range reflect.TypeFor[rowWire]().Fields() {
		n.add(f.Tag.Get("json"))
	}
	return n
}()
