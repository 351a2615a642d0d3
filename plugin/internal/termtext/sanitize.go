// Package termtext makes untrusted run text (answers, inputs, grader names,
// reasons) inert before it reaches a terminal, and lays it out by display
// width.
//
// # Sanitising policy
//
// Sanitize never drops a character silently: everything that could act on the
// terminal is replaced by something printable, so a reviewer SEES that an
// answer contained an escape sequence (itself a review signal).
//
//   - C0 controls other than \n and \t (ESC, BEL, BS, CR, NUL, ...) become the
//     matching Unicode Control Picture (U+2400 + byte): "\x1b[2J" → "␛[2J",
//     BEL → "␇", a lone CR → "␍". DEL becomes "␡". With ESC gone, the rest of
//     every escape sequence (CSI, OSC titles and OSC 8 hyperlinks, DCS,
//     APC/PM/SOS, ESC c) is plain printable text: no parser is involved, so a
//     malformed or unterminated sequence can never swallow the text after it.
//   - C1 controls U+0080–U+009F become "␛" plus their 7-bit equivalent
//     (ECMA-48): U+009B CSI → "␛[".
//   - Invalid UTF-8 becomes U+FFFD, one per bad byte (so a raw 0x9b byte is
//     shown as U+FFFD, never sent).
//   - Bidi controls and other invisible characters that reorder or break the
//     layout are shown as "<U+XXXX>": U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069, U+206A–U+206F, U+2028, U+2029, U+FEFF and U+FFF9–U+FFFB.
//     Joiners (U+200C, U+200D), U+200B, variation selectors and tag characters
//     are kept: emoji ZWJ sequences, keycaps and subdivision flags stay intact.
//   - CRLF becomes LF; tabs expand to spaces up to the next multiple of four
//     display cells.
//
// SanitizeLine applies the same policy and also shows each line break as "⏎",
// for one-line fields (test ids, grader names, reasons in lists).
//
// # Terminals that are not UTF-8
//
// The policy above writes UTF-8, whose multi-byte characters contain bytes
// 0x80–0x9F (every Control Picture does: "␛" is E2 90 9B). A terminal whose
// locale is not UTF-8 reads each byte as a character, and an 8-bit one reads
// 0x80–0x9F as C1 controls (0x9B is CSI). Output to such a terminal goes
// through an ASCIIWriter (or ASCIITerminal), which writes 7-bit ASCII only,
// so sanitised text reaches it as:
//
//   - C0 controls and DEL in caret notation: ESC → "^[", BEL → "^G", DEL → "^?"
//     (from their Control Pictures); SanitizeLine's "⏎" as "<CR>".
//   - C1 controls U+0080–U+009F as "^[" plus their 7-bit equivalent (U+009B → "^[[").
//   - Every other non-ASCII character, printable or not, as "<U+XXXX>" (invalid
//     UTF-8, already U+FFFD, as "<U+FFFD>").
//
// Which one applies is the caller's choice, made once: CharsetFromEnv reads
// the locale the way the C library does (the first non-empty of LC_ALL,
// LC_CTYPE and LANG; UTF-8 only when its codeset is UTF-8, so unset, "C",
// "POSIX" and "en_US.ISO-8859-1" are ASCII), from a getenv function passed
// in, so tests give it a map, not the process environment.
//
// # Right-to-left text
//
// Arabic and Hebrew are passed through in logical order and never wrapped in
// bidi isolates: FSI/PDI support differs between terminals, and the policy above
// guarantees no bidi control reaches the terminal at all. A terminal that does
// implicit bidi can therefore reorder at most the characters of one output
// line; layout is computed line by line, so it cannot reorder the surrounding
// lines.
//
// # Layout
//
// Width, Truncate and Wrap measure display cells (East Asian wide and
// emoji = 2, combining marks = 0) and cut only between grapheme clusters. They
// expect sanitised text.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TabWidth is the distance between tab stops, in display cells.
const TabWidth = 4

// Charset is what a terminal can be sent: UTF-8, or only 7-bit ASCII.
type Charset uint8

const (
	UTF8  Charset = iota // the locale's codeset is UTF-8
	ASCII                // any other codeset: C, POSIX, ISO-8859-*, KOI8-R, ...
)

// CharsetFromEnv is the charset of the locale that getenv (os.Getenv, or a
// test's map) describes: the first non-empty of LC_ALL, LC_CTYPE and LANG
// decides, as in the C library; it is UTF8 when its codeset (between "." and
// "@") is UTF-8 or utf8 in any case, else ASCII, also when none is set.
func CharsetFromEnv(getenv func(string) string) Charset {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		locale := getenv(name)
		if locale == "" {
			continue
		}
		_, codeset, _ := strings.Cut(locale, ".")
		codeset, _, _ = strings.Cut(codeset, "@")
		if strings.EqualFold(strings.ReplaceAll(codeset, "-", ""), "utf8") {
			return UTF8
		}
		return ASCII
	}
	return ASCII
}

// Sanitize returns s with every terminal control made visible and inert; see
// the package documentation for the exact policy. It is idempotent.
func Sanitize(s string) string { return sanitize(s, "\n") }

// SanitizeLine is Sanitize for one-line fields: line breaks become "⏎".
func SanitizeLine(s string) string { return sanitize(s, "⏎") }

// sanitize applies the policy, writing newline for each line break.
func sanitize(s, newline string) string {
	var b strings.Builder
	b.Grow(len(s))
	// Tab stops need the display column; it is measured lazily, from the
	// column and output offset at the previous tab or line start.
	col, colAt := 0, 0
	for i := 0; i < len(s); {
		// Fast path: a run of printable ASCII.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
			j++
		}
		b.WriteString(s[i:j])
		if i = j; i == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && strings.HasPrefix(s[i:], "\n"):
			// CRLF: the LF is written on the next iteration.
		case r == '\n':
			b.WriteString(newline)
			if newline == "\n" {
				col, colAt = 0, b.Len()
			}
		case r == '\t':
			col += Width(b.String()[colAt:])
			n := TabWidth - col%TabWidth
			b.WriteString("    "[:n])
			col, colAt = col+n, b.Len()
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Control Pictures: ␀ ... ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune('␛')
			b.WriteByte(byte(r - 0x40))
		case isLayoutControl(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i-size : i])
		}
	}
	return b.String()
}

// isLayoutControl reports whether r is an invisible character that reorders
// or breaks the displayed text: bidi marks, embeddings, overrides and
// isolates, deprecated format controls, line/paragraph separators, the BOM and
// interlinear annotation controls.
func isLayoutControl(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0xfeff:
		return true
	case r >= 0x2028 && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x206f:
		return true
	case r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}
