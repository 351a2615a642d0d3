package run

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"agentv-review/plugin/internal/offheap"
)

// The manifest pipeline: one goroutine reads the file into blocks of whole
// lines, parseWorkers goroutines parse blocks into cases, and the caller
// merges blocks in file order (pipeline.ordered). Memory stays bounded: at
// most maxBlocks buffers of blockSize exist, each reused once its block is
// parsed. A line longer than a block gets a buffer of its own outside the
// heap (offheap.Map), given back as soon as its block is parsed, so that the
// collector neither keeps it nor lets it double its goal; such buffers
// hold at most longBudget bytes at a time.

const (
	blockSize  = 256 << 10 // bytes read at a time
	maxBlocks  = 8         // buffers of blockSize in flight
	longBudget = 16 << 20  // bytes in flight in long lines' buffers (one line may take more, alone)
)

var parseWorkers = max(1, min(runtime.GOMAXPROCS(0), 4))

// block is a run of whole lines of the manifest and, once done is closed,
// what parsing them gave.
type block struct {
	buf   []byte // lines; only the file's last line may lack its newline
	off   int64  // file offset of buf[0]
	first bool   // buf starts at line 1 (whose byte order mark is dropped)
	long  int    // buf is a long line's (see growLong), holding this many of the longBudget tokens
	done  chan struct{}

	readErr error // reading failed here; buf is empty

	rows       []parsedRow // in line order; Loc.Line and Loc.Offset of their cases are relative to the block until the merge adds its position
	cases      []Case      // the cases of rows, under parseConfig.recycle (else they are in the worker's arena)
	lines      int         // lines in buf
	err        *rowError   // parsing stopped at this row
	errLine    int         // its line number within the block, 1-based
	errNewline bool        // it ended with a newline
}

type pipeline struct {
	ordered <-chan *block
	quit    chan struct{}
	wg      sync.WaitGroup

	pool   chan []byte   // the buffers of blockSize not in flight
	tokens chan struct{} // longBudget in blockSize units, less what long lines' buffers hold
	spares chan spare    // rows and cases of merged blocks, under parseConfig.recycle
}

// spare is the room of a merged block's rows and cases, for a worker to
// parse another block into.
type spare struct {
	rows  []parsedRow
	cases []Case
}

// parseConfig is how the workers parse rows: with outline, cases keep
// only the outlines of their graders and samples (Options.Outline); rows
// hash their eval_path and folder with seed; with tallied (Read(keep)),
// every row is also hashed for the tally; with keep set, only the rows
// whose test id keep accepts make a Case.
type parseConfig struct {
	outline bool
	seed    maphash.Seed
	keep    func(testID string) bool
	// keptOnly checks only the rows keep keeps whole (Options.CheckKeptOnly).
	keptOnly bool
	tallied  bool
	tally    tallySeeds
	// recycle: the merge is done with a block's rows and cases once it
	// has merged them (a compact read copies what it keeps), so it hands
	// their room back to the workers (pipeline.recycle) instead of the
	// collector, which would have workers allocate as much again.
	recycle bool
	// spans records the spans of the rows (see memberValues.at): set for a
	// read that keeps every case whole in Cases (no Options.Outline, no
	// keep, no Options.Compact), which Bases reads again (see RowLoc.Sum).
	// status, list and show read otherwise.
	spans bool
}

