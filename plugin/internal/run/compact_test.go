package run

import (
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/caseid"
)

// TestScoreTable: every score comes back as it went in, bit for bit (0
// and -0 apart), past maxShared distinct values too, where the table
// stops sharing new values.
func TestScoreTable(t *testing.T) {
	var tab scoreTable
	var in []float64
	var at []uint32
	for i := range maxShared + 1000 {
		for _, s := range []float64{float64(i) / (maxShared + 1000), math.Copysign(0, -1), 0, 0.5} {
			in, at = append(in, s), append(at, tab.index(s))
		}
	}
	for k, s := range in {
		if got := tab.values.get(int(at[k])); math.Float64bits(got) != math.Float64bits(s) {
			t.Fatalf("score %d: %v comes back as %v", k, s, got)
		}
	}
	if len(tab.of) != maxShared || tab.values.len() > maxShared+1000+3 {
		t.Errorf("%d values by map, %d in all", len(tab.of), tab.values.len())
	}
}

// TestIDStoreLongIDs: ids longer than a chunk and ids that end a chunk
// come back whole.
func TestIDStoreLongIDs(t *testing.T) {
	var s idStore
	ids := []string{"", "a", string(make([]byte, storeChunk-5)), "b", string(make([]byte, 2*storeChunk)), "c", "d"}
	for i, id := range ids {
		ids[i] = id + string(rune('A'+i)) // all distinct
		if n, fresh, err := s.intern(ids[i]); err != nil || !fresh || n != uint32(i) {
			t.Fatalf("intern %d: %d %v %v", i, n, fresh, err)
		}
	}
	for i, id := range ids {
		if n, fresh, _ := s.intern(id); fresh || n != uint32(i) || s.get(n) != id {
			t.Errorf("id %d (%d bytes) comes back as %d bytes", i, len(id), len(s.get(n)))
		}
	}
}

// TestChunksGiveBack: chunks outside the heap go back when their chunked
// does (a Run's cleanup), so reading run after run does not grow.
func TestChunksGiveBack(t *testing.T) {
	if _, err := os.ReadFile("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm to read the resident size from")
	}
	const perRound = 32 << 20 // bytes touched a round
	base := residentPages()
	for round := range 16 {
		var c chunked[uint64]
		for i := range perRound / 8 {
			c.add(uint64(i))
		}
		if c.get(perRound/8-1) != perRound/8-1 {
			t.Fatalf("round %d: the last value comes back wrong", round)
		}
		runtime.GC()
	}
	for range 4 { // cleanups run after the cycle that finds their handles gone
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if grown := (residentPages() - base) * os.Getpagesize(); grown > 4*perRound {
		t.Errorf("resident size grew %d MiB over 16 rounds of %d MiB", grown>>20, perRound>>20)
	}
}

// residentPages is the process's resident size in pages (/proc/self/statm).
func residentPages() int {
	statm, _ := os.ReadFile("/proc/self/statm")
	f := strings.Fields(string(statm))
	n, _ := strconv.Atoi(f[1])
	return n
}

// TestHasPointers: hasPointers, which keeps a type with pointers out of
// the chunks outside the heap, knows every kind of type.
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
		{reflect.TypeFor[uint64](), false}, {reflect.TypeFor[compactCase](), false}, {reflect.TypeFor[caseid.Shortest](), false},
		{reflect.TypeFor[flat](), false}, {reflect.TypeFor[[0]*int](), false},
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
			t.Error("a chunk of strings was made outside the heap")
		}
	}()
	newPart[string](minMapped)
}

// TestPackCases: packed cases come back as they went in, whatever the
// widths of their fields (none to 32 bits), across words and chunks.
func TestPackCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, top := range []compactCase{{0, 0, 0}, {1, 0, 1}, {1<<20 - 1, 4095, 1<<17 - 1}, {math.MaxUint32, math.MaxUint32, math.MaxUint32}, {5, math.MaxUint32, 0}} {
		var cs chunked[compactCase]
		var want []compactCase
		pick := func(top uint32) uint32 { // up to top, top included
			if top == math.MaxUint32 {
				return rng.Uint32()
			}
			return rng.Uint32N(top + 1)
		}
		for range 40000 {
			c := compactCase{pick(top.id), pick(top.shape), pick(top.score)}
			cs.add(c)
			want = append(want, c)
		}
		p := packCases(&cs)
		if p.n != len(want) {
			t.Fatalf("%+v: %d cases; want %d", top, p.n, len(want))
		}
		for i, c := range want {
			if got := p.get(i); got != c {
				t.Fatalf("%+v: case %d is %+v; want %+v", top, i, got, c)
			}
		}
	}
}

// TestFreeNow: a chunked freed by hand gives its chunks back at once,
// and their cleanups, stopped, do not unmap what is mapped there later.
func TestFreeNow(t *testing.T) {
	if _, err := os.ReadFile("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm to read the resident size from")
	}
	const n = 32 << 20 / 8 // values of 32 MiB
	fill := func(c *chunked[uint64]) {
		for i := range n {
			c.add(uint64(i))
		}
	}
	var c chunked[uint64]
	fill(&c)
	before := residentPages()
	c.free()
	if freed := (before - residentPages()) * os.Getpagesize(); freed < 24<<20 {
		t.Errorf("free gave back %d MiB of 32", freed>>20)
	}
	var later chunked[uint64]
	fill(&later)
	for range 4 { // the cleanups of c's handles, were they not stopped, run now
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	for i := 0; i < n; i += 999 {
		if later.get(i) != uint64(i) {
			t.Fatalf("value %d comes back as %d", i, later.get(i))
		}
	}
}
