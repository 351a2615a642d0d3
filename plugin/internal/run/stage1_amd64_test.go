package run

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// FuzzStageMasksAMD64: stageMasksSSE2 and bracketMasksSSE2 and, where
// the processor has it, their AVX2 twins give the masks of
// stageMasksWords and bracketMasksWords.
func FuzzStageMasksAMD64(f *testing.F) {
	f.Add([]byte("\"\\\x00\x1f\x20\x7f\x80\xff"), 0)
	f.Add([]byte("{[]}\x5b\x5d\x7b\x7d\x3b\x3d\x1b\x1d{"), 3)
	f.Fuzz(func(t *testing.T, pattern []byte, shift int) {
		if len(pattern) == 0 {
			return
		}
		b := make([]byte, 64*5)
		for i := range b {
			b[i] = pattern[(i+shift&0xff)%len(pattern)]
		}
		want := make([]stageBlock, 5)
		stageMasksWords(b, want)
		bracketMasksWords(b, want)
		impls := map[string][2]func([]byte, []stageBlock){"SSE2": {stageMasksSSE2, bracketMasksSSE2}}
		if cpu.X86.HasAVX2 {
			impls["AVX2"] = [2]func([]byte, []stageBlock){stageMasksAVX2, bracketMasksAVX2}
		}
		for name, masks := range impls {
			got := make([]stageBlock, 5)
			masks[0](b, got)
			masks[1](b, got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s(%q) = %x, want %x", name, b, got, want)
			}
		}
	})
}
