package run

import (
	"bufio"
	"cmp"
	"errors"
	"hash/maphash"
	"io"
	"math/bits"
	"slices"
	"unsafe"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/offheap"
	"agentv-review/plugin/internal/safefile"
)

// A tally is how Read counts the rows it does not keep
// without holding a Case for each: a row leaves one 16-byte record, a
// 94-bit hash of its dedupe key, its line and its outcome. Once every row
// is in, each group of equal keys is one case: its last line is the row
// that wins (AgentV's rule), its first line where the case stands in the
// run. Records are spread over 256 buckets by hash, so the sort that
// groups them needs no copy of them all: 1M rows cost about 20 MB,
// whatever the rows hold.
type tally struct {
	buckets [256]tallyRecords
	last    int // the line of the last row added (rows come in line order)

	// Filled by finish.
	firsts       []uint32 // each case's first line, ascending: case i's is firsts[i]
	counts       [3]int   // cases passed, failed, errored
	dupes, first int      // rows a later row replaced, and the line of the first such
}

// tallyRecord is one row. key holds 30 more bits of the key's hash above
// the outcome (two bits: outcomeBits).
type tallyRecord struct {
	h    uint64
	key  uint32
	line uint32
}

// tallySeeds are the two seeds of a tally's hashes, shared by the workers
// that hash rows (tallyKey) and the tally that groups them.
type tallySeeds [2]maphash.Seed

func newTallySeeds() tallySeeds { return tallySeeds{maphash.MakeSeed(), maphash.MakeSeed()} }

// tallyKey hashes a row's dedupe key (eval_path as its hash, as dedupeKey
// has it) and packs its outcome beside the second hash.
func (s tallySeeds) tallyKey(h *rowHead, eval uint64) (uint64, uint32) {
	k := dedupeKey{eval, h.Suite, h.TestID, h.Target, h.Variant}
	var o uint32
	switch h.Outcome {
	case Failed:
		o = 1
	case Errored:
		o = 2
	}
	return maphash.Comparable(s[0], k), uint32(maphash.Comparable(s[1], k))<<2 | o
}

// add records the row at line with the hashes tallyKey gave.
func (t *tally) add(h uint64, key uint32, line int) {
	t.buckets[h>>56].add(tallyRecord{h: h, key: key, line: uint32(line)})
	t.last = line
}

// tallyRecords are a bucket's records, in a part: on the heap up to
// offheap.MinMapped bytes, then outside it, so the collector neither scans 1M
// rows' 16 MB nor lets them double its goal. Whoever makes a tally frees
// it.
type tallyRecords struct{ p *offheap.Part[tallyRecord] }

func (rs *tallyRecords) add(r tallyRecord) {
	if rs.p == nil {
		rs.p = &offheap.Part[tallyRecord]{}
	}
	if s := rs.p.S; len(s) == cap(s) && (len(s)+1)*int(unsafe.Sizeof(r)) > offheap.MinMapped {
		p := offheap.NewPart[tallyRecord](2 * len(s))
		p.Populate(0, len(s)) // the half about to be copied into
		p.S = p.S[:copy(p.S, s)]
		rs.p.Free()
		rs.p = p
	}
	rs.p.S = append(rs.p.S, r)
}

// records are the records added (read them only until free).
func (rs *tallyRecords) records() []tallyRecord {
	if rs.p == nil {
		return nil
	}
	return rs.p.S
}

// free gives the records back; nothing may touch them after.
func (rs *tallyRecords) free() {
	rs.p.Free()
	rs.p = nil
}

// free gives back what the buckets hold, whether finished or not.
func (t *tally) free() {
	for b := range t.buckets {
		t.buckets[b].free()
	}
}

// finish groups the tallyRecords into cases: it counts the winning rows'
// outcomes and the duplicates and lists each case's first line (in line
// order, from a bit set of the lines: no sort of them all). It frees the
// tallyRecords.
func (t *tally) finish() {
	firsts := make([]uint64, t.last/64+1) // bit l: line l is a case's first
	cases := 0
	for b := range t.buckets {
		rs := t.buckets[b].records()
		slices.SortFunc(rs, func(a, b tallyRecord) int {
			if a.h != b.h {
				return cmp.Compare(a.h, b.h)
			}
			if a.key>>2 != b.key>>2 {
				return cmp.Compare(a.key>>2, b.key>>2)
			}
			return cmp.Compare(a.line, b.line)
		})
		for i := 0; i < len(rs); {
			j := i + 1
			for ; j < len(rs) && rs[j].h == rs[i].h && rs[j].key>>2 == rs[i].key>>2; j++ {
				if t.dupes == 0 || int(rs[j].line) < t.first {
					t.first = int(rs[j].line)
				}
				t.dupes++
			}
			t.counts[rs[j-1].key&3]++
			firsts[rs[i].line/64] |= 1 << (rs[i].line % 64)
			cases++
			i = j
		}
		t.buckets[b].free()
	}
	t.firsts = make([]uint32, 0, cases) // kept by the Run: no room for duplicate rows
	for w, x := range firsts {
		for ; x != 0; x &= x - 1 {
			t.firsts = append(t.firsts, uint32(w*64+bits.TrailingZeros64(x)))
		}
	}
}

// position is the index among all cases of the case first seen at line.
func (t *tally) position(line int) int32 {
	i, _ := slices.BinarySearch(t.firsts, uint32(line))
	return int32(i)
}

// lineMark is where a line of the manifest begins: its number and offset.
type lineMark struct {
	line int
	off  int64
}

// TestIDAt returns the test id of the case at position pos (0-based) of a
// run read under Read(keep), reading the manifest once more from the
// start of the block of lines that held the case's first row (Run.marks):
// reopen the run keeping that test id to Find "#N".
func (r *Run) TestIDAt(pos int) (string, error) {
	if r.keep == nil {
		return r.idAt(pos).TestID, nil // a compact read makes no Case for it
	}
	rel := r.rel(r.Manifest)
	f, err := safefile.OpenIn(r.Dir, r.Manifest)
	if err != nil {
		return "", unreadable(rel, err)
	}
	defer f.Close()
	want := int(r.firsts[pos])
	from := lineMark{line: 1} // the last block to begin at or before line want
	if k, _ := slices.BinarySearchFunc(r.marks, want+1, func(m lineMark, line int) int { return cmp.Compare(m.line, line) }); k > 0 {
		from = r.marks[k-1]
	}
	if _, err := f.Seek(from.off, io.SeekStart); err != nil {
		return "", unreadable(rel, err)
	}
	br := bufio.NewReaderSize(f, 256<<10)
	for line := from.line; ; line++ {
		var raw []byte
		for {
			chunk, err := br.ReadSlice('\n')
			if line == want {
				raw = append(raw, chunk...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if line == want && len(raw) > 0 {
				sk := skimmer{loose: true} // its identity is all that is read (the read after checks it whole)
				w, _, rerr := checkRow(rowBytes(raw, line == 1), &sk)
				if rerr != nil {
					return "", clierr.Input(rel, line, rerr.field, "the manifest changed while it was read: "+rerr.msg, "run the command again")
				}
				return w.head().TestID, nil
			}
			if err != nil {
				return "", clierr.Input(rel, line, "", "the manifest changed while it was read (it is shorter now)", "run the command again")
			}
			break
		}
	}
}
