package run

import "math/bits"

// A loose skip finds where a nested value ends without checking its
// grammar: it counts the brackets that are outside strings, sixty-four
// bytes at a time, from the masks stage 1 made of the line (the quotes no
// backslash escapes, whose prefix XOR marks the bytes in strings, the
// escaped bytes and the brackets). On a well-formed value it ends exactly
// where skipNested does (the closing bracket that matches the first); on
// a malformed one it ends somewhere or reports no end, and never reads
// past the line. A backslash escapes the next byte, in a string or not.
//
// Only a read that checks the kept rows alone uses it
// (Options.CheckKeptOnly): every row that read keeps, every row it fails
// on and a last line without its newline are read again strictly.

// looseEnd returns the index just past the object or array that starts at
// s.b[i] (a '{' or '[' outside strings), found by counting brackets
// outside strings; ok is false when the line ends first. The line must be
// staged with brackets.
func (s *skimmer) looseEnd(i int) (end int, ok bool) {
	depth := 0
	var inside uint64 // all ones when the block before ended in a string
	from := ^uint64(0) << (i & 63)
	for k := i >> 6; k < len(s.blocks); k++ {
		bl := &s.blocks[k]
		if bl.open|bl.close == 0 { // most blocks of a prompt or an answer
			inside ^= -uint64(bits.OnesCount64(bl.quote&from) & 1)
			from = ^uint64(0)
			continue
		}
		str := prefixXor(bl.quote&from) ^ inside // from an opening quote up to its closing one
		inside = uint64(int64(str) >> 63)
		out := from &^ (str | bl.escaped)
		open, close := bl.open&out, bl.close&out
		from = ^uint64(0)
		for m := open | close; m != 0; m &= m - 1 {
			if open&(m&-m) != 0 {
				depth++
			} else if depth--; depth == 0 {
				return k<<6 + bits.TrailingZeros64(m) + 1, true
			}
		}
	}
	return len(s.b), false
}

// prefixXor sets each bit to the XOR of it and every bit below it.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}