// startPipeline starts reading src, parsing rows as cfg says.
func startPipeline(src io.Reader, cfg parseConfig) *pipeline {
	ordered := make(chan *block, maxBlocks)
	work := make(chan *block, maxBlocks)
	p := &pipeline{
		ordered: ordered, quit: make(chan struct{}),
		pool: make(chan []byte, maxBlocks), tokens: make(chan struct{}, longBudget/blockSize),
		spares: make(chan spare, maxBlocks),
	}
	for range cap(p.tokens) {
		p.tokens <- struct{}{}
	}
	p.wg.Add(1 + parseWorkers)
	go func() {
		defer p.wg.Done()
		defer close(ordered)
		defer close(work)
		p.read(src, work, ordered)
	}()
	for range parseWorkers {
		go func() {
			defer p.wg.Done()
			sk := skimmer{in: interner{}, views: true, spans: spanRecorder{on: cfg.spans}}
			a := arena{cfg: cfg}
			if cfg.outline {
				a.outlines = &outlines{graderSets: map[string][]GraderSummary{}, sampleSets: map[string][]SampleSummary{}}
			}
			rowsHint := 0 // rows of the last block, and some: blocks are alike
			for b := range work {
				var sp spare
				select {
				case sp = <-p.spares:
				default:
					sp.rows = make([]parsedRow, 0, rowsHint)
					if cfg.recycle {
						sp.cases = make([]Case, 0, rowsHint)
					}
				}
				b.rows, b.cases = sp.rows[:0], sp.cases[:0]
				a.block = nil
				if cfg.recycle {
					a.block = &b.cases
				}
				b.parse(&sk, &a)
				if b.long == 0 {
					rowsHint = len(b.rows) + len(b.rows)/4
				}
				p.free(b.buf, b.long)
				b.buf = nil
				close(b.done)
			}
		}()
	}
	return p
}

// stop ends the pipeline early (or after the last block) and waits for
// its goroutines.
func (p *pipeline) stop() {
	close(p.quit)
	p.wg.Wait()
}

// recycle hands the rows and cases of b, which the merge is done with,
// to the workers (parseConfig.recycle); b must not be used after.
func (p *pipeline) recycle(b *block) {
	select {
	case p.spares <- spare{b.rows, b.cases}:
	default: // as many are waiting as blocks can be in flight
	}
	b.rows, b.cases = nil, nil
}

// free gives back a block's buffer: to the pool, or, when it is a long
// line's holding tokens, to the system.
func (p *pipeline) free(buf []byte, tokens int) {
	if tokens == 0 {
		p.pool <- buf[:0] // never blocks: the pool holds every buffer of blockSize
		return
	}
	offheap.Unmap(buf[:cap(buf)])
	p.give(tokens)
}

// give puts back tokens of longBudget.
func (p *pipeline) give(tokens int) {
	for range tokens {
		p.tokens <- struct{}{}
	}
}

// read cuts src into blocks and sends each to the workers and, in order,
// to the merge.
func (p *pipeline) read(src io.Reader, work, ordered chan<- *block) {
	made := 0
	carry := make([]byte, 0, blockSize) // the unfinished line at the end of the previous read
	var off int64
	send := func(b *block) bool {
		select {
		case ordered <- b:
		case <-p.quit:
			if b.readErr == nil {
				p.free(b.buf, b.long)
			}
			return false
		}
		if b.readErr != nil {
			close(b.done)
			return false
		}
		work <- b // never blocks: work holds as many blocks as ordered
		return true
	}
	for first := true; ; first = false {
		var buf []byte
		select {
		case buf = <-p.pool:
		default:
			if made < maxBlocks {
				buf = make([]byte, 0, blockSize)
				offheap.Populate(buf[:blockSize]) // all of it is read into, many times
				made++
			} else {
				select {
				case buf = <-p.pool:
				case <-p.quit:
					return
				}
			}
		}
		buf = append(buf, carry...)
		eof := false
		cut := -1
		long := 0
		for cut < 0 && !eof {
			if len(buf) == cap(buf) {
				var ok bool
				if buf, long, ok = p.growLong(buf, long); !ok {
					return
				}
			}
			into := buf[len(buf):min(cap(buf), len(buf)+blockSize)]
			if long > 0 {
				offheap.Populate(into) // a long line's buffer is mapped as it fills (see growLong)
			}
			n, err := io.ReadFull(src, into)
			read := len(buf) // the bytes before hold no newline
			buf = buf[:len(buf)+n]
			switch {
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
				eof = true
			case err != nil:
				p.free(buf, long)
				send(&block{readErr: err, done: make(chan struct{})})
				return
			}
			if cut = lastNewline(buf[read:]); cut >= 0 {
				cut += read
			}
		}
		if eof {
			cut = len(buf)
		} else {
			cut++
		}
		carry = append(carry[:0], buf[cut:]...) // at most one read: never grows
		b := &block{buf: buf[:cut], off: off, first: first, long: long, done: make(chan struct{})}
		off += int64(cut)
		if !send(b) || eof {
			return
		}
	}
}

