package feedback

import (
	"math/rand/v2"
	"regexp"
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
