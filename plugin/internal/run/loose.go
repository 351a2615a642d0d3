package run

import "math/bits"

// A loose skip finds where a nested value ends without checking its
// grammar: it counts the brackets outside strings, sixty-four bytes at a
// time, from the masks stage 1 made of the line staged loose (the
// brackets that are not escaped and not between a quote no backslash
// escapes and the next one, counted from the start of the line). On a
// well-formed value it ends exactly where skipNested does (the closing
// bracket that matches the first); on a malformed one it ends somewhere
// or reports no end, and never reads past the line. A backslash escapes
// the next byte, in a string or not.
//
// Only a read that checks the kept rows alone uses it
// (Options.CheckKeptOnly): every row that read keeps, every row it fails
// on and a last line without its newline are read again strictly.

// looseEnd returns the index just past the object or array that starts at
// s.b[i] (a '{' or '[' outside strings: an even number of unescaped quotes
// before it), found by counting brackets outside strings in the blocks
// that hold one; ok is false when the line ends first. The line must be
// staged loose (s.brackets). The search for i's block starts where the
// last call ended (s.bracket): a row's values are skipped in order.
func (s *skimmer) looseEnd(i int) (end int, ok bool) {
	first := int32(i >> 6)
	j := s.bracket
	if j > len(s.brackets) || j > 0 && s.brackets[j-1] >= first {
		j = 0
	}
	for j < len(s.brackets) && s.brackets[j] < first {
		j++
	}
	depth := 0
	for ; j < len(s.brackets); j++ {
		k := s.brackets[j]
		bl := &s.blocks[k]
		open, close := bl.open, bl.close
		if k == first {
			from := ^uint64(0) << (i & 63)
			open, close = open&from, close&from
		}
		for m := open | close; m != 0; m &= m - 1 {
			if open&(m&-m) != 0 {
				depth++
			} else if depth--; depth == 0 {
				s.bracket = j
				return int(k)<<6 + bits.TrailingZeros64(m) + 1, true
			}
		}
	}
	return len(s.b), false
}
