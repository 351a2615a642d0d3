package run

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestIDIndex holds idIndex to a map of slices: every id's slots, in
// order, for sizes around the table's growth, with many repeated ids
// (long probe runs and chains), the empty id and ids not present.
func TestIDIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 5, 6, 7, 100, 1000, 5000} {
		ids := make([]string, n)
		want := map[string][]int32{}
		for i := range ids {
			ids[i] = strconv.Itoa(rng.IntN(max(1, n/3)))
			if i%7 == 0 {
				ids[i] = ""
			}
			want[ids[i]] = append(want[ids[i]], int32(i))
		}
		idOf := func(i int) string { return ids[i] }
		x := newIDIndex(n, idOf)
		for _, id := range append(slices.Collect(maps.Keys(want)), "absent", "-1") {
			var got []int32
			for i := x.first(id, idOf); i >= 0; i = x.next[i] {
				got = append(got, i)
			}
			if !slices.Equal(got, want[id]) {
				t.Fatalf("n=%d, id %q: slots %v, want %v", n, id, got, want[id])
			}
		}
	}
}
