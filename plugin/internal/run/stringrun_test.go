package run

import (
	"bytes"
	"testing"
)

// FuzzStringScan: stringScan (assembly on amd64, in each of its modes)
// gives what stringEnd gives from every start: the same end, and ok and
// escaped alike.
func FuzzStringScan(f *testing.F) {
	f.Add([]byte(`abc"def\ghi`), 0)
	f.Add(bytes.Repeat([]byte("0123456789abcdef"), 5), 3)
	f.Add(append(bytes.Repeat([]byte{'x'}, 47), 0x1f, 0x20, 0x7f, 0x80, 0xff), 1)
	f.Add([]byte(`say \"hi\"\n\\\t\/\b\f\r then \u00e9 and \q`), 2)
	f.Add([]byte(`\u12`), 0)
	f.Add([]byte(`\u0aF9\u00G0"`), 0)
	f.Add([]byte("\\u\x10\x11\x12\x13\""), 0)
	f.Add(append(bytes.Repeat([]byte(`ab\n`), 20), '\\'), 0)
	f.Add(append(bytes.Repeat([]byte(`abcdefgh`), 8), `\u00e9xyz\t`+string(bytes.Repeat([]byte{'y'}, 40))+"\x01"...), 3)
	f.Fuzz(func(t *testing.T, b []byte, start int) {
		if start < 0 || start > len(b) {
			start = 0
		}
		wantEnd, wantOK, wantEsc := stringEnd(b, start)
		for mode := range scanModes() {
			if end, ok, esc := stringScan(b, start); end != wantEnd || ok != wantOK || esc != wantEsc {
				t.Fatalf("stringScan(%q, %d) with %s = %d, %v, %v; want %d, %v, %v", b, start, mode, end, ok, esc, wantEnd, wantOK, wantEsc)
			}
		}
	})
}
