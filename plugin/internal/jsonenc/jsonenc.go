// Package jsonenc appends JSON strings and numbers byte for byte as
// encoding/json writes them, for the encoders that write JSON by hand
// (feedback files, list --json) without encoding/json's reflection.
package jsonenc

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as encoding/json writes a string: with html,
// < > & are escaped as json.Marshal does; without, as an Encoder with
// SetEscapeHTML(false) writes them. Control characters, U+2028 and U+2029
// are escaped and invalid UTF-8 becomes \ufffd either way.
func AppendString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	mask := escapePlain
	if html {
		mask |= escapeHTML
	}
	for i := 0; i < len(s); {
		// A run of words that need no look, at the start and after each
		// escape: after a byte that needs one, the words up to the next
		// escape are mostly not plain (non-ASCII text, JSON in a string),
		// and trying each place again would cost a word read a byte.
		if i == start {
			if i += plainRun(s[i:], html); i == len(s) {
				break
			}
		}
		if b := s[i]; b < utf8.RuneSelf {
			if escapes[b]&mask == 0 {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainRun is how many bytes from the start of s need no look from
// AppendString (none it escapes, with html < > & too, none past ASCII),
// found 8 at a time: a multiple of 8, or all of s. In each word, a test
// below sets a byte's high bit when the byte needs a look, else only
// above such a byte (a borrow), so a word is plain exactly when it has
// no high bit set.
func plainRun(s string, html bool) int {
	for i := 0; i < len(s); i += 8 {
		var w uint64
		switch {
		case i+8 <= len(s):
			w = word(s, i)
		case len(s) >= 8: // the last bytes, in the word that ends with them
			w = word(s, len(s)-8)
		case len(s) >= 4: // a short s: its first 4 bytes and its last 4, which overlap
			w = uint64(half(s, 0)) | uint64(half(s, len(s)-4))<<32
		default: // its first, middle and last byte (all of them), then plain bytes
			w = 'a'*ones&^0xffffff | uint64(s[0]) | uint64(s[len(s)/2])<<8 | uint64(s[len(s)-1])<<16
		}
		m := w | (w-ones*0x20)&^w | equal(w, '"') | equal(w, '\\') // past ASCII, control, ", \
		if html {
			m |= equal(w, '<') | equal(w, '>') | equal(w, '&')
		}
		if m&highs != 0 {
			return i
		}
	}
	return len(s)
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// word is the 8 bytes of s from i on, the first in the low byte.
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// half is the 4 bytes of s from i on, the first in the low byte.
func half(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// equal has the high bit set in the bytes of w equal to b (see plainRun).
func equal(w uint64, b byte) uint64 {
	v := w ^ ones*uint64(b)
	return (v - ones) &^ v
}

// escapes tells of each ASCII byte whether AppendString escapes it:
// always (escapePlain), or with html (escapeHTML).
var escapes = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b < 0x20 || b == '"' || b == '\\':
			t[b] = escapePlain
		case b == '<' || b == '>' || b == '&':
			t[b] = escapeHTML
		}
	}
	return t
}()

const (
	escapePlain uint8 = 1 << iota
	escapeHTML
)

// AppendFloat appends f as encoding/json writes a float64 (ES6 number to
// string): the shortest decimal, with an exponent below 1e-6 and from
// 1e21 ("1e-7", not "1e-07"). NaN and infinities are errors, worded as
// encoding/json's.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if b, ok := AppendDecimal(dst, f, 4); ok {
		return b, nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-09 → e-9
		dst = dst[:n-1]
	}
	return dst, nil
}

// AppendDecimal appends f when it is a decimal of at most places (0 to
// 4) decimals below 1e6 units of the last (the float64 nearest to i/10^places,
// as most scores are: 0.94, 0.5, 1, 0.9725), and tells whether it did. Its
// shortest decimal is then i/10^places without trailing zeros (no other
// decimal with as few digits is within half a unit in the last place of f
// there), which is what AppendFloat and strconv write; with 2 places it is
// also what %.2f writes without its trailing zeros and point. It is a fast
// path of theirs: strconv's shortest search costs some 10 times more.
func AppendDecimal(dst []byte, f float64, places int) ([]byte, bool) {
	unit := [...]float64{1, 10, 100, 1000, 10000}[places]
	v := f * unit
	if !(v >= 0 && v < 1e6) || v == 0 && math.Signbit(f) { // NaN fails the first test
		return dst, false
	}
	i := int64(v + 0.5)
	if float64(i)/unit != f { // the division rounds to the nearest float64, as parsing i/10^places does
		return dst, false
	}
	dst = strconv.AppendInt(dst, i/int64(unit), 10)
	frac := i % int64(unit)
	if frac == 0 {
		return dst, true
	}
	dst = append(dst, '.')
	for d := int64(unit) / 10; frac != 0; d /= 10 { // the digits up to the last one that is not 0
		dst = append(dst, byte('0'+frac/d))
		frac %= d
	}
	return dst, true
}
