package termtext

import (
	"bytes"
	"strings"
	"testing"
)

// TestASCIIWriterNeverSendsHighBytes: whatever is written, only 7-bit bytes
// come out; ASCII (escape sequences included) is unchanged; a character
// split across two writes is converted whole.
func TestASCIIWriterNeverSendsHighBytes(t *testing.T) {
	var out bytes.Buffer
	w := NewASCIIWriter(&out)
	in := "\x1b[2K? Verdict — 1. Acceptable ✓ · κ … \u009b\xff end"
	for i := range len(in) { // one byte a write: every character split
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	got := out.String()
	for i := range len(got) {
		if got[i] >= 0x80 {
			t.Fatalf("byte %#x at %d in %q", got[i], i, got)
		}
	}
	if want := "\x1b[2K? Verdict -- 1. Acceptable + - kappa ... <U+009B>\\xFF end"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzASCIIWriter(f *testing.F) {
	f.Add("— ✓ \u009b \xc2\x9b", 3)
	f.Fuzz(func(t *testing.T, s string, chunk int) {
		chunk = max(1, chunk%8)
		var out bytes.Buffer
		w := NewASCIIWriter(&out)
		for i := 0; i < len(s); i += chunk {
			w.Write([]byte(s[i:min(len(s), i+chunk)]))
		}
		if strings.IndexFunc(out.String(), func(r rune) bool { return r >= 0x80 }) >= 0 {
			t.Fatalf("%q → %q", s, out.String())
		}
	})
}
