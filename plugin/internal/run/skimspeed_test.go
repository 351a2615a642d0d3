package run

import (
	"bytes"
	"hash/maphash"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agentv-review/plugin/internal/jsonnum"
)

// BenchmarkSkimLines is the row decoder alone, as Open's workers run it,
// on one core: every line of the generated 10k-row 4.42.4 manifest, already
// in memory (run with -cpu 1 to compare per-core throughput).
func BenchmarkSkimLines(b *testing.B) {
	lines := generatedLines(b)
	sk := skimmer{in: interner{}, views: true}
	for b.Loop() {
		for _, l := range lines {
			if _, _, err := checkRow(l, &sk); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLooseRows is the parse of rows show does not keep, as its
// workers run it (Options.CheckKeptOnly, Read(keep) keeping none): every
// line of the generated 10k-row 4.42.4 manifest, already in memory.
func BenchmarkLooseRows(b *testing.B) {
	lines := generatedLines(b)
	cfg := parseConfig{outline: true, seed: maphash.MakeSeed(), keep: func(string) bool { return false }, keptOnly: true, tallied: true, tally: newTallySeeds()}
	a := arena{cfg: cfg, outlines: &outlines{graderSets: map[string][]GraderSummary{}, sampleSets: map[string][]SampleSummary{}}}
	sk := skimmer{in: interner{}, views: true}
	for b.Loop() {
		for _, l := range lines {
			if row, err := parseRow(l, &sk, &a, true); err != nil || row.c != nil {
				b.Fatal(err)
			}
		}
	}
}

// generatedLines are the lines of the generated 10k-row 4.42.4 manifest,
// whose size b's throughput counts.
func generatedLines(b *testing.B) [][]byte {
	dir, _ := generatedRun(b, "442", 10_000)
	data, err := os.ReadFile(filepath.Join(dir, "index.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

// FuzzStringRun: stringRun (eight bytes at a time) finds, from every start, the
// first quote, control character or backslash that does not start a
// two-byte escape, as a byte loop does. ascii tells whether a byte is
// above 0x7f.
func FuzzStringRun(f *testing.F) {
	f.Add([]byte(`abc"def\ghi`), 0)
	f.Add(bytes.Repeat([]byte("0123456789abcdef"), 5), 3)
	f.Add(append(bytes.Repeat([]byte{'x'}, 47), 0x1f, 0x20, 0x7f, 0x80, 0xff), 1)
	f.Add([]byte(`say \"hi\"\n\\\t\/\b\f\r then \u00e9 and \q`), 2)
	f.Add(append(bytes.Repeat([]byte(`ab\n`), 20), '\\'), 0)
	f.Fuzz(func(t *testing.T, b []byte, start int) {
		if start < 0 || start > len(b) {
			start = 0
		}
		want, wantEscaped := start, false
		for want < len(b) && b[want] != '"' && b[want] >= 0x20 {
			if b[want] == '\\' {
				if want+1 == len(b) || !strings.ContainsRune(`"\/bfnrt`, rune(b[want+1])) {
					break
				}
				want, wantEscaped = want+2, true
				continue
			}
			want++
		}
		if ascii(b) != !hasWide(b) {
			t.Fatalf("ascii(%q) = %v", b, ascii(b))
		}
		if got, escaped := stringRun(b, start); got != want || escaped != wantEscaped {
			t.Fatalf("stringRun(%q, %d) = %d, %v; want %d, %v", b, start, got, escaped, want, wantEscaped)
		}
	})
}

// FuzzParseNumber: parseNumber's fast path gives the bits
// strconv.ParseFloat gives, for every JSON number.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "0.5", "0.8347", "-12.25", "123456789012345", "1234567890123456", "0.1234567890123456789", "1e5", "1.5E-3", "9007199254740993", "0.000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !jsonnum.Valid([]byte(s)) {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		got, ok := parseNumber([]byte(s))
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseNumber(%q) = %v, %v; strconv says %v, %v", s, got, ok, want, err)
		}
	})
}
