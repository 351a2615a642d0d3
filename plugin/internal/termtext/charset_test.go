package termtext_test

import (
	"fmt"
	"strings"
	"testing"

	"agentv-review/plugin/internal/termtext"
)

func TestCharsetFromEnv(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want termtext.Charset
	}{
		{map[string]string{}, termtext.ASCII},
		{map[string]string{"LANG": "C"}, termtext.ASCII},
		{map[string]string{"LANG": "POSIX"}, termtext.ASCII},
		{map[string]string{"LANG": "en_US"}, termtext.ASCII},
		{map[string]string{"LANG": "en_US.ISO-8859-1"}, termtext.ASCII},
		{map[string]string{"LANG": "de_DE.ISO-8859-15@euro"}, termtext.ASCII},
		{map[string]string{"LANG": "ru_RU.KOI8-R"}, termtext.ASCII},
		{map[string]string{"LANG": "ja_JP.eucJP"}, termtext.ASCII},
		{map[string]string{"LANG": "en_US.UTF-8"}, termtext.UTF8},
		{map[string]string{"LANG": "C.UTF-8"}, termtext.UTF8},
		{map[string]string{"LANG": "en_US.utf8"}, termtext.UTF8},
		{map[string]string{"LANG": "de_DE.UTF-8@euro"}, termtext.UTF8},
		// LC_ALL > LC_CTYPE > LANG; an empty one does not count.
		{map[string]string{"LC_ALL": "C", "LC_CTYPE": "en_US.UTF-8", "LANG": "en_US.UTF-8"}, termtext.ASCII},
		{map[string]string{"LC_ALL": "en_US.ISO-8859-1", "LANG": "en_US.UTF-8"}, termtext.ASCII},
		{map[string]string{"LC_ALL": "en_US.UTF-8", "LC_CTYPE": "C"}, termtext.UTF8},
		{map[string]string{"LC_CTYPE": "C", "LANG": "en_US.UTF-8"}, termtext.ASCII},
		{map[string]string{"LC_CTYPE": "en_US.UTF-8", "LANG": "C"}, termtext.UTF8},
		{map[string]string{"LC_ALL": "", "LC_CTYPE": "", "LANG": "en_US.UTF-8"}, termtext.UTF8},
	} {
		if got := termtext.CharsetFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("CharsetFromEnv(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// eightBitUnsafe returns why out may not go to an 8-bit terminal: any byte
// >= 0x80 (a C1 control 0x80–0x9F, or part of one in other 8-bit
// codesets), a C0 control but \n (none at all when oneLine), or DEL.
func eightBitUnsafe(out string, oneLine bool) string {
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '\n' && !oneLine:
		case c < 0x20, c >= 0x7f:
			return fmt.Sprintf("byte %#02x at %d", c, i)
		}
	}
	return ""
}

// eightBitInputs are every byte alone, every code point up to U+00FF and
// the C1 range encoded, invalid and truncated UTF-8, and the hazard texts.
func eightBitInputs(tb testing.TB) []string {
	var in []string
	for c := 0; c < 0x100; c++ {
		in = append(in, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b", string(rune(c)), "x"+string(rune(c))+"\ty")
	}
	in = append(in, "\xe2\x90", "\xe2\x90\x9b", "\xc2\x9b31m", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\x9b",
		"␛[2J ⏎ … ─ é テスト 👩‍💻 עברית \u200f \ufeff \U0010ffff", "\r\n\r\x1b]0;t\x07\x7f", strings.Repeat("\x9b", 8))
	for _, text := range hazards(tb) {
		in = append(in, text)
	}
	return in
}

// ascii is what a terminal whose locale is not UTF-8 receives of run text:
// sanitise (Sanitize or SanitizeLine), then write through an ASCIIWriter.
func ascii(sanitize func(string) string) func(string) string {
	return func(in string) string {
		var out strings.Builder
		if _, err := termtext.NewASCIIWriter(&out).Write([]byte(sanitize(in))); err != nil {
			panic(err)
		}
		return out.String()
	}
}

// TestASCIINeverSendsC1 holds the class: under a non-UTF-8 locale no byte
// an 8-bit terminal reads as a control reaches it, and sanitising stays
// idempotent.
func TestASCIINeverSendsC1(t *testing.T) {
	for _, in := range eightBitInputs(t) {
		checkASCII(t, in)
	}
}

func checkASCII(t *testing.T, in string) {
	t.Helper()
	for _, fn := range []struct {
		name    string
		apply   func(string) string
		oneLine bool
	}{{"Sanitize", ascii(termtext.Sanitize), false}, {"SanitizeLine", ascii(termtext.SanitizeLine), true}} {
		out := fn.apply(in)
		if why := eightBitUnsafe(out, fn.oneLine); why != "" {
			t.Fatalf("ASCII %s(%q) = %q: %s", fn.name, in, out, why)
		}
		if again := fn.apply(out); again != out {
			t.Fatalf("ASCII %s is not idempotent on %q: %q then %q", fn.name, in, out, again)
		}
	}
}

func TestASCIIShowsWhatItReplaces(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[2Jhi":       "^[[2Jhi",
		"bell\a":          "bell^G",
		"\x7f":            "^?",
		"\x00\x08\x1f":    "^@^H^_",
		"\u009b31m":       "^[[31m",
		"\x9b31m":         "<U+FFFD>31m",
		"é テ":             "<U+00E9> <U+30C6>",
		"a\u202eb":        "a<U+202E>b",
		"a\r\nb\rc":       "a\nb^Mc",
		"\ttab":           "    tab",
		"plain ascii 123": "plain ascii 123",
	} {
		if got := ascii(termtext.Sanitize)(in); got != want {
			t.Errorf("ASCII Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ascii(termtext.SanitizeLine)("a\nb"); got != "a<CR>b" {
		t.Errorf("ASCII SanitizeLine = %q", got)
	}
}

func FuzzSanitizeASCII(f *testing.F) {
	for _, in := range eightBitInputs(f) {
		f.Add(in[:min(len(in), 4096)])
	}
	f.Fuzz(func(t *testing.T, in string) { checkASCII(t, in) })
}
