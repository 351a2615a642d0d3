package termtext_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"agentv-review/plugin/internal/termtext"
)

const (
	family  = "👨\u200d👩\u200d👧\u200d👦"
	rainbow = "🏳️\u200d🌈"
	england = "🏴󠁧󠁢󠁥󠁮󠁧󠁿"
)

// clusterTexts exercise grapheme clusters that must never be split.
var clusterTexts = []string{
	family + family + family,
	"🇯🇵🇳🇴🇺🇸 flags",
	"👍🏽👋🏿 tones " + rainbow + england,
	"e\u0301te\u0301 Z\u0351\u0352\u0353a\u0354\u0355l\u0356g\u0357o",
	"日本語のテキスト、한국어 텍스트 ＡＢＣ",
	"mixed 東京 " + family + " text and שלום مرحبا",
}

func TestWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"日本語", 6},
		{"한국어", 6},
		{"ＡＢ", 4},
		{family, 2},
		{rainbow, 2},
		{england, 2},
		{"🇯🇵", 2},
		{"👍🏽", 2},
		{"e\u0301", 1},
		{"a\u200db", 2},
		{"مرحبا", 5},
		{"␛[2J⏎", 5},
	}
	for _, tt := range tests {
		if got := termtext.Width(tt.in); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		cells int
		tail  string
		want  string
	}{
		{"hello", 5, "…", "hello"},
		{"hello world", 8, "…", "hello w…"},
		{"日本語テキスト", 5, "…", "日本…"},
		{"日本語", 4, "…", "日…"},
		{family + family + family, 3, "…", family + "…"},
		{"🇯🇵🇳🇴", 3, "", "🇯🇵"},
		{"e\u0301e\u0301e\u0301", 2, "…", "e\u0301…"},
		{"abcdef", 2, "...", "ab"},
		{"abc", 0, "…", ""},
	}
	for _, tt := range tests {
		if got := termtext.Truncate(tt.in, tt.cells, tt.tail); got != tt.want {
			t.Errorf("Truncate(%q, %d, %q) = %q, want %q", tt.in, tt.cells, tt.tail, got, tt.want)
		}
	}
}

func TestTruncateKeepsClusters(t *testing.T) {
	for _, s := range clusterTexts {
		for cells := range termtext.Width(s) + 2 {
			got := termtext.Truncate(s, cells, "…")
			if w := termtext.Width(got); w > cells {
				t.Errorf("Truncate(%q, %d) = %q is %d cells wide", s, cells, got, w)
			}
			kept := got
			if got != s {
				kept = strings.TrimSuffix(got, "…")
			}
			assertClusters(t, s, []string{kept})
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		cells int
		want  []string
	}{
		{"", 10, nil},
		{"hello world", 11, []string{"hello world"}},
		{"hello world", 5, []string{"hello", "world"}},
		{"hello   world", 7, []string{"hello", "world"}},
		{"aaaaaaaaaa", 4, []string{"aaaa", "aaaa", "aa"}},
		{"a\n\nb\n", 10, []string{"a", "", "b"}},
		{"    xxxxxxxxxx", 10, []string{"    xxxxxx", "xxxx"}},
		{"日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
		{family + family + family, 5, []string{family + family, family}},
		{"trailing   ", 8, []string{"trailing"}},
	}
	for _, tt := range tests {
		if got := termtext.Wrap(tt.in, tt.cells); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.in, tt.cells, got, tt.want)
		}
	}
}

func TestWrapProperties(t *testing.T) {
	texts := append([]string(nil), clusterTexts...)
	for _, text := range hazards(t) {
		texts = append(texts, termtext.Sanitize(text))
	}
	for _, s := range texts {
		for _, cells := range []int{2, 3, 7, 20, 80} {
			lines := termtext.Wrap(s, cells)
			for _, l := range lines {
				if w := termtext.Width(l); w > cells {
					t.Fatalf("Wrap(%.40q, %d) has a line %d cells wide: %q", s, cells, w, l)
				}
			}
			assertClusters(t, s, lines)
			noSpace := strings.NewReplacer(" ", "", "\n", "")
			if got, want := noSpace.Replace(strings.Join(lines, "")), noSpace.Replace(s); got != want {
				t.Fatalf("Wrap(%.40q, %d) lost text", s, cells)
			}
		}
	}
}

// assertClusters checks that parts appear in s in order and that each one
// starts and ends on a grapheme cluster boundary of s.
func assertClusters(t *testing.T, s string, parts []string) {
	t.Helper()
	bounds := map[int]bool{0: true}
	for off, rest, state := 0, s, -1; rest != ""; {
		var c string
		c, rest, _, state = uniseg.StepString(rest, state)
		off += len(c)
		bounds[off] = true
	}
	off := 0
	for _, p := range parts {
		i := strings.Index(s[off:], p)
		if i < 0 {
			t.Fatalf("%q is not in %.60q after byte %d", p, s, off)
		}
		if start, end := off+i, off+i+len(p); !bounds[start] || !bounds[end] {
			t.Fatalf("%q (bytes %d-%d) splits a grapheme cluster of %.60q", p, start, end, s)
		}
		off += i + len(p)
	}
}
