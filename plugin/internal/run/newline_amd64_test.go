//go:build !purego

package run

import (
	"bytes"
	"testing"

	"golang.org/x/sys/cpu"
)

// FuzzNewlineAVX2: newlineAVX2 finds the first newline bytes.IndexByte
// finds, and lastNewlineAVX2 the last one bytes.LastIndexByte finds, in
// lines of 128 bytes and more (a pattern repeated) with newlines anywhere,
// at and around their steps' and halves' edges too, counted from either
// end.
func FuzzNewlineAVX2(f *testing.F) {
	if !cpu.X86.HasAVX2 {
		f.Skip("no AVX2")
	}
	f.Add([]byte("x"), 128, -1, -1)
	f.Add([]byte("ab"), 200, 127, 190)
	f.Add([]byte("\x0b\t\x8a"), 256, 255, -1)
	f.Add([]byte("x"), 300, 63, 64)
	f.Add([]byte("x"), 129, 128, -1)
	f.Add([]byte("{\"a\":1}"), 1000, 700, 100)
	f.Add([]byte("ab"), 200, 0, 71)
	f.Add([]byte("x"), 300, 171, 172)
	f.Add([]byte("{\"a\":1}"), 1000, 100, 871)
	f.Fuzz(func(t *testing.T, pattern []byte, n, at, also int) {
		if len(pattern) == 0 || n < 128 || n > 1<<16 {
			return
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = pattern[i%len(pattern)]
		}
		for _, p := range []int{at, also} {
			if p >= 0 && p < n {
				b[p] = '\n'
			}
		}
		if got, want := newlineAVX2(b), bytes.IndexByte(b, '\n'); got != want {
			t.Fatalf("newlineAVX2 of %d bytes with newlines at %d and %d = %d, want %d", n, at, also, got, want)
		}
		if got, want := lastNewlineAVX2(b), bytes.LastIndexByte(b, '\n'); got != want {
			t.Fatalf("lastNewlineAVX2 of %d bytes with newlines at %d and %d = %d, want %d", n, at, also, got, want)
		}
	})
}

// TestLastNewlineAVX2 puts one newline at every place of lines of 128 to
// 600 bytes, and none, and checks lastNewlineAVX2 against
// bytes.LastIndexByte.
func TestLastNewlineAVX2(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	for n := 128; n <= 600; n++ {
		b := bytes.Repeat([]byte{'\n' ^ 0x80}, n)
		for p := -1; p < n; p++ {
			if p >= 0 {
				b[p] = '\n'
			}
			if got, want := lastNewlineAVX2(b), bytes.LastIndexByte(b, '\n'); got != want {
				t.Fatalf("lastNewlineAVX2 of %d bytes with a newline at %d = %d, want %d", n, p, got, want)
			}
			if p >= 0 {
				b[p] = '\n' ^ 0x80
			}
		}
	}
}
