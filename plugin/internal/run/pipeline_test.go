package run

import (
	"fmt"
	"strings"
	"testing"
)

// TestLinesAcrossBlocks: lines of every length around one and two read
// blocks, and several lines to a block, are cut where they end: every case
// has its own test id, line and byte range.
func TestLinesAcrossBlocks(t *testing.T) {
	var manifest strings.Builder
	var want []RowLoc
	for i, n := range []int{10, blockSize - 2, blockSize - 1, blockSize, blockSize + 1, 40, 2*blockSize - 1, 2 * blockSize, 2*blockSize + 1, 3, 5*blockSize + 7, 12} {
		head := fmt.Sprintf(`{"test_id":"t%02d","score":1,"pad":"`, i)
		row := head + strings.Repeat("x", max(0, n-len(head)-2)) + `"}`
		want = append(want, RowLoc{Offset: int64(manifest.Len()), Length: int32(len(row)), Line: int32(i + 1)})
		manifest.WriteString(row + "\n")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"index.jsonl": manifest.String()})
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
