package termtext_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"agentv-review/plugin/internal/termtext"
)

const hazardRun = "../../../testdata/agentv-4.42.4/runs/terminal-hazards"

// hazards returns the terminal-hazards run's texts by name: every *.md file,
// and the string values of each index.jsonl row joined by newlines.
func hazards(tb testing.TB) map[string]string {
	tb.Helper()
	texts := map[string]string{}
	err := filepath.WalkDir(hazardRun, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		texts[path] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(hazardRun, "index.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		var row any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			tb.Fatalf("index.jsonl:%d: %v", i+1, err)
		}
		texts[fmt.Sprintf("index.jsonl:%d", i+1)] = strings.Join(stringsIn(row), "\n")
	}
	if len(texts) < 20 {
		tb.Fatalf("found %d hazard texts under %s, want at least 20", len(texts), hazardRun)
	}
	return texts
}

// stringsIn returns every string key and value inside a decoded JSON value.
func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range v {
			out = append(append(out, k), stringsIn(e)...)
		}
		return out
	}
	return nil
}

func readHazard(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hazardRun, "terminal-hazards", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// violation returns why s is not safe to print, or "" when it is. Line breaks
// are allowed unless oneLine.
func violation(s string, oneLine bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		switch {
		case r == '\n' && !oneLine:
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("control %U at byte %d", r, i)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
			return fmt.Sprintf("bidi or invisible format character %U at byte %d", r, i)
		}
	}
	return ""
}

func TestSanitizeHazards(t *testing.T) {
	for name, in := range hazards(t) {
		if v := violation(termtext.Sanitize(in), false); v != "" {
			t.Errorf("Sanitize(%s): %s", name, v)
		}
		if v := violation(termtext.SanitizeLine(in), true); v != "" {
			t.Errorf("SanitizeLine(%s): %s", name, v)
		}
	}
}

func TestSanitizeHazardAnswers(t *testing.T) {
	ansi := termtext.Sanitize(readHazard(t, "ansi-output/outputs/answer.md"))
	for _, want := range []string{
		"␛[2J␛[H␛]0;pwned-title␇␛[31mRED ALERT␛[0m",
		`␛]8;;https://example.invalid/phish␛\click here␛]8;;␛\`,
		"carriage␍return", "back␈␈␈space", "bell␇", "tab here", "C1-CSI:␛[31m", "DEL:␡",
		"␛[?1049h alt-screen", "␛c reset",
	} {
		if !strings.Contains(ansi, want) {
			t.Errorf("sanitised ansi-output answer lacks %q:\n%s", want, ansi)
		}
	}

	// Unicode text survives byte for byte, except the invisible marks.
	in := readHazard(t, "unicode-output/outputs/answer.md")
	want := strings.NewReplacer("\u200f", "<U+200F>", "\ufeff", "<U+FEFF>").Replace(in)
	if got := termtext.Sanitize(in); got != want {
		t.Errorf("Sanitize(unicode answer) =\n%s\nwant\n%s", got, want)
	}

	in = readHazard(t, "crlf-tabs/outputs/answer.md")
	want = "line one\nline two\n    indented    with    tabs\n\ntrailing spaces   \n"
	if got := termtext.Sanitize(in); got != want {
		t.Errorf("Sanitize(crlf-tabs answer) = %q, want %q", got, want)
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "ok: 100%", "ok: 100%"},
		{"csi", "\x1b[2Jx", "␛[2Jx"},
		{"osc title bel", "\x1b]0;t\x07x", "␛]0;t␇x"},
		{"osc 8 st", "\x1b]8;;http://e\x1b\\a\x1b]8;;\x1b\\", `␛]8;;http://e␛\a␛]8;;␛\`},
		{"unterminated osc keeps text", "\x1b]0;title\nnext line", "␛]0;title\nnext line"},
		{"dcs", "\x1bP1$r\x1b\\", `␛P1$r␛\`},
		{"apc", "\x1b_payload\x1b\\", `␛_payload␛\`},
		{"esc c", "\x1bc", "␛c"},
		{"c1 csi rune", "\u009b31m", "␛[31m"},
		{"c1 nel", "a\u0085b", "a␛Eb"},
		{"raw 0x9b byte", "\x9b31m", "\uFFFD31m"},
		{"invalid utf-8", "a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"c0 and del", "\x00\x07\x08\x0b\x0c\x7f", "␀␇␈␋␌␡"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr", "a\rb", "a␍b"},
		{"cr before crlf", "\r\r\n", "␍\n"},
		{"tab at start", "\tx", "    x"},
		{"tab mid stop", "ab\tc", "ab  c"},
		{"tab on stop", "abcd\tx", "abcd    x"},
		{"tab after newline", "abc\n\tx", "abc\n    x"},
		{"tab after wide", "日本語\tx", "日本語  x"},
		{"tab after picture", "\x1b\tx", "␛   x"},
		{"two tabs", "a\tb\tc", "a   b   c"},
		{"rlo", "\u202eevil", "<U+202E>evil"},
		{"isolates", "\u2066x\u2069", "<U+2066>x<U+2069>"},
		{"marks", "\u200e\u200f\u061c", "<U+200E><U+200F><U+061C>"},
		{"bom", "\ufeffx", "<U+FEFF>x"},
		{"line separator", "a\u2028b", "a<U+2028>b"},
		{"zwj family", "👨\u200d👩\u200d👧\u200d👦", "👨\u200d👩\u200d👧\u200d👦"},
		{"rainbow flag", "🏳️\u200d🌈", "🏳️\u200d🌈"},
		{"subdivision flag", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "🏴󠁧󠁢󠁥󠁮󠁧󠁿"},
		{"flag and skin tone", "🇯🇵👍🏽", "🇯🇵👍🏽"},
		{"keycap", "1️⃣", "1️⃣"},
		{"combining", "e\u0301", "e\u0301"},
		{"zwsp zwnj", "a\u200bb\u200cc", "a\u200bb\u200cc"},
		{"rtl text", "שלום مرحبا", "שלום مرحبا"},
		{"cjk", "東京は日本の首都です。", "東京は日本の首都です。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := termtext.Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"odd:id*with?chars", "odd:id*with?chars"},
		{"a\nb", "a⏎b"},
		{"a\r\nb\n", "a⏎b⏎"},
		{"a\n\tb", "a⏎  b"},
		{"contains-\x1b[32mSUCCESS", "contains-␛[32mSUCCESS"},
	}
	for _, tt := range tests {
		if got := termtext.SanitizeLine(tt.in); got != tt.want {
			t.Errorf("SanitizeLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, text := range hazards(f) {
		f.Add(text[:min(len(text), 4096)])
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, fn := range []struct {
			name    string
			apply   func(string) string
			oneLine bool
		}{
			{"Sanitize", termtext.Sanitize, false},
			{"SanitizeLine", termtext.SanitizeLine, true},
		} {
			out := fn.apply(in)
			if v := violation(out, fn.oneLine); v != "" {
				t.Fatalf("%s(%q) = %q: %s", fn.name, in, out, v)
			}
			if again := fn.apply(out); again != out {
				t.Fatalf("%s is not idempotent on %q: %q then %q", fn.name, in, out, again)
			}
		}
	})
}

func BenchmarkSanitize(b *testing.B) {
	answer, err := os.ReadFile(filepath.Join(hazardRun, "terminal-hazards/long-output/outputs/answer.md"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(answer)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		termtext.Sanitize(s)
	}
}
