package run

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// FuzzStageMasksAMD64: stageMasksSSE2 and, where the processor has it,
// stageMasksAVX2 give stageMasksWords's masks, with brackets (an even
// shift) and without.
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
		impls := map[string]func([]byte, []stageBlock, bool){"SSE2": stageMasksSSE2}
		if cpu.X86.HasAVX2 {
			impls["AVX2"] = stageMasksAVX2
		}
		for name, masks := range impls {
			got := make([]stageBlock, 5)
			masks(b, got, brackets)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s(%q) = %x, want %x", name, b, got, want)
			}
		}
	})
}
