// Package offheap holds values of types without pointers outside the Go
// heap: many of them (a million cases' identities, a feedback file's
// entries) then cost the collector nothing to scan and do not raise its
// goal, which would make the heap grow by as much again.
//
// Its memory is also touched cheaply. A page touched the first time
// costs a fault; on the virtual machines this tool is measured on, about
// 12 µs. Asking the kernel to map the pages at once (Populate) costs 0.7
// µs a page, and the first touch after still about 6 µs (the
// hypervisor's own fault), so it halves the cost; only memory not taken
// anew costs nothing. A part filled from start to end (Chunked, as it
// fills) is mapped that way.
package offheap

import (
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// MinMapped is the smallest part NewPart maps outside the heap: a
// smaller one is on the heap, where a mapping's page would be mostly
// waste.
const MinMapped = 16 << 10

// Part is the handle of n values of a type without pointers: outside the
// heap from MinMapped bytes on, given back when the handle is unreachable
// (or by Free), so whoever touches S keeps the handle alive until done
// (runtime.KeepAlive).
type Part[T any] struct {
	S       []T
	mapped  []byte          // S's bytes when outside the heap
	cleanup runtime.Cleanup // unmaps them when the handle goes
}

// NewPart is a part of n zeroed values. Outside the heap its pages are
// mapped as they are touched, or at once by Populate.
func NewPart[T any](n int) *Part[T] {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < MinMapped {
		return &Part[T]{S: make([]T, n)}
	}
	if hasPointers(reflect.TypeFor[T]()) { // the collector does not look outside the heap
		panic("offheap: values with pointers cannot live outside the heap")
	}
	b := Map(size)
	p := &Part[T]{S: unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), mapped: b}
	p.cleanup = runtime.AddCleanup(p, Unmap, b)
	return p
}

// Populate maps the pages of values [lo, hi) at once (see the package
// comment): for values about to be written, all of them.
func (p *Part[T]) Populate(lo, hi int) {
	if p.mapped != nil {
		Populate(p.S[lo:hi])
	}
}

// Free gives back a part outside the heap now, before its handle goes
// (nothing may touch it after), and does nothing for one on the heap.
func (p *Part[T]) Free() {
	if p == nil || p.mapped == nil {
		return
	}
	p.cleanup.Stop() // it would unmap whatever is mapped there by then
	Unmap(p.mapped)
	p.S, p.mapped = nil, nil
}

// hasPointers tells whether a value of type t holds a pointer.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Slice, reflect.String, reflect.Interface, reflect.Chan, reflect.Func:
		return true
	}
	return false
}

// Chunked is an append-only array of a type without pointers, in chunks
// of ChunkLen elements: the first grows on the heap up to MinMapped
// bytes (a small array stays small and maps nothing), then moves to a
// part outside it (NewPart), as the others are, so growing copies at
// most MinMapped bytes; a mapped chunk's pages are mapped a step ahead
// of the values (Populate). Get and Set keep a chunk's
// handle alive while they touch it; a pointer At returns is valid while
// the Chunked is reachable.
type Chunked[T any] struct {
	chunks []*Part[T]
	n      int
}

const (
	chunkShift = 14
	// ChunkLen is how many values a chunk holds.
	ChunkLen = 1 << chunkShift
)

// Add appends v.
func (c *Chunked[T]) Add(v T) {
	i := c.n & (ChunkLen - 1)
	switch {
	case c.n == 0:
		c.chunks = append(c.chunks, &Part[T]{})
	case c.n < ChunkLen: // the first chunk grows on the heap, then moves out whole
		if s := c.chunks[0].S; len(s) == cap(s) && c.chunks[0].mapped == nil && (len(s)+1)*int(unsafe.Sizeof(v)) > MinMapped {
			p := NewPart[T](ChunkLen)
			p.S = p.S[:copy(p.S, s)]
			c.chunks[0] = p
		}
	case i == 0:
		c.chunks = append(c.chunks, NewPart[T](ChunkLen))
	}
	last := c.chunks[len(c.chunks)-1]
	if i%populateStep == 0 { // the next values' pages, as the chunk fills
		last.Populate(i, i+populateStep)
	}
	if c.n < ChunkLen {
		last.S = append(last.S, v)
	} else {
		last.S[i] = v
	}
	c.n++
}

// populateStep is how many values of a chunk Add maps at once: pages
// for a sixteenth of a chunk, so that at most that is mapped unused.
const populateStep = ChunkLen / 16

// Get is value i.
func (c *Chunked[T]) Get(i int) T {
	ch := c.chunks[i>>chunkShift]
	v := ch.S[i&(ChunkLen-1)]
	runtime.KeepAlive(ch)
	return v
}

// Set makes value i v.
func (c *Chunked[T]) Set(i int, v T) {
	ch := c.chunks[i>>chunkShift]
	ch.S[i&(ChunkLen-1)] = v
	runtime.KeepAlive(ch)
}

// At is where value i is, while c is reachable.
func (c *Chunked[T]) At(i int) *T { return &c.chunks[i>>chunkShift].S[i&(ChunkLen-1)] }

// Len is the number of values added.
func (c *Chunked[T]) Len() int { return c.n }

// AppendTo appends c's values to s.
func (c *Chunked[T]) AppendTo(s []T) []T {
	left := c.n
	for _, ch := range c.chunks {
		n := min(len(ch.S), left)
		s, left = append(s, ch.S[:n]...), left-n
	}
	return s
}

// Free gives back c's chunks now (Part.Free) and empties it.
func (c *Chunked[T]) Free() {
	for _, ch := range c.chunks {
		ch.Free()
	}
	*c = Chunked[T]{}
}

// Resident is the process's resident size in bytes, where the system
// tells it (/proc/self/statm): tests check by it that memory goes back.
func Resident() (bytes int, ok bool) {
	statm, err := os.ReadFile("/proc/self/statm")
	f := strings.Fields(string(statm))
	if err != nil || len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n * os.Getpagesize(), err == nil
}
