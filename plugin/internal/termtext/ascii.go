package termtext

import (
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// asciiFallbacks are the ASCII forms of the characters agentv-review
// itself draws (rules, marks, ellipses, arrows) for a terminal whose
// locale is not UTF-8.
var asciiFallbacks = map[rune]string{
	'—': "--", '–': "-", '─': "-", '·': "-", '•': "*", '…': "...", '✓': "+", '✗': "x", '▲': "^",
	'→': "->", '←': "<-", '≤': "<=", '≥': ">=", '×': "x", '±': "+/-", 'κ': "kappa",
	'⏎': "<CR>", '‘': "'", '’': "'", '“': `"`, '”': `"`, '❯': ">",
}

// ASCIIWriter passes ASCII through unchanged — escape sequences the program
// itself writes (cursor movement, colours) included — and writes every
// other character as ASCII: a Control Picture (what Sanitize makes of a
// control character) in caret notation ("␛" → "^[", "␡" → "^?"), the
// fallback of a character agentv-review draws, else <U+XXXX>; an invalid
// byte as \xNN. A terminal whose locale is
// not UTF-8 reads the bytes of a UTF-8 character as Latin-1, where
// 0x80–0x9F are C1 controls (0x9B is CSI): through this writer no such byte
// reaches it. Text from runs must still pass Sanitize first, which makes
// their control characters visible.
type ASCIIWriter struct {
	w       io.Writer
	pending []byte // the start of a character split across writes
}

// NewASCIIWriter wraps w.
func NewASCIIWriter(w io.Writer) *ASCIIWriter { return &ASCIIWriter{w: w} }

// Write converts p as described; it reports len(p) on success.
func (a *ASCIIWriter) Write(p []byte) (int, error) {
	in := append(a.pending, p...)
	a.pending = nil
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		if !utf8.FullRune(in[i:]) {
			a.pending = append(a.pending, in[i:]...) // complete it with the next write
			break
		}
		r, size := utf8.DecodeRune(in[i:])
		switch fb, ok := asciiFallbacks[r]; {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, "\\x%02X", c)
		case r >= 0x2400 && r < 0x2420:
			out = append(out, '^', byte(r-0x2400+0x40)) // ␀ … ␟ → ^@ … ^_
		case r == '␡':
			out = append(out, "^?"...)
		case ok:
			out = append(out, fb...)
		default:
			out = fmt.Appendf(out, "<U+%04X>", r)
		}
		i += size
	}
	if _, err := a.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ASCIITerminal is a terminal file whose writes go through an ASCIIWriter;
// it keeps the file's descriptor for size and mode queries (what survey's
// terminal.FileWriter needs).
type ASCIITerminal struct {
	*os.File
	w *ASCIIWriter
}

// NewASCIITerminal wraps f.
func NewASCIITerminal(f *os.File) *ASCIITerminal {
	return &ASCIITerminal{File: f, w: NewASCIIWriter(f)}
}

// Write converts p (see ASCIIWriter).
func (t *ASCIITerminal) Write(p []byte) (int, error) { return t.w.Write(p) }
