package run

import "math/bits"

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
