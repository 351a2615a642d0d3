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
