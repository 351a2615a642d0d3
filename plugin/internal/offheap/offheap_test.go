package offheap

import (
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestChunksGiveBack: chunks outside the heap go back when their Chunked
// does (a Run's cleanup), so reading run after run does not grow.
func TestChunksGiveBack(t *testing.T) {
	base, ok := Resident()
	if !ok {
		t.Skip("no resident size to read")
	}
	const perRound = 32 << 20 // bytes touched a round
	for round := range 16 {
		var c Chunked[uint64]
		for i := range perRound / 8 {
			c.Add(uint64(i))
		}
		if c.Get(perRound/8-1) != perRound/8-1 {
			t.Fatalf("round %d: the last value comes back wrong", round)
		}
		runtime.GC()
	}
	for range 4 { // cleanups run after the cycle that finds their handles gone
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if now, _ := Resident(); now-base > 4*perRound {
		t.Errorf("resident size grew %d MiB over 16 rounds of %d MiB", (now-base)>>20, perRound>>20)
	}
}

// TestHasPointers: hasPointers, which keeps a type with pointers out of
// the parts outside the heap, knows every kind of type.
func TestHasPointers(t *testing.T) {
	type flat struct {
		a uint32
		b [3]float64
		c struct{ d bool }
	}
	type hidden struct {
		a uint32
		b [1]struct{ s string }
	}
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[uint64](), false}, {reflect.TypeFor[flat](), false}, {reflect.TypeFor[[0]*int](), false},
		{reflect.TypeFor[string](), true}, {reflect.TypeFor[hidden](), true}, {reflect.TypeFor[[]byte](), true},
		{reflect.TypeFor[map[int]int](), true}, {reflect.TypeFor[*int](), true}, {reflect.TypeFor[[2]any](), true},
		{reflect.TypeFor[func()](), true}, {reflect.TypeFor[chan int](), true},
	} {
		if got := hasPointers(c.t); got != c.want {
			t.Errorf("hasPointers(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a part of strings was made outside the heap")
		}
	}()
	NewPart[string](MinMapped)
}

// TestFreeNow: a Chunked freed by hand gives its chunks back at once,
// and their cleanups, stopped, do not unmap what is mapped there later.
func TestFreeNow(t *testing.T) {
	if _, ok := Resident(); !ok {
		t.Skip("no resident size to read")
	}
	const n = 32 << 20 / 8 // values of 32 MiB
	fill := func(c *Chunked[uint64]) {
		for i := range n {
			c.Add(uint64(i))
		}
	}
	var c Chunked[uint64]
	fill(&c)
	before, _ := Resident()
	c.Free()
	if now, _ := Resident(); before-now < 24<<20 {
		t.Errorf("Free gave back %d MiB of 32", (before-now)>>20)
	}
	var later Chunked[uint64]
	fill(&later)
	for range 4 { // the cleanups of c's handles, were they not stopped, run now
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	for i := 0; i < n; i += 999 {
		if later.Get(i) != uint64(i) {
			t.Fatalf("value %d comes back as %d", i, later.Get(i))
		}
	}
}

// TestChunkedReads: Get, At and AppendTo give back what Add and Set put,
// in the first chunk (on the heap) and past it, at every length around
// a chunk's end.
func TestChunkedReads(t *testing.T) {
	for _, n := range []int{0, 1, ChunkLen - 1, ChunkLen, ChunkLen + 1, 3*ChunkLen + 7} {
		var c Chunked[[2]uint32]
		var want [][2]uint32
		for i := range n {
			v := [2]uint32{uint32(i), uint32(n)}
			c.Add(v)
			want = append(want, v)
		}
		if n > 0 {
			c.Set(n-1, [2]uint32{7, 7})
			want[n-1] = [2]uint32{7, 7}
			c.At(n / 2)[1] = 9
			want[n/2][1] = 9
		}
		if c.Len() != n {
			t.Fatalf("%d values: Len %d", n, c.Len())
		}
		for i := range n {
			if c.Get(i) != want[i] || *c.At(i) != want[i] {
				t.Fatalf("%d values: value %d is %v / %v; want %v", n, i, c.Get(i), *c.At(i), want[i])
			}
		}
		if got := c.AppendTo([][2]uint32{{1, 1}}); !slices.Equal(got, append([][2]uint32{{1, 1}}, want...)) {
			t.Fatalf("%d values: AppendTo gives %d values, not the %d added after the one there", n, len(got), n)
		}
	}
}

// TestPopulateKeepsBytes: Populate maps pages without changing a byte,
// on the heap and outside it, at any alignment.
func TestPopulateKeepsBytes(t *testing.T) {
	heap := make([]byte, 3*4096+123)
	mapped := Map(5 * 4096)
	defer Unmap(mapped)
	for _, b := range [][]byte{heap, mapped} {
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		for _, r := range [][2]int{{0, len(b)}, {1, 2}, {4095, 4097}, {100, len(b) - 100}, {5, 5}} {
			Populate(b[r[0]:r[1]])
		}
		for i := range b {
			if b[i] != byte(i*7+1) {
				t.Fatalf("byte %d changed to %d", i, b[i])
			}
		}
	}
}
