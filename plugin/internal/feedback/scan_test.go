package feedback

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzPlain: plain, which scans eight bytes at a time, finds the first
// byte a string needs care with, as a byte at a time does.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "abc", `abcdefgh"`, "abcdefghijklmnop\\q", "\x1f", "abcdefg\x80", "a\u00e9", "\x7f\x20\x21\x22", "zzzzzzzzzzzzzzz\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for at := range min(len(b), 9) { // every alignment
			want := bytes.IndexFunc(b[at:], func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r >= utf8.RuneSelf })
			if want < 0 {
				want = len(b) - at
			}
			if got := plain(b[at:]); got != want {
				t.Fatalf("plain(%q) = %d, want %d", b[at:], got, want)
			}
		}
	})
}

// FuzzSkipSpace: skipSpace, which scans eight bytes at a time, stops at
// the first byte that is not JSON whitespace, as a byte at a time does,
// across buffer refills too.
func FuzzSkipSpace(f *testing.F) {
	for _, s := range []string{"", " ", "\n      \"a\"", "\t\r\n x", "        \x00", "\x0b", "  \x1f\x21!", "\r\r\r\r\r\r\r\r\r,"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := bytes.IndexFunc(b, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' })
		if want < 0 {
			want = len(b)
		}
		for _, r := range []io.Reader{bytes.NewReader(b), iotest.HalfReader(bytes.NewReader(b))} {
			d := newDecoder(r, nil)
			if d.skipSpace(); d.offset() != int64(want) {
				t.Fatalf("skipSpace(%q) stops at %d, want %d", b, d.offset(), want)
			}
		}
	})
}
