package run

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// FuzzStageMasksAMD64: stageMasksSSE2 gives stageMasksWords's masks, with
// brackets (an even shift) and without, and where the processor has it
// stageMasksAVX2 those without.
func FuzzStageMasksAMD64(f *testing.F) {
	f.Add([]byte("\"\\\x00\x1f\x20\x7f\x80\xff"), 0)
	f.Add([]byte("{[]}\x5b\x5d\x7b\x7d\x3b\x3d\x1b\x1d{"), 2)
	f.Add([]byte("{[\"\\\\]}"), 1)
	f.Fuzz(func(t *testing.T, pattern []byte, shift int) {
		if len(pattern) == 0 {
			return
		}
		b := make([]byte, 64*5)
		for i := range b {
			b[i] = pattern[(i+shift&0xff)%len(pattern)]
		}
		brackets := shift%2 == 0
		want := make([]stageBlock, 5)
		stageMasksWords(b, want, brackets)
		got := make([]stageBlock, 5)
		stageMasksSSE2(b, got, brackets)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stageMasksSSE2(%q, %v) = %x, want %x", b, brackets, got, want)
		}
		if cpu.X86.HasAVX2 {
			stageMasksWords(b, want, false)
			stageMasksAVX2(b, got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stageMasksAVX2(%q) = %x, want %x", b, got, want)
			}
		}
	})
}

// FuzzStageLooseAMD64: stageLooseAVX2, called on a line's blocks in runs
// of any length as stage calls it, gives the masks, the blocks with
// brackets and the state that stageMasksWords and looseMasks give, on
// lines of whole blocks whose backslash runs and strings cross block
// and run boundaries.
func FuzzStageLooseAMD64(f *testing.F) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasPCLMULQDQ {
		f.Skip("no AVX2 or carry-less multiply")
	}
	f.Add([]byte(`"{\\\"[`), 0, 1, 7)
	f.Add([]byte(`\`), 63, 1, 3)
	f.Add([]byte("{\"a\\\\\\\"]\"}\x01"), 5, 2, 6)
	f.Add([]byte(`ab"cd{`), 60, 3, 4)
	f.Fuzz(func(t *testing.T, pattern []byte, shift, run, blocks int) {
		if len(pattern) == 0 || run < 1 || blocks < 0 || blocks > 12 {
			return
		}
		b := make([]byte, 64*blocks)
		for i := range b {
			b[i] = pattern[(i+shift&0xff)%len(pattern)]
		}
		if shift&0x100 != 0 && len(b) > 1 { // a run of backslashes up to a block's end
			for i := len(b)/2 - shift&63; i >= 0 && i < len(b)/2; i++ {
				b[i] = '\\'
			}
		}
		want, wantFound := make([]stageBlock, blocks), make([]int32, blocks)
		stageMasksWords(b, want, true)
		var wantSt looseState
		wantFound = wantFound[:looseMasks(want, wantFound, 0, &wantSt)]
		got, gotFound := make([]stageBlock, blocks), make([]int32, blocks)
		var st looseState
		c := 0
		for k := 0; k < blocks; k += run {
			end := min(k+run, blocks)
			c += stageLooseAVX2(b[k*64:end*64], got[k:end], gotFound[c:], k, &st)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotFound[:c], wantFound) || st != wantSt {
			t.Fatalf("%q in runs of %d: %x, %v, %x; want %x, %v, %x", b, run, got, gotFound[:c], st, want, wantFound, wantSt)
		}
	})
}