// lastNewlineWords is bytes.LastIndexByte(b, '\n'), eight bytes at a
// time (the library's is a byte at a time; a read holds a row's worth of
// bytes after its last newline, and a read inside a row of megabytes holds
// none): lastNewline's portable path.
func lastNewlineWords(b []byte) int {
	const ones = 0x0101010101010101
	j := len(b)
	for ; j >= 8; j -= 8 {
		if z := zeroBytes(binary.LittleEndian.Uint64(b[j-8:]) ^ ones*'\n'); z != 0 {
			return j - 1 - bits.LeadingZeros64(z)/8
		}
	}
	return bytes.LastIndexByte(b[:j], '\n')
}

// growLong makes room in buf, full and without a newline, for the rest of
// a line longer than a block: a buffer outside the heap of twice its size
// (the pages past the line's end are never touched, so never resident:
// the pages are mapped, by Populate, only as they are filled),
// holding that many tokens of longBudget (all of them, at most), which it
// waits for. It gives back buf (to the pool, or as free does) and tells
// whether the pipeline goes on.
func (p *pipeline) growLong(buf []byte, tokens int) (grown []byte, held int, ok bool) {
	grown = offheap.Map(2 * cap(buf))[:len(buf)]
	offheap.Populate(grown)
	copy(grown, buf)
	p.free(buf, tokens)
	for want := min(cap(grown)/blockSize, cap(p.tokens)); held < want; held++ {
		select {
		case <-p.tokens:
		case <-p.quit:
			offheap.Unmap(grown[:cap(grown)])
			p.give(held)
			return nil, 0, false
		}
	}
	return grown, held, true
}

// parse parses the block's lines, stopping at the first bad row.
func (b *block) parse(sk *skimmer, a *arena) {
	rest := b.buf
	var off int
	for len(rest) > 0 {
		b.lines++
		raw := rest
		end := newlineIndex(rest)
		newline := end >= 0
		if newline {
			raw, rest = rest[:end], rest[end+1:]
		} else {
			rest = nil
		}
		lineOff := off
		off += len(raw) + 1
		line := rowBytes(raw, b.first && b.lines == 1)
		if len(line) == 0 {
			continue
		}
		// A last line without its newline may be cut short: it is checked
		// whole, to be skipped as such (see readManifest).
		row, err := parseRow(line, sk, a, a.cfg.keptOnly && newline)
		if err == nil && len(raw) > math.MaxInt32 {
			err = &rowError{msg: "line longer than 2 GiB", hint: rowHint}
		}
		if err != nil {
			b.err, b.errLine, b.errNewline = err, b.lines, newline
			return
		}
		if row.c != nil {
			row.c.Loc = RowLoc{Offset: int64(lineOff), Length: int32(len(raw)), Line: int32(b.lines)}
			if !a.cfg.outline { // an outline read ranks; only a full one is read again by Bases
				row.c.Loc.Sum = rowSum(raw)
			}
		}
		row.line = int32(b.lines)
		b.rows = append(b.rows, row)
	}
}

// rowBytes is the row a manifest line holds: the line without surrounding
// spaces, and, on the file's first line, without a byte order mark.
func rowBytes(raw []byte, first bool) []byte {
	line := bytes.TrimSpace(raw)
	if first {
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line
}
