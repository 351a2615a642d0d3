package run

import (
	"encoding/binary"
	"math/bits"
)

// A loose skip finds where a nested value ends without checking its
// grammar: it counts the brackets that are outside strings, sixty-four
// bytes at a time, as a simdjson-style first stage does (one bit per byte
// for quotes, backslashes, opening and closing brackets; the escaped
// bytes and the bytes inside strings from those by carries and a prefix
// XOR). On a well-formed value it ends exactly where skipNested does (the
// closing bracket that matches the first); on a malformed one it ends
// somewhere or reports no end, and never reads past the line. A backslash
// escapes the next byte, in a string or not.
//
// Only a read that checks the kept rows alone uses it
// (Options.CheckKeptOnly): every row that read keeps, every row it fails
// on and a last line without its newline are read again strictly.

// evenBits has the bits at even positions set.
const evenBits = 0x5555555555555555

// looseState is what a loose skip carries from one block to the next.
type looseState struct {
	depth  int    // brackets open
	inside uint64 // all ones when the block before ended in a string
	odd    uint64 // 1 when the block before ended with an odd run of backslashes
}

// looseEnd returns the index just past the object or array that starts at
// b[i] (a '{' or '['), found by counting brackets outside strings; ok is
// false when the line ends first. looseBlocks walks the whole blocks, the
// rest is one block padded with zeros (none of the four bytes).
func looseEnd(b []byte, i int) (end int, ok bool) {
	var st looseState
	base, found := looseBlocks(b, i, &st)
	if found || base == len(b) {
		return base, found
	}
	var pad [64]byte
	copy(pad[:], b[base:])
	if k := st.step(blockMasks(&pad)); k >= 0 {
		return base + k, true
	}
	return len(b), false
}

// looseBlocksWords is looseBlocks in portable Go: the implementation on
// other architectures, and amd64's reference in tests.
func looseBlocksWords(b []byte, i int, st *looseState) (int, bool) {
	for ; len(b)-i >= 64; i += 64 {
		if k := st.step(blockMasksWords((*[64]byte)(b[i:]))); k >= 0 {
			return i + k, true
		}
	}
	return i, false
}

// step advances st over a block, given its masks: it returns the index
// just past the bracket that closes the value, or -1 when the value goes
// on past the block.
func (st *looseState) step(quote, backslash, open, close uint64) int {
	esc := escapedBits(backslash, &st.odd)
	str := prefixXor(quote&^esc) ^ st.inside // from an opening quote up to its closing one
	st.inside = uint64(int64(str) >> 63)
	open &^= str | esc
	close &^= str | esc
	for m := open | close; m != 0; m &= m - 1 {
		if open&(m&-m) != 0 {
			st.depth++
		} else if st.depth--; st.depth == 0 {
			return bits.TrailingZeros64(m) + 1
		}
	}
	return -1
}

// escapedBits returns the bits of the bytes that follow an odd run of
// backslashes, given the backslashes of a block; *odd carries, from one
// block to the next, whether the block ended with such a run (simdjson's
// find_escaped, with bits.Add64 for its carry).
func escapedBits(backslash uint64, odd *uint64) uint64 {
	if backslash == 0 {
		e := *odd
		*odd = 0
		return e
	}
	starts := backslash &^ (backslash << 1)
	evenStart := evenBits ^ *odd
	evenCarries := backslash + (starts & evenStart)
	oddCarries, carry := bits.Add64(backslash, starts&^evenStart, 0)
	oddCarries |= *odd
	*odd = carry
	return (evenCarries&^backslash)&^evenBits | (oddCarries&^backslash)&evenBits
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

// blockMasksWords is blockMasks in portable Go, eight bytes at a time: the
// implementation on other architectures, and amd64's reference in tests.
func blockMasksWords(p *[64]byte) (quote, backslash, open, close uint64) {
	for k := 0; k < 64; k += 8 {
		x := binary.LittleEndian.Uint64(p[k:])
		quote |= byteFlags(x, '"') << k
		backslash |= byteFlags(x, '\\') << k
		open |= byteFlags(x|0x2020202020202020, '{') << k // '[' | 0x20 is '{'
		close |= byteFlags(x|0x2020202020202020, '}') << k
	}
	return
}

// byteFlags returns one bit for each byte of the little-endian word x that
// equals c, the lowest bit for the first byte.
func byteFlags(x uint64, c byte) uint64 {
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	y := x ^ (0x0101010101010101 * uint64(c))
	// The high bit of each byte of t is set exactly when the byte of y is 0.
	t := ^(((y & low7) + low7) | y | low7)
	return (t & high) * 0x0002040810204081 >> 56
}
