package app

import (
	"errors"
	"testing"
)

// TestInOrder: results come in chunk order, each chunk's once; the first
// error in chunk order (of work or of use) stops it and is returned.
func TestInOrder(t *testing.T) {
	n := 5*inOrderChunk + 3
	for _, failAt := range []int{-1, 0, 2 * inOrderChunk, n - 1} {
		for _, inUse := range []bool{false, true} {
			boom := errors.New("boom")
			next := 0
			err := inOrder(n, func(lo, hi int, r *[]int) error {
				*r = (*r)[:0]
				for i := lo; i < hi; i++ {
					if i == failAt && !inUse {
						return boom
					}
					*r = append(*r, i)
				}
				return nil
			}, func(r *[]int) error {
				for _, i := range *r {
					if i != next {
						t.Fatalf("got item %d, want %d", i, next)
					}
					if i == failAt && inUse {
						return boom
					}
					next++
				}
				return nil
			})
			switch {
			case failAt < 0 && (err != nil || next != n):
				t.Errorf("err %v after %d of %d items", err, next, n)
			case failAt >= 0 && (!errors.Is(err, boom) || next > failAt || next < failAt/inOrderChunk*inOrderChunk):
				t.Errorf("fail at %d (in use: %v): err %v after %d items", failAt, inUse, err, next)
			}
		}
	}
	if err := inOrder(0, func(int, int, *int) error { return errors.New("called") }, func(*int) error { return errors.New("used") }); err != nil {
		t.Errorf("no items: %v", err)
	}
}
