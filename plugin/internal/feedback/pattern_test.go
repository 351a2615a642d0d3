package feedback

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// The simple matchers agree with regexp on every pattern of the schema and
// a few more, over strings built from the patterns' own characters.
func TestSimplePatternMatchesRegexp(t *testing.T) {
	patterns := []string{`^sha256:[0-9a-f]{64}$`, `^agentv-review/v[0-9]+$`, `:`, `^([PFE?]( [PFE?])*)?$`,
		`^a[b-d]{2}é$`, `^x{0}$`, `^[0-9]$`, `^é+$`, `(?i)^ab$`, `^a`, `é`}
	simple := 0
	for _, expr := range patterns {
		p, err := compilePattern(expr)
		if err != nil {
			t.Fatal(err)
		}
		if p.contains != "" || p.steps != nil {
			simple++
		}
		re := regexp.MustCompile(expr)
		alphabet := []rune(strings.Map(func(r rune) rune {
			if strings.ContainsRune(`^$()*+{}[]\?`, r) && r != '?' {
				return -1
			}
			return r
		}, expr) + "0123456789abcdefF é:")
		rng := rand.New(rand.NewPCG(1, uint64(len(expr))))
		tries := []string{"", "sha256:" + strings.Repeat("a", 64), "sha256:" + strings.Repeat("a", 63) + "é", "agentv-review/v12", "P F ?"}
		// Fingerprints with one byte changed at each place: the runs of a
		// class are checked eight bytes at a time.
		hex := []byte("sha256:" + strings.Repeat("0123456789abcdef", 4))
		for k := range hex {
			for _, c := range []string{"g", "A", "é", "\x00", "/", ":"} {
				tries = append(tries, string(hex[:k])+c+string(hex[k+1:]), string(hex[:k])+c+string(hex[k:]))
			}
		}
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(80) {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			tries = append(tries, b.String())
		}
		for _, s := range tries {
			if got, want := p.matchString(s), re.MatchString(s); got != want || p.match([]byte(s)) != want {
				t.Errorf("%s on %q: %v, regexp %v", expr, s, got, want)
			}
		}
	}
	if simple < 6 {
		t.Errorf("%d patterns matched without regexp, want the schema's simple ones at least", simple)
	}
}

// inClass agrees with a class's table on every byte at every place of a
// word, among bytes of the class and random ones, for classes of one to
// maxRanges ranges; a class of more has no words.
func TestInClassMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, expr := range []string{`[0-9a-f]`, `[ac]`, `[\x00-\x7f]`, `[0-9A-Fa-f_]`, `[ -~]`, `[\x00\x02]`, `[\x7e\x7f]`, `[a-zA-Z]`, `[0-9a-z]`} {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		table, ranges := asciiClass(re), wordRanges(re)
		if table == nil {
			t.Fatalf("%s: no table", expr)
		}
		if n := len(re.Rune) / 2; (ranges == nil) != (n > maxRanges) {
			t.Fatalf("%s: %d ranges, words %v", expr, n, ranges)
		}
		if ranges == nil {
			continue
		}
		var members []byte
		for c := range byte(128) {
			if table[c] {
				members = append(members, c)
			}
		}
		check := func(b []byte) {
			want := true
			for _, c := range b {
				want = want && c < 128 && table[c]
			}
			if got := inClass(ranges, word(b, 0)); got != want {
				t.Errorf("%s on %q: %v, table %v", expr, b, got, want)
			}
		}
		for range 200 {
			b := make([]byte, 8)
			for k := range b {
				b[k] = members[rng.IntN(len(members))]
			}
			check(b)
			for k := range b {
				keep := b[k]
				for c := range 256 {
					b[k] = byte(c)
					check(b)
				}
				b[k] = keep
			}
		}
	}
}
