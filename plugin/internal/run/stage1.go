package run

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Stage 1, as simdjson calls it: before a row is parsed, one pass over
// the whole line finds, sixty-four bytes at a time, where its strings end
// and whether their bodies need a closer look. The parser then finds the
// end of a string (about 140 per row, most of them short) with a few bit
// operations instead of a scan of its own (see skimmer.stringEnd).

// stageBlock holds the masks of one 64-byte block of a line: bit k stands
// for byte k of the block.
type stageBlock struct {
	quote uint64 // the quotes no backslash escapes
	// special: control characters, and the bytes escaped by a backslash
	// other than " \ / b f n r t; for a line staged loose, every escaped
	// byte (more than need be: near and stringEnd then leave the string to
	// the byte scan, which is exact).
	special uint64
	escaped uint64 // the bytes a backslash escapes
	// The brackets, '{' and '[' (open) and '}' and ']' (close), outside
	// strings and not escaped; set only for a line staged loose (see
	// looseEnd).
	open, close uint64
}

// oddBits has a bit at every odd position.
const oddBits = 0xaaaaaaaaaaaaaaaa

// twoByteEscape flags the bytes that may follow a backslash in a two-byte
// JSON escape. A \u escape is marked special, left to the byte scan.
var twoByteEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// stage computes the masks of line into blocks (reusing its array) and
// returns them, one per 64 bytes and one for the rest (which may be
// none: a string's body may start at len(line)). With brackets set, for
// a loose read (see looseEnd), it also finds the brackets outside strings
// and lists in *brackets (reusing its array) the blocks that hold one,
// in order; and the special masks then hold every escape.
func stage(line []byte, blocks []stageBlock, brackets *[]int32) []stageBlock {
	n := len(line)/64 + 1
	if cap(blocks) < n {
		blocks = make([]stageBlock, n, n+n/4)
	}
	blocks = blocks[:n]
	whole := len(line) / 64
	pad := spaces
	copy(pad[:], line[whole*64:])
	if brackets != nil {
		if cap(*brackets) < n {
			*brackets = make([]int32, n, n+n/4)
		}
		found := (*brackets)[:n]
		var st looseState
		c := 0
		for k := 0; k < whole; k += stageRun { // a few microseconds in assembly at a time (see stageRun)
			end := min(k+stageRun, whole)
			c += stageLoose(line[k*64:end*64], blocks[k:end], found[c:], k, &st)
		}
		c += stageLoose(pad[:], blocks[whole:], found[c:], whole, &st)
		*brackets = found[:c]
		return blocks
	}
	for k := 0; k < whole; k += stageRun {
		end := min(k+stageRun, whole)
		stageMasks(line[k*64:end*64], blocks[k:end])
	}
	stageMasks(pad[:], blocks[whole:])
	// The raw masks hold quotes, control characters and backslashes. A
	// backslash escapes the byte after it unless it is itself escaped:
	// the escaped bytes follow the odd-length runs of backslashes, found
	// for all sixty-four at once by simdjson's subtraction (runs that start
	// on an even bit borrow across their length differently from those
	// that start on an odd one).
	var carry uint64 // 1 when the last block ended with an escaping backslash
	for k := range blocks {
		bl := &blocks[k]
		if bl.escaped|carry == 0 {
			continue
		}
		plain := bl.quote | bl.escaped // \" and \\, the most common escapes after \n
		bl.escaped, carry = escapes(bl.escaped, carry)
		bl.quote &^= bl.escaped
		for m := bl.escaped &^ plain; m != 0; m &= m - 1 {
			if p := k*64 + bits.TrailingZeros64(m); p >= len(line) || !twoByteEscape[line[p]] {
				bl.special |= m & -m
			}
		}
	}
	return blocks
}

// looseState is what a loose stage carries from one block to the next.
type looseState struct {
	carry  uint64 // 1 when the last block ended with an escaping backslash
	inside uint64 // all ones when the last block ended in a string
}

// looseMasks finishes, for a loose read, the raw masks that stageMasks
// made with brackets of blocks, the blocks of a line from block first on,
// given the state the blocks before left in *st (which it updates): the
// escaped bytes as stage finds them, each also special, and no quote; the
// bytes in strings are then the prefix XOR of the quotes (from an opening
// quote up to its closing one), and the brackets among them or escaped
// are dropped. It writes to found, in order, the indexes of the blocks
// that still hold a bracket and returns how many; len(found) is at least
// len(blocks). It is stageLoose in portable Go, and the reference of
// amd64's assembly in tests.
func looseMasks(blocks []stageBlock, found []int32, first int, st *looseState) int {
	c := 0
	carry, inside := st.carry, st.inside
	for k := range blocks {
		bl := &blocks[k]
		if bl.escaped|carry|bl.open|bl.close == 0 { // most blocks of a prompt or an answer
			inside ^= -uint64(bits.OnesCount64(bl.quote) & 1)
			continue
		}
		if bl.escaped|carry != 0 {
			bl.escaped, carry = escapes(bl.escaped, carry)
			bl.quote &^= bl.escaped
			bl.special |= bl.escaped
		}
		str := prefixXor(bl.quote) ^ inside
		inside = uint64(int64(str) >> 63)
		out := ^(str | bl.escaped)
		if bl.open &= out; bl.open|bl.close&out != 0 {
			found[c] = int32(first + k)
			c++
		}
		bl.close &= out
	}
	st.carry, st.inside = carry, inside
	return c
}

