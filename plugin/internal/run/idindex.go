package run

import "hash/maphash"

// idIndex finds the slots (indexes into Run.Cases, or positions under
// Options.Compact) of a test id in about 12 bytes a slot, where a map by
// test id cost some 40: heads is an open-addressing table, by a hash of
// the id, of 1 + the first slot of each id (0: empty); next[i] is the next
// slot with slot i's id (-1 at the end).
type idIndex struct {
	seed  maphash.Seed
	heads []int32
	next  []int32
}

// newIDIndex indexes n slots whose test ids idOf gives.
func newIDIndex(n int, idOf func(slot int) string) idIndex {
	size := 1
	for size < n+n/2+1 { // at most two thirds full
		size <<= 1
	}
	x := idIndex{seed: maphash.MakeSeed(), heads: make([]int32, size), next: make([]int32, n)}
	for i := n - 1; i >= 0; i-- {
		h := x.head(idOf(i), idOf)
		x.next[i] = x.heads[h] - 1
		x.heads[h] = int32(i + 1)
	}
	return x
}

// head is where id is in heads: its entry, or the empty one it would take.
func (x *idIndex) head(id string, idOf func(slot int) string) int {
	mask := len(x.heads) - 1
	for h := int(maphash.String(x.seed, id)) & mask; ; h = (h + 1) & mask {
		if s := x.heads[h]; s == 0 || idOf(int(s-1)) == id {
			return h
		}
	}
}

// first is the first slot with id, -1 when there is none.
func (x *idIndex) first(id string, idOf func(slot int) string) int32 {
	if len(x.heads) == 0 {
		return -1
	}
	return x.heads[x.head(id, idOf)] - 1
}
