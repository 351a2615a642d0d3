package run

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"agentv-review/plugin/internal/offheap"
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
		if got := tab.values.Get(int(at[k])); math.Float64bits(got) != math.Float64bits(s) {
			t.Fatalf("score %d: %v comes back as %v", k, s, got)
		}
	}
	if len(tab.of) != maxShared || tab.values.Len() > maxShared+1000+3 {
		t.Errorf("%d values by map, %d in all", len(tab.of), tab.values.Len())
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

// TestIDStoreIndexes: every id interned is found again (intern, lookup)
// with its index, and no other is, before and after the table drops its
// tags (wideAt, made small) and as it grows; ids of one length that differ
// in one byte make most probes pass over ids their tags may match.
func TestIDStoreIndexes(t *testing.T) {
	for _, wideAt := range []int{0, 1, 300} {
		s := idStore{wideAt: wideAt}
		id := func(i int) string { return fmt.Sprintf("explain-refund-%06d", i) }
		const n = 5000
		for i := range n {
			for j := range 2 { // a new id, then one interned before
				k := i
				if j == 1 {
					k = i / 2
				}
				got, fresh, err := s.intern(id(k))
				if err != nil || got != uint32(k) || fresh != (j == 0) {
					t.Fatalf("wideAt %d: intern %q = %d, %v, %v; want %d", wideAt, id(k), got, fresh, err, k)
				}
			}
		}
		if wide := wideAt > 0; s.wide != wide {
			t.Errorf("wideAt %d: wide %v after %d ids", wideAt, s.wide, n)
		}
		for i := range n {
			if got, ok := s.lookup(id(i)); !ok || got != uint32(i) {
				t.Fatalf("wideAt %d: lookup %q = %d, %v", wideAt, id(i), got, ok)
			}
		}
		for _, other := range []string{id(n), "", "explain-refund-00000", "x"} {
			if got, ok := s.lookup(other); ok {
				t.Errorf("wideAt %d: lookup %q = %d, an id never interned", wideAt, other, got)
			}
		}
	}
}

// TestPackCases: packed cases come back as they went in, whatever the
// widths of their fields (none to 32 bits), across words and chunks.
func TestPackCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, top := range []compactCase{{0, 0, 0}, {1, 0, 1}, {1<<20 - 1, 4095, 1<<17 - 1}, {math.MaxUint32, math.MaxUint32, math.MaxUint32}, {5, math.MaxUint32, 0}} {
		var cs offheap.Chunked[compactCase]
		var want []compactCase
		pick := func(top uint32) uint32 { // up to top, top included
			if top == math.MaxUint32 {
				return rng.Uint32()
			}
			return rng.Uint32N(top + 1)
		}
		for range 40000 {
			c := compactCase{pick(top.id), pick(top.shape), pick(top.score)}
			cs.Add(c)
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
