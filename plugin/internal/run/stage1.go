package run

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"

	"agentv-review/plugin/internal/offheap"
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
	// other than " \ / b f n r t.
	special uint64
	escaped uint64 // the bytes a backslash escapes
	// The brackets, '{' and '[' (open) and '}' and ']' (close), raw: set
	// only by stageMasksWords for looseSkipWords.
	open, close uint64
}

// oddBits has a bit at every odd position.
const oddBits = 0xaaaaaaaaaaaaaaaa

// twoByteEscape flags the bytes that may follow a backslash in a two-byte
// JSON escape. A \u escape is marked special, left to the byte scan.
var twoByteEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// stage computes the masks of line into blocks (reusing its array) and
// returns them, one per 64 bytes and one for the rest (which may be
// none: a string's body may start at len(line)). For a loose read
// (loose set) it stages nothing and returns no blocks: the read then
// scans the bytes of the few strings it looks at, and looseEnd counts the
// brackets of the values it skips itself.
func stage(line []byte, blocks []stageBlock, loose bool) []stageBlock {
	if loose {
		return blocks[:0]
	}
	n := len(line)/64 + 1
	if cap(blocks) < n {
		blocks = make([]stageBlock, n, n+n/4)
		if n*int(unsafe.Sizeof(blocks[0])) >= offheap.MinMapped {
			// A long line's masks, megabytes new each time (skimmer.begin
			// drops them): mapped at once, not a fault a page (see offheap).
			offheap.Populate(blocks)
		}
	}
	blocks = blocks[:n]
	whole := len(line) / 64
	pad := spaces
	copy(pad[:], line[whole*64:])
	var carry uint64
	for k := 0; k < whole; k += stageRun { // a few microseconds in assembly at a time (see stageRun)
		end := min(k+stageRun, whole)
		stageChunk(line[k*64:end*64], blocks[k:end], &carry)
	}
	stageChunk(pad[:], blocks[whole:], &carry)
	return blocks
}

// stageChunkWords is stageChunk in portable Go: the implementation on
// other architectures, and amd64's reference in tests. It stages b,
// 64*len(out) bytes of a line (or its padded last block), into out,
// given in *carry (which it updates) whether the blocks before ended with
// an escaping backslash.
func stageChunkWords(b []byte, out []stageBlock, carry *uint64) {
	stageMasksWords(b, out, false)
	stageEscapes(b, out, carry)
}

// stageEscapes finishes the raw masks stageMasksWords (or stageMasksSSE2)
// made of b into out: they hold quotes, control characters and
// backslashes. A backslash escapes the byte after it unless it is itself
// escaped: the escaped bytes follow the odd-length runs of backslashes,
// found for all sixty-four at once by simdjson's subtraction (runs that
// start on an even bit borrow across their length differently from those
// that start on an odd one). An escaped byte is no quote, and special
// unless it makes a two-byte escape.
func stageEscapes(b []byte, out []stageBlock, carry *uint64) {
	c := *carry
	for k := range out {
		bl := &out[k]
		if bl.escaped|c == 0 {
			continue
		}
		plain := bl.quote | bl.escaped // \" and \\, the most common escapes after \n
		bl.escaped, c = escapes(bl.escaped, c)
		bl.quote &^= bl.escaped
		for m := bl.escaped &^ plain; m != 0; m &= m - 1 {
			if !twoByteEscape[b[k*64+bits.TrailingZeros64(m)]] {
				bl.special |= m & -m
			}
		}
	}
	*carry = c
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

// stageRun is how many blocks stage hands stageChunk at once. Assembly
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
	if k := i >> 6; s.staged && k < len(s.blocks) { // staged (so not loose)
		bl, at := &s.blocks[k], i&63
		// The first quote or special byte from i on (i's bit at 0): a
		// quote ends the string (no quote is special).
		stop := (bl.quote | bl.special) >> at
		if first := stop & -stop; bl.quote>>at&first != 0 {
			return i + bits.TrailingZeros64(first), true, bl.escaped>>at&(first-1) != 0
		}
	}
	return 0, false, false
}

// stringEnd is stringEnd(s.b, i) for a string whose body starts at i,
// read from the masks of the line when row has staged it: the first
// unescaped quote from i on ends the string, and the byte scan runs only
// when the body has a special byte (to find the error, or check a \u
// escape) or no end.
func (s *skimmer) stringEnd(i int) (end int, ok, escaped bool) {
	blocks := s.blocks
	k := i >> 6
	if !s.staged || k >= len(blocks) { // not staged (a loose read is not)
		return stringScan(s.b, i)
	}
	bl := &blocks[k]
	from := ^uint64(0) << (i & 63)
	if (bl.quote|bl.special)&from != 0 {
		return stringScan(s.b, i) // it ends here (the body has a special byte), or has one
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
	return stringScan(s.b, i)
}
