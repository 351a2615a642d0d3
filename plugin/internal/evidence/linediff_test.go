package evidence

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func render(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(string(c.Op) + c.Line + "\n")
	}
	return b.String()
}

func TestLineDiff(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"", "", ""},
		{"a\nb\n", "a\nb", " a\n b\n"},
		{"a\nb\nc\n", "a\nx\nc\n", " a\n-b\n+x\n c\n"},
		{"a\r\nb\r\n", "a\nb\nc\n", " a\n b\n+c\n"},
		{"", "new\n", "+new\n"},
		{"x\na\nb\nc\ny\n", "z\na\nb\nc\nw\n", "-x\n+z\n a\n b\n c\n-y\n+w\n"},
		{"a\nb\nc\nd\n", "b\nd\n", "-a\n b\n-c\n d\n"},
	}
	for _, tt := range tests {
		if got := render(LineDiff(tt.old, tt.new)); got != tt.want {
			t.Errorf("LineDiff(%q, %q):\n%s\nwant:\n%s", tt.old, tt.new, got, tt.want)
		}
	}
}

// TestLineDiffApplies: on random texts, the diff gives back both texts and
// is no longer than the trivial one.
func TestLineDiffApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var lines []string
		for range rng.IntN(30) {
			lines = append(lines, string(rune('a'+rng.IntN(4))))
		}
		return strings.Join(lines, "\n")
	}
	for range 500 {
		a, b := text(), text()
		cs := LineDiff(a, b)
		var olds, news []string
		for _, c := range cs {
			if c.Op != Add {
				olds = append(olds, c.Line)
			}
			if c.Op != Del {
				news = append(news, c.Line)
			}
		}
		if strings.Join(olds, "\n") != a || strings.Join(news, "\n") != b {
			t.Fatalf("LineDiff(%q, %q) does not apply:\n%s", a, b, render(cs))
		}
		del, add := Counts(cs)
		if del+add > len(splitLines(a))+len(splitLines(b)) {
			t.Fatalf("LineDiff(%q, %q) longer than replacing everything", a, b)
		}
	}
}

func TestLineDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("old " + string(rune('a'+i%26)) + "\n")
		b.WriteString("new " + string(rune('a'+i%26)) + "\n")
	}
	del, add := Counts(LineDiff(a.String(), b.String()))
	if del != 3000 || add != 3000 {
		t.Errorf("counts %d %d, want 3000 3000", del, add)
	}
}

func BenchmarkLineDiff(b *testing.B) {
	var old, new strings.Builder
	for i := range 2000 {
		line := strings.Repeat("word ", 10) + string(rune('a'+i%26)) + "\n"
		old.WriteString(line)
		if i%50 == 0 {
			new.WriteString("changed\n")
		} else {
			new.WriteString(line)
		}
	}
	for b.Loop() {
		LineDiff(old.String(), new.String())
	}
}
