package run

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzStage: the staged masks of a line hold exactly its unescaped quotes
// and the bytes its backslashes escape (as a scan from the start finds
// them), stageChunk (SSE2 or AVX2 on amd64) matches stageChunkWords, and
// at every quote no backslash escapes, skimmer.stringEnd read from the
// masks (and skimmer.near, when it knows) gives what the byte scan
// stringEnd gives: the same end, or the same error at the same byte, as
// they do on the line staged loose (no masks).
func FuzzStage(f *testing.F) {
	for _, r := range append(skimEdgeRows, skimBlockRows()...) {
		f.Add([]byte(r))
	}
	f.Add([]byte(`"` + string(make([]byte, 63)) + `\\\"` + "\x1f\\u00e9\\q\"" + `\`))
	// Lengths around 32 and 64 bytes, with runs of one to four
	// backslashes in a string ending just before, at and after a block's
	// end, and a bracket after them.
	for _, n := range []int{31, 32, 33, 63, 64, 65, 127, 128, 129} {
		for run := 1; run <= 4; run++ {
			for _, at := range []int{62, 63, 64, 65} {
				b := []byte(`{"k":["` + strings.Repeat("a", max(0, at-run-7)) + strings.Repeat(`\`, run) + `"]}`)
				if len(b) < n {
					b = append(b, strings.Repeat(" ", n-len(b))...)
				}
				f.Add(b[:n])
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, loose := range []bool{false, true} {
			s := skimmer{b: line, staged: !loose} // as skimmer.row stages them
			s.blocks = stage(line, nil, loose)
			if n := len(line)/64 + 1; loose && len(s.blocks) != 0 || !loose && len(s.blocks) != n {
				t.Fatalf("%d blocks for %d bytes (loose %v)", len(s.blocks), len(line), loose)
			}
			escaped := false // line[i] is escaped
			for i, c := range line {
				if !loose {
					bl, bit := s.blocks[i/64], uint64(1)<<(i%64)
					if (bl.escaped&bit != 0) != escaped || (bl.quote&bit != 0) != (c == '"' && !escaped) {
						t.Fatalf("%q: byte %d: escaped %v, quote %v", line, i, bl.escaped&bit != 0, bl.quote&bit != 0)
					}
				}
				if c == '"' && !escaped {
					wantEnd, wantOK, wantEsc := stringEnd(line, i+1)
					if end, ok, esc := s.near(i + 1); ok && (end != wantEnd || !wantOK || esc != wantEsc) {
						t.Fatalf("%q: string at %d (loose %v): near says %d, %v; the scan %d, %v, %v", line, i, loose, end, esc, wantEnd, wantOK, wantEsc)
					}
					end, ok, esc := s.stringEnd(i + 1)
					if end != wantEnd || ok != wantOK || ok && esc != wantEsc {
						t.Fatalf("%q: string at %d (loose %v): end %d, %v, %v; the scan says %d, %v, %v", line, i, loose, end, ok, esc, wantEnd, wantOK, wantEsc)
					}
				}
				escaped = c == '\\' && !escaped
			}
		}
		whole := len(line) / 64 * 64
		got, want := make([]stageBlock, whole/64), make([]stageBlock, whole/64)
		var carry, wantCarry uint64
		stageChunk(line[:whole], got, &carry)
		stageChunkWords(line[:whole], want, &wantCarry)
		if !reflect.DeepEqual(got, want) || carry != wantCarry {
			t.Fatalf("%q: stageChunk %x, %d; stageChunkWords %x, %d", line, got, carry, want, wantCarry)
		}
	})
}
