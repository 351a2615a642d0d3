package run

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// FuzzStageMasksAMD64: stageMasksSSE2 gives stageMasksWords's masks
// without brackets.
func FuzzStageMasksAMD64(f *testing.F) {
	f.Add([]byte("\"\\\x00\x1f\x20\x7f\x80\xff"), 0)
	f.Add([]byte("{[]}\x5b\x5d\x7b\x7d\x3b\x3d\x1b\x1d{"), 2)
	f.Add([]byte("{[\"\\\\]}"), 1)
	f.Fuzz(func(t *testing.T, pattern []byte, shift int) {
		if len(pattern) == 0 {
			return
		}
		b := blockLine(pattern, shift, 5)
		want := make([]stageBlock, 5)
		stageMasksWords(b, want, false)
		got := make([]stageBlock, 5)
		stageMasksSSE2(b, got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stageMasksSSE2(%q) = %x, want %x", b, got, want)
		}
	})
}

// FuzzStageAVX2: stageAVX2, called on a line's blocks in runs of any
// length as stage calls it, gives the masks and the carry that
// stageChunkWords gives, on lines of whole blocks whose backslash runs
// and escapes cross block and run boundaries.
func FuzzStageAVX2(f *testing.F) {
	if !cpu.X86.HasAVX2 {
		f.Skip("no AVX2")
	}
	f.Add([]byte(`"a\\\"b\n\u00e9\q\/\t`), 0, 1, 5)
	f.Add([]byte(`\`), 63, 1, 3)
	f.Add([]byte("\\\x01\"\x80\xff\\b"), 5, 2, 6)
	f.Add([]byte(`"\bfnrtu/\"`), 0x107, 3, 9)
	f.Fuzz(func(t *testing.T, pattern []byte, shift, run, blocks int) {
		if len(pattern) == 0 || run < 1 || blocks < 0 || blocks > 12 {
			return
		}
		b := blockLine(pattern, shift, blocks)
		want := make([]stageBlock, blocks)
		var wantCarry uint64
		stageChunkWords(b, want, &wantCarry)
		got := make([]stageBlock, blocks)
		var carry uint64
		for k := 0; k < blocks; k += run {
			end := min(k+run, blocks)
			stageAVX2(b[k*64:end*64], got[k:end], &carry)
		}
		if !reflect.DeepEqual(got, want) || carry != wantCarry {
			t.Fatalf("%q in runs of %d: %x, carry %d; want %x, carry %d", b, run, got, carry, want, wantCarry)
		}
	})
}

// FuzzLooseSkipAMD64: looseSkipAVX2, called on a line's blocks in runs of
// any length as looseEnd calls it, from any depth, gives the end and (when
// it finds none) the state that looseSkipWords gives, on lines of whole
// blocks whose backslash runs and strings cross block and run boundaries.
func FuzzLooseSkipAMD64(f *testing.F) {
	if !looseAVX2 {
		f.Skip("no AVX2, carry-less multiply or POPCNT")
	}
	f.Add([]byte(`"{\\\"[`), 0, 1, 7, 0)
	f.Add([]byte(`\`), 63, 1, 3, 0)
	f.Add([]byte("{\"a\\\\\\\"]\"}\x01"), 5, 2, 6, 0)
	f.Add([]byte(`ab"cd{`), 60, 3, 4, 0)
	f.Add([]byte(`]]]}}"`), 0, 2, 5, 40)
	f.Add([]byte(`{[{[]`), 3, 4, 9, -3)
	f.Fuzz(func(t *testing.T, pattern []byte, shift, run, blocks, depth int) {
		if len(pattern) == 0 || run < 1 || blocks < 0 || blocks > 12 {
			return
		}
		b := blockLine(pattern, shift, blocks)
		want := skipState{depth: depth}
		wantEnd := looseSkipWords(b, &want)
		got := skipState{depth: depth}
		end := -1
		for k := 0; k < len(b) && end < 0; k += run * 64 {
			if end = looseSkipAVX2(b[k:min(k+run*64, len(b))], &got); end >= 0 {
				end += k
			}
		}
		if end != wantEnd || wantEnd < 0 && got != want {
			t.Fatalf("%q in runs of %d from depth %d: %d, %+v; want %d, %+v", b, run, depth, end, got, wantEnd, want)
		}
	})
}

// blockLine is a line of whole blocks for the fuzz targets: pattern
// repeated from shift on, and with shift's bit 8 a run of backslashes (of
// up to 63, by its low bits) up to the middle of the line.
func blockLine(pattern []byte, shift, blocks int) []byte {
	b := make([]byte, 64*blocks)
	for i := range b {
		b[i] = pattern[(i+shift&0xff)%len(pattern)]
	}
	if shift&0x100 != 0 && len(b) > 1 { // a run of backslashes up to a block's end
		for i := len(b)/2 - shift&63; i >= 0 && i < len(b)/2; i++ {
			b[i] = '\\'
		}
	}
	return b
}
