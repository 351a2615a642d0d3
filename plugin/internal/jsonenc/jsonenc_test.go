package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendString: AppendString writes what encoding/json writes, with
// HTML escaping (json.Marshal) and without (SetEscapeHTML(false)).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `<b>&amp;</b>`, "quote \" back\\slash", "tab\tnl\nret\r\b\f\x00\x1f\x7f",
		"é ü 日本 😀", "\u2028\u2029", "bad \xff\xfe utf-8 \xed\xa0\x80"} {
		f.Add(s)
	}
	// A byte that needs a look at every place of the words plainRun reads,
	// in strings shorter than a word, of one, and longer.
	for n := 1; n <= 17; n++ {
		for at := range n {
			for _, b := range []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", " ", "\x7f", "é", "\xff", "\u2028"} {
				f.Add(strings.Repeat("x", at) + b + strings.Repeat("y", n-at-1))
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		html, _ := json.Marshal(s)
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		for _, h := range []bool{false, true} {
			// plainRun passes exactly the words before the one holding the
			// first byte that needs a look
			look := strings.IndexFunc(s, func(r rune) bool {
				return r >= utf8.RuneSelf || r < 0x20 || r == '"' || r == '\\' || h && (r == '<' || r == '>' || r == '&')
			})
			n := plainRun(s, h)
			if look < 0 && n != len(s) || look >= 0 && n != look&^7 {
				t.Errorf("plainRun(%q, %v) = %d; the first byte needing a look is at %d", s, h, n, look)
			}
		}
		if got := AppendString(nil, s, true); !bytes.Equal(got, html) {
			t.Errorf("AppendString(%q, html) = %s, json.Marshal %s", s, got, html)
		}
		if got, want := AppendString(nil, s, false), bytes.TrimSuffix(plain.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// FuzzAppendFloat: AppendFloat writes what json.Marshal writes for a
// float64, and fails where it fails.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.9400000000000001, 1e-7, 1e-6, 123456789, 1e20, 1e21,
		-2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(-1)} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		want, wantErr := json.Marshal(v)
		got, err := AppendFloat(nil, v)
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s, %v; json.Marshal %s, %v", v, got, err, want, wantErr)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct {
		name string
		ss   []string
	}{
		{"ids", []string{"explain-refund-000000", "acceptable", "gpt-5-mini", "2026-12-01T21:50:12.062Z",
			"sha256:90602180a20419f244fdded715350f0a0bf286d6b9ccd1ff3686c4e9f9728091", "contains:contains-patch"}},
		{"escapes", []string{strings.Repeat(`{"a":"b"},`, 6), "line one\nline\ttwo\n\tthree \"quoted\" end"}},
		{"non-ascii", []string{"評価者の回答は正しいが、表現が異なるため減点された。", "naïve café — résumé"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var dst []byte
			for b.Loop() {
				for _, s := range bc.ss {
					dst = AppendString(dst[:0], s, false)
				}
			}
		})
	}
}

// TestAppendDecimal: every number AppendDecimal writes with 0 to 4 places
// (the float64 nearest to i/10^places for every i below 1e6) is written as
// strconv writes its shortest decimal, and its neighbours, -0, NaN,
// infinities and numbers from 1e6 units on are left to strconv.
func TestAppendDecimal(t *testing.T) {
	for places := range 5 {
		unit := math.Pow10(places)
		for i := range int64(1e6) {
			f := float64(i) / unit
			got, ok := AppendDecimal(nil, f, places)
			if want := strconv.AppendFloat(nil, f, 'f', -1, 64); !ok || !bytes.Equal(got, want) {
				t.Fatalf("AppendDecimal(%v, %d) = %s, %v; want %s", f, places, got, ok, want)
			}
			for _, g := range []float64{math.Nextafter(f, -1), math.Nextafter(f, 2e6)} {
				if got, ok := AppendDecimal(nil, g, places); ok {
					t.Fatalf("AppendDecimal(%v, %d) = %s: not a decimal of %[2]d places", g, places, got)
				}
			}
		}
		for _, f := range []float64{math.Copysign(0, -1), -0.5, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e6 / unit, 1e7, 1e21, 0.00001, 0.125 / unit} {
			if got, ok := AppendDecimal(nil, f, places); ok {
				t.Errorf("AppendDecimal(%v, %d) = %s, want no fast path", f, places, got)
			}
		}
	}
}
