package run

import (
	"reflect"
	"testing"
)

// FuzzStage: the staged masks of a line hold exactly its unescaped quotes
// and the bytes its backslashes escape (as a scan from the start finds
// them) and its brackets, stageMasks (SSE2 or AVX2 on amd64) matches
// stageMasksWords, and at every
// quote no backslash escapes, skimmer.stringEnd read from the masks (and
// skimmer.near, when it knows) gives
// what the byte scan stringEnd gives: the same end, or the same error at
// the same byte.
func FuzzStage(f *testing.F) {
	for _, r := range append(skimEdgeRows, skimBlockRows()...) {
		f.Add([]byte(r))
	}
	f.Add([]byte(`"` + string(make([]byte, 63)) + `\\\"` + "\x1f\\u00e9\\q\"" + `\`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s := skimmer{b: line, staged: true}
		s.blocks = stage(line, nil, true)
		if len(s.blocks) != len(line)/64+1 {
			t.Fatalf("%d blocks for %d bytes", len(s.blocks), len(line))
		}
		escaped := false // line[i] is escaped
		for i, c := range line {
			bl, bit := s.blocks[i/64], uint64(1)<<(i%64)
			if (bl.escaped&bit != 0) != escaped || (bl.quote&bit != 0) != (c == '"' && !escaped) {
				t.Fatalf("%q: byte %d: escaped %v, quote %v", line, i, bl.escaped&bit != 0, bl.quote&bit != 0)
			}
			if (bl.open&bit != 0) != (c == '{' || c == '[') || (bl.close&bit != 0) != (c == '}' || c == ']') {
				t.Fatalf("%q: byte %d: open %v, close %v", line, i, bl.open&bit != 0, bl.close&bit != 0)
			}
			if c == '"' && !escaped {
				wantEnd, wantOK, wantEsc := stringEnd(line, i+1)
				if end, ok, esc := s.near(i + 1); ok && (end != wantEnd || !wantOK || esc != wantEsc) {
					t.Fatalf("%q: string at %d: near says %d, %v; the scan %d, %v, %v", line, i, end, esc, wantEnd, wantOK, wantEsc)
				}
				end, ok, esc := s.stringEnd(i + 1)
				if end != wantEnd || ok != wantOK || ok && esc != wantEsc {
					t.Fatalf("%q: string at %d: end %d, %v, %v; the scan says %d, %v, %v", line, i, end, ok, esc, wantEnd, wantOK, wantEsc)
				}
			}
			escaped = c == '\\' && !escaped
		}
		whole := len(line) / 64 * 64
		got, want := make([]stageBlock, whole/64), make([]stageBlock, whole/64)
		stageMasks(line[:whole], got, true)
		stageMasksWords(line[:whole], want, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: stageMasks %x, stageMasksWords %x", line, got, want)
		}
	})
}
