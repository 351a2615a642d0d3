//go:build !purego

package run

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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

// checkMemberSpans holds memberSpansAVX2 to memberSpansWords from every
// quote of b, into room for 1 to 16 spans, with rowNames, a set made of
// set, and the sets of no and every name.
func checkMemberSpans(t *testing.T, b []byte, room int, set uint64, everyQuote bool) {
	t.Helper()
	sets := []*nameSet{&rowNames, {set, set * 3, ^set, set >> 7}, {}, {^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}}
	got, want := make([]memberSpan, 1+room&15), make([]memberSpan, 1+room&15)
	for i, c := range b {
		if c != '"' {
			continue
		}
		if !everyQuote && i != bytes.IndexByte(b, '"') {
			break
		}
		for _, names := range sets {
			n, next := memberSpansAVX2(b, i, names, got)
			wn, wnext := memberSpansWords(b, i, names, want)
			if n != wn || next != wnext || !slices.Equal(got[:n], want[:n]) {
				t.Fatalf("memberSpansAVX2(%q, %d, %x) = %d, %d, %v; want %d, %d, %v", b, i, *names, n, next, got[:n], wn, wnext, want[:wn])
			}
		}
	}
}

// FuzzMemberSpansAMD64: memberSpansAVX2 finds memberSpansWords's spans
// (checkMemberSpans).
func FuzzMemberSpansAMD64(f *testing.F) {
	if !looseAVX2 {
		f.Skip("no AVX2, carry-less multiply or POPCNT")
	}
	f.Add([]byte(`{"test_id":"a","score":1,"scores":[{"type":"t"}],"x":{"y":"}"},"n":-1.5e3,"error":"e\"q"}`), 15, uint64(0x8421))
	f.Add([]byte(`{"a":"b","k":[`+strings.Repeat(`{"p":"\\\"]"},`, 30)+`1],"m":{},"z":01,"q":"x"}`), 2, uint64(1))
	f.Add([]byte(`{"a":"`+strings.Repeat("x", 70)+"\x01\"}"), 3, uint64(0))
	f.Fuzz(func(t *testing.T, line []byte, room int, set uint64) {
		checkMemberSpans(t, line, room, set, true)
	})
}

// TestMemberSpansAMD64 runs checkMemberSpans on every corpus row and its
// grammarChanges, and on rows whose nested values and strings end at every
// place around a block's and a scan's edges, and whose nested values or
// members go past the stageRun blocks memberSpans looks at.
func TestMemberSpansAMD64(t *testing.T) {
	if !looseAVX2 {
		t.Skip("no AVX2, carry-less multiply or POPCNT")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	lines := skimCorpusLines(t)
	for n := range 140 {
		pad := strings.Repeat("x", n)
		lines = append(lines,
			[]byte(`{"a":{"p":"`+pad+`"},"b":"`+pad+`","score":1}`),
			[]byte(`{"test_id":"`+pad+`","n":[`+pad[:n/3]+`]}`),
			[]byte(`{"`+pad+`":1,"s":{"`+pad+`\"":[]}}`))
	}
	lines = append(lines, []byte(`{"a":[`+strings.Repeat(`"[",`, stageRun*16)+`0],"b":1}`))
	// A member starts 32766, 32704, 32767, 32768 (exactly stageRun*64, the
	// most a call takes) or 32800 bytes after the first name's quote
	// (members of size+7 bytes).
	for _, size := range []int{755, 1015, 1050, 1017, 4093} {
		lines = append(lines, []byte(`{`+strings.Repeat(`"k":"`+strings.Repeat("x", size)+`",`, 50)+`"score":1}`))
	}
	for _, line := range lines {
		checkMemberSpans(t, line, rnd.IntN(16), rnd.Uint64(), true)
		// a changed line from its first quote only: the unchanged ones
		// start at every quote
		grammarChanges(line, rnd, func(b []byte) { checkMemberSpans(t, b, rnd.IntN(16), rnd.Uint64(), false) })
	}
}
