package feedback

import (
	"io"
	"reflect"
	"sync"
	"sync/atomic"
)

// split decodes a file's per_case in segments on several cores. Each
// segment starts at an offset guessed to begin an entry (guessStarts) and
// is decoded by its own decoder, as the entries of per_case, to the end of
// per_case or to the start of a later segment. A guess is only a guess:
// a segment counts once a decoder that reads the file from its start (the
// main one, or a segment that counts) reaches the segment's start exactly
// between two entries, so the entries are those the sequential decoder
// reads, in the same order, and a segment's rejection is the document's.
// A wrong guess costs the work of its segment, never the result.
type split struct {
	ra   io.ReaderAt
	size int64
	arr  *node // per_case's schema
	segs []*segment
	// chain lists the parts whose entries make up per_case after those of
	// the main decoder (part 0), in file order: part j+1 is segs[j].
	chain []int
	wg    sync.WaitGroup
}

type segment struct {
	start  int64 // offset of the entry it starts with
	cancel atomic.Bool
	done   chan struct{}
	// Set when done: ok tells whether its entries were valid; next is the
	// segment at whose start it stopped, -1 when it read per_case's end,
	// then end is the offset just past per_case's ']'.
	ok   bool
	next int
	end  int64
}

// minSplit is the smallest file decoded in segments.
const minSplit = 1 << 20

// newSplit starts decoding the segments of ra (size bytes) that begin at
// starts, increasing offsets, as entries of per_case (schema arr); each
// is decodeEach's. Close must be called once the main decoder is done.
func newSplit(ra io.ReaderAt, size int64, arr *node, starts []int64, each func(part int, e *draft)) *split {
	sp := &split{ra: ra, size: size, arr: arr}
	for _, at := range starts {
		sp.segs = append(sp.segs, &segment{start: at, done: make(chan struct{}), next: -1})
	}
	for j, seg := range sp.segs {
		sp.wg.Go(func() {
			defer close(seg.done)
			d := newDecoder(io.NewSectionReader(ra, seg.start, size-seg.start), each)
			d.off, d.split, d.part, d.next = seg.start, sp, j+1, j+1
			if seg.ok = d.elements(d.memo(arr), reflect.Value{}, slotEntry, false); seg.ok && seg.next < 0 {
				seg.end = d.offset()
			}
		})
	}
	return sp
}

// reached is called by decoder d at the start of each entry of per_case.
// done tells that d is to stop reading entries there: a segment stops at
// the start of a later one; the main decoder hands the rest of per_case to
// the segment starting there (and those it leads to), and goes on past
// per_case's end; ok is then whether those entries were valid.
func (sp *split) reached(d *decoder) (done, ok bool) {
	if d.capDepth > 0 {
		return false, false // inside a captured value: read on
	}
	if d.part > 0 && sp.segs[d.part-1].cancel.Load() {
		return true, false // its result is not used
	}
	pos := d.offset()
	for d.next < len(sp.segs) && sp.segs[d.next].start < pos {
		d.next++ // a guess that was not an entry's start
	}
	if d.next == len(sp.segs) || sp.segs[d.next].start != pos {
		return false, false
	}
	if d.part > 0 {
		sp.segs[d.part-1].next = d.next
		return true, true
	}
	for m := d.next; ; {
		seg := sp.segs[m]
		<-seg.done
		sp.chain = append(sp.chain, m+1)
		if !seg.ok {
			return true, false
		}
		if seg.next < 0 {
			d.r, d.pos, d.end, d.off, d.readErr = io.NewSectionReader(sp.ra, seg.end, sp.size-seg.end), 0, 0, seg.end, nil
			return true, true
		}
		m = seg.next
	}
}

// Close stops the segments that are not used and waits for all.
func (sp *split) Close() {
	for _, seg := range sp.segs {
		seg.cancel.Store(true)
	}
	sp.wg.Wait()
}

// guessStarts guesses where parts-1 entries of per_case start, to split
// ra's size bytes in parts of about equal size. A guess is a '{' after a
// ',' that ends a line: no string holds a line break, so such a '{' is an
// element of some array; of those in a window, the least indented is most
// likely an entry of per_case. A file written without line breaks gets
// no guesses.
func guessStarts(ra io.ReaderAt, size int64, parts int) []int64 {
	var starts []int64
	window := make([]byte, 64<<10)
	for j := 1; j < parts; j++ {
		at := size * int64(j) / int64(parts)
		n, _ := ra.ReadAt(window, at)
		best, indent := int64(-1), len(window)
		b := window[:n]
		for i := 0; i < len(b); i++ {
			if b[i] != ',' {
				continue
			}
			k := i + 1
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r') {
				k++
			}
			if k == len(b) || b[k] != '\n' {
				continue
			}
			line := k + 1
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n') {
				if b[k] == '\n' {
					line = k + 1
				}
				k++
			}
			if k < len(b) && b[k] == '{' && k-line < indent {
				best, indent = at+int64(k), k-line
			}
			i = k - 1
		}
		if best >= 0 && (len(starts) == 0 || best > starts[len(starts)-1]) {
			starts = append(starts, best)
		}
	}
	return starts
}
