package run

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTallyBuckets: buckets past minMapped (outside the heap) group their
// records as a map of the keys does: the cases' first lines, the winning
// rows' outcomes, the duplicates and the first of them.
func TestTallyBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tl tally
	defer tl.free()
	type key struct {
		h   uint64
		key uint32
	}
	first, last := map[key]int{}, map[key]uint32{}
	dupes, firstDupe := 0, 0
	for line := 1; line <= 300000; line++ {
		k := key{uint64(rng.IntN(3))<<56 | rng.Uint64N(50000), rng.Uint32N(4) << 2} // three buckets, many repeats
		o := rng.Uint32N(3)
		if _, ok := first[k]; ok {
			if dupes == 0 {
				firstDupe = line
			}
			dupes++
		} else {
			first[k] = line
		}
		last[k] = o
		tl.add(k.h, k.key|o, line)
	}
	tl.finish()
	var firsts []uint32
	var counts [3]int
	for k, line := range first {
		firsts = append(firsts, uint32(line))
		counts[last[k]]++
	}
	slices.Sort(firsts)
	if !slices.Equal(tl.firsts, firsts) || tl.counts != counts || tl.dupes != dupes || tl.first != firstDupe {
		t.Errorf("%d cases %v, %d duplicates from line %d; want %d cases %v, %d from line %d",
			len(tl.firsts), tl.counts, tl.dupes, tl.first, len(firsts), counts, dupes, firstDupe)
	}
}