// escapes returns the bytes that the backslashes of a block escape and
// the carry into the next block, given the carry from the block before (1
// when it ended with an escaping backslash).
func escapes(backslash, carry uint64) (escaped, next uint64) {
	potential := backslash &^ carry
	code := (potential<<1 | oddBits - potential) ^ oddBits
	return code ^ (backslash | carry), code & backslash >> 63
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

// stageRun is how many blocks stage hands stageMasks at once. Assembly
// cannot be preempted: a call over a whole line of megabytes kept the
// collector's stop-the-world, and every other thread, waiting on it (a
// 5 MB-a-row run read 40 % slower, and ten times the instructions under
// valgrind, in the scheduler).
const stageRun = 512

// spaces pads a line's last block.
var spaces = [64]byte(bytes.Repeat([]byte{' '}, 64))

// stageMasksWords is stageMasks in portable Go, eight bytes at a time:
// the implementation on other architectures, and amd64's reference in
// tests. It sets each block's quote, special and escaped masks to its
// quotes, control characters and backslashes, and its open and close
// masks to its brackets when brackets is set; len(b) is 64*len(out).
func stageMasksWords(b []byte, out []stageBlock, brackets bool) {
	const ones = 0x0101010101010101
	for k := range out {
		var bl stageBlock
		for j := 0; j < 64; j += 8 {
			x := binary.LittleEndian.Uint64(b[k*64+j:])
			bl.quote |= highBits(zeroBytes(x^ones*'"')) << j
			bl.escaped |= highBits(zeroBytes(x^ones*'\\')) << j
			bl.special |= highBits(zeroBytes(x&(ones*0xe0))) << j
			if brackets {
				x |= ones * 0x20 // '[' | 0x20 is '{', ']' | 0x20 is '}'
				bl.open |= highBits(zeroBytes(x^ones*'{')) << j
				bl.close |= highBits(zeroBytes(x^ones*'}')) << j
			}
		}
		out[k] = bl
	}
}

// zeroBytes flags with its high bit each zero byte of x, and no other.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^(x&low7 + low7 | x | low7)
}

// highBits packs the high bits of x's bytes into eight bits, byte 0's in
// bit 0.
func highBits(x uint64) uint64 { return (x >> 7 & 0x0101010101010101) * 0x0102040810204080 >> 56 }

// near is stringEnd for the string whose body starts at i when row has
// staged the line and the string ends, with no special byte, in the block
// it starts in (most do), read from the masks inline; ok is false for any
// other, which the caller leaves to stringEnd.
func (s *skimmer) near(i int) (end int, ok, escaped bool) {
	if !s.staged {
		return 0, false, false
	}
	bl := &s.blocks[i>>6]
	from := ^uint64(0) << (i & 63)
	m := bl.quote & from
	body := from & (m&-m - 1)
	if m == 0 || bl.special&body != 0 {
		return 0, false, false
	}
	return i&^63 + bits.TrailingZeros64(m), true, bl.escaped&body != 0
}

// stringEnd is stringEnd(s.b, i) for a string whose body starts at i,
// read from the masks of the line when row has staged it: the first
// unescaped quote from i on ends the string, and the byte scan runs only
// when the body has a special byte (to find the error, or check a \u
// escape) or no end.
func (s *skimmer) stringEnd(i int) (end int, ok, escaped bool) {
	if !s.staged {
		return stringEnd(s.b, i)
	}
	blocks := s.blocks
	k := i >> 6
	bl := &blocks[k]
	from := ^uint64(0) << (i & 63)
	if (bl.quote|bl.special)&from != 0 {
		return stringEnd(s.b, i) // it ends here (the body has a special byte), or has one
	}
	esc := bl.escaped & from
	for k++; k < len(blocks); k++ {
		if bl = &blocks[k]; bl.quote != 0 {
			body := bl.quote&-bl.quote - 1
			if bl.special&body != 0 {
				break
			}
			return k<<6 + bits.TrailingZeros64(bl.quote), true, esc|bl.escaped&body != 0
		}
		if bl.special != 0 {
			break
		}
		esc |= bl.escaped
	}
	return stringEnd(s.b, i)
}
