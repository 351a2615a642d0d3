package run

import (
	"cmp"
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"agentv-review/plugin/internal/safefile"
)

// Basis is what a verdict on a case rests on, read as Detail and Task read
// it: the answer, the input and the test definition. Answer and Input are
// Detail's, except that the Content of a sidecar is the file's raw bytes
// (response.md keeps its role blocks), whole unless Truncated, when Path
// has the rest.
type Basis struct {
	Case          *Case
	Answer, Input Text
	Task          *Task
}

// basisLimit is how much of a sidecar a Basis holds; a bigger one is read
// again from its Path by whoever needs all of it.
const basisLimit = 4 << 20

// basisChunk bounds the manifest bytes Bases reads at once for a run of
// neighbouring rows; a gap bigger than basisGap between two wanted rows
// starts a new read.
const (
	basisChunk = 1 << 20
	basisGap   = 64 << 10
)

// Bases reads the Basis of every case of cs and calls fn(i, b) for cs[i],
// on every core (fn must be safe for concurrent use; b is fn's to keep).
// It reads the manifest once in file order, decodes each row once, and
// opens the run directory once for all sidecars, with Detail's checks: a
// row that is no longer the case's is an error, as is fn's. It returns the
// error of the lowest i that failed; once one fails, the rest are skipped.
func (r *Run) Bases(cs []*Case, fn func(i int, b *Basis) error) error {
	if len(cs) == 0 {
		return nil
	}
	rel := r.rel(r.Manifest)
	f, err := safefile.OpenIn(r.Dir, r.Manifest)
	if err != nil {
		return unreadable(rel, err)
	}
	defer f.Close()
	dir, err := safefile.OpenDir(r.Dir)
	if err != nil {
		return unreadable(r.Dir, err)
	}
	defer dir.Close()

	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a].Loc.Offset, cs[b].Loc.Offset) })

	errs := make([]error, len(cs))
	var failed atomic.Bool
	fail := func(i int, err error) {
		errs[i] = err
		failed.Store(true)
	}
	work := make(chan chunk, 2)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var sk skimmer
			for ch := range work {
				for _, i := range ch.cases {
					if failed.Load() {
						break
					}
					c := cs[i]
					start := c.Loc.Offset - ch.offset
					if start+int64(c.Loc.Length) > int64(len(ch.data)) {
						fail(i, r.changed(c, "cannot re-read the row: "+ch.err.Error()))
						continue
					}
					b, err := r.basis(c, ch.data[start:start+int64(c.Loc.Length)], &sk, dir.Open)
					if err == nil {
						err = fn(i, b)
					}
					if err != nil {
						fail(i, err)
					}
				}
			}
		})
	}
	for lo := 0; lo < len(order) && !failed.Load(); {
		hi, first := lo+1, cs[order[lo]].Loc
		end := first.Offset + int64(first.Length)
		for ; hi < len(order); hi++ {
			next := cs[order[hi]].Loc
			if next.Offset-end > basisGap || next.Offset+int64(next.Length)-first.Offset > basisChunk {
				break
			}
			end = max(end, next.Offset+int64(next.Length))
		}
		ch := chunk{offset: first.Offset, data: make([]byte, end-first.Offset), cases: order[lo:hi]}
		n, err := f.ReadAt(ch.data, ch.offset)
		ch.data, ch.err = ch.data[:n], err
		work <- ch
		lo = hi
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// chunk is a run of neighbouring manifest rows read at once: data holds
// the bytes from offset on (short by a read error err), cases the indexes
// of the cases whose rows it spans.
type chunk struct {
	offset int64
	data   []byte
	err    error
	cases  []int
}

// basis reads the Basis of c from its row bytes line.
func (r *Run) basis(c *Case, line []byte, sk *skimmer, open opener) (*Basis, error) {
	_, m, err := r.verify(c, line, sk)
	if err != nil {
		return nil, err
	}
	var row rowFull
	if err := r.decodeRow(c, m, textFields, &row); err != nil {
		return nil, err
	}
	d := &Detail{Case: c} // the reads' warnings, which a Basis does not keep
	read := func(field, rel string) Text { return r.readFileWith(open, d, field, rel, basisLimit) }
	b := &Basis{Case: c, Answer: r.answer(row, c.OverwrittenBy == "", read), Input: r.input(row, read)}
	sc, named := r.rowSidecar(m, "eval_path")
	b.Task = r.task(open, sc, named, c.TestID, m)
	return b, nil
}

// members splits a JSON object (one that checkRow accepted) into its
// members as json.Unmarshal into a map[string]json.RawMessage does: the
// last of repeated keys wins, invalid UTF-8 in a key becomes U+FFFD. The
// values alias line.
func (s *skimmer) members(line []byte) (map[string]json.RawMessage, error) {
	s.b, s.i, s.depth = line, 0, 0
	m := make(map[string]json.RawMessage, 32)
	err := s.object(func(key []byte) error {
		k := string(key)
		if !utf8.ValidString(k) {
			// A raw key: no escapes or control characters to quote.
			_ = json.Unmarshal([]byte(`"`+k+`"`), &k)
		}
		s.ws()
		start := s.i
		if err := s.skip(); err != nil {
			return err
		}
		m[k] = s.b[start:s.i]
		return nil
	})
	return m, err
}
