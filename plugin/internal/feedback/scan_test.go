package feedback

import (
	"bytes"
	"testing"
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
