package run

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"agentv-review/plugin/internal/offheap"
)

// TestLinesAcrossBlocks: lines of every length around one and two read
// blocks, and several lines to a block, are cut where they end: every case
// has its own test id, line and byte range.
func TestLinesAcrossBlocks(t *testing.T) {
	manifest, want := manifestOf([]int{10, blockSize - 2, blockSize - 1, blockSize, blockSize + 1, 40, 2*blockSize - 1, 2 * blockSize, 2*blockSize + 1, 3, 5*blockSize + 7, 12}, true)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"index.jsonl": manifest})
	r := mustOpen(t, dir, Options{})
	if r.Rows != len(want) || len(r.Cases) != len(want) {
		t.Fatalf("%d rows, %d cases; want %d", r.Rows, len(r.Cases), len(want))
	}
	for i, c := range r.Cases {
		if got := (RowLoc{Offset: c.Loc.Offset, Length: c.Loc.Length, Line: c.Loc.Line}); c.TestID != fmt.Sprintf("t%02d", i) || got != want[i] {
			t.Errorf("case %d: %s at %+v; want t%02d at %+v", i, c.TestID, got, i, want[i])
		}
	}
}

// manifestOf is a manifest of rows of the given lengths (without their
// newline; the last one's only when newline is set), and where each is.
func manifestOf(lengths []int, newline bool) (string, []RowLoc) {
	var manifest strings.Builder
	var want []RowLoc
	for i, n := range lengths {
		head := fmt.Sprintf(`{"test_id":"t%02d","score":1,"pad":"`, i)
		row := head + strings.Repeat("x", max(0, n-len(head)-2)) + `"}`
		want = append(want, RowLoc{Offset: int64(manifest.Len()), Length: int32(len(row)), Line: int32(i + 1)})
		manifest.WriteString(row)
		if newline || i < len(lengths)-1 {
			manifest.WriteString("\n")
		}
	}
	return manifest.String(), want
}

// pipelineRows runs the pipeline over src and returns where each row it
// parsed is and the read error it met, and checks that every buffer of
// a long line went back (all of longBudget's tokens are free again).
func pipelineRows(t *testing.T, src io.Reader) ([]RowLoc, error) {
	t.Helper()
	p := startPipeline(src, parseConfig{seed: maphash.MakeSeed()})
	var got []RowLoc
	var readErr error
	base := 0
	for b := range p.ordered {
		<-b.done
		if b.readErr != nil {
			readErr = b.readErr
			break
		}
		if b.err != nil {
			t.Fatalf("line %d: %s", base+b.errLine, b.err.msg)
		}
		for _, row := range b.rows {
			got = append(got, RowLoc{Offset: b.off + row.c.Loc.Offset, Length: row.c.Loc.Length, Line: int32(base) + row.line})
		}
		base += b.lines
	}
	p.stop()
	if len(p.tokens) != cap(p.tokens) {
		t.Errorf("%d of longBudget's %d tokens were not given back", cap(p.tokens)-len(p.tokens), cap(p.tokens))
	}
	return got, readErr
}

// TestBlockEdges: rows whose newline is the last byte of a read block, or
// the first of the next, rows of one and of several blocks, and a last
// line without its newline (long or short), are cut where they end, with
// reads of every size.
func TestBlockEdges(t *testing.T) {
	const b = blockSize
	layouts := map[string][]int{
		"newline last in a block":  {b - 1, b - 1, 2*b - 1, 20},   // each line with its newline fills whole blocks
		"newline first in a block": {b, 30, b - 31, 2 * b, 3},     // the newline is alone in the next read
		"longer than the budget":   {longBudget + 3*b + 5, 7, 40}, // one line holds every token
		"long lines in a row":      {3 * b, 4*b + 1, 2 * b, 5 * b, b + 1},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"half":  iotest.HalfReader,
	}
	for name, lengths := range layouts {
		for _, newline := range []bool{true, false} {
			for rname, reader := range readers {
				t.Run(fmt.Sprintf("%s/newline=%v/%s", name, newline, rname), func(t *testing.T) {
					manifest, want := manifestOf(lengths, newline)
					got, err := pipelineRows(t, reader(strings.NewReader(manifest)))
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("rows at %v; want %v", got, want)
					}
				})
			}
		}
	}
}

// TestReadErrorInBlocks: a read that fails, in a short line or in the
// middle of a long one, ends the blocks with that error after the rows of
// the blocks read whole, and gives back the long line's buffer.
func TestReadErrorInBlocks(t *testing.T) {
	boom := errors.New("boom")
	manifest, want := manifestOf([]int{3*blockSize + 11, 50, 5 * blockSize, 60}, true)
	for _, at := range []int{10, blockSize + 10, int(want[2].Offset) + 2*blockSize + 3, len(manifest) - 2} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			got, err := pipelineRows(t, io.MultiReader(strings.NewReader(manifest[:at]), iotest.ErrReader(boom)))
			if !errors.Is(err, boom) {
				t.Fatalf("error %v; want %v", err, boom)
			}
			for i, loc := range got {
				if loc != want[i] || loc.Offset+int64(loc.Length) >= int64(at) {
					t.Errorf("row %d at %+v; want %+v, read before byte %d", i, loc, want[i], at)
				}
			}
		})
	}
}

// TestLongLinesGiveBack: the buffers of lines longer than a block go back
// to the system once parsed, so reading many of them does not grow.
func TestLongLinesGiveBack(t *testing.T) {
	if _, ok := offheap.Resident(); !ok {
		t.Skip("no resident size to read")
	}
	lengths := make([]int, 24)
	for i := range lengths {
		lengths[i] = 4<<20 + i
	}
	manifest, want := manifestOf(lengths, true)
	runtime.GC()
	base, _ := offheap.Resident()
	got, err := pipelineRows(t, strings.NewReader(manifest))
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d rows, %v; want %d", len(got), err, len(want))
	}
	if now, _ := offheap.Resident(); now-base > 40<<20 {
		t.Errorf("resident size grew %d MiB over %d lines of 4 MiB", (now-base)>>20, len(lengths))
	}
}

// TestLastNewline: lastNewline is bytes.LastIndexByte(b, '\n') for every
// length up to three words and every place of one or two newlines, among
// bytes a bit or a carry away from one.
func TestLastNewline(t *testing.T) {
	for n := range 25 {
		for i := -1; i < n; i++ {
			for j := -1; j <= i; j++ {
				b := make([]byte, n)
				for k := range b {
					b[k] = []byte{'\n' ^ 0x80, '\n' ^ 1, '\n' + 1, 0xff, 0}[k%5]
				}
				for _, k := range []int{i, j} {
					if k >= 0 {
						b[k] = '\n'
					}
				}
				if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
					t.Fatalf("lastNewline(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
