package feedback

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// pattern is a schema pattern: a regexp, matched without it when the
// pattern is simple (see simplePattern), as the light validator checks
// a pattern on every entry (fingerprint's 64 hex digits) and the regexp
// engine spends most of a light read there.
type pattern struct {
	re       *regexp.Regexp
	contains string  // a literal found anywhere, when that is the pattern
	steps    *[]step // a simple anchored pattern; nil: use re
}

func compilePattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re}
	p.contains, p.steps = simplePattern(expr)
	return p, nil
}

func (p *pattern) match(b []byte) bool {
	switch {
	case p.contains != "":
		return bytes.Contains(b, []byte(p.contains))
	case p.steps != nil:
		return matchSteps(*p.steps, b)
	}
	return p.re.Match(b)
}

func (p *pattern) matchString(s string) bool {
	switch {
	case p.contains != "":
		return strings.Contains(s, p.contains)
	case p.steps != nil:
		// The bytes of s, read only: no copy of a long string.
		return matchSteps(*p.steps, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	return p.re.MatchString(s)
}

// step is one part of a simple pattern: a literal, or count bytes of an
// ASCII class (count -1: one or more, up to the end). A fixed run of at
// least eight bytes of a class of a few ranges also has them as words (see
// inClass), so that it (a fingerprint's 64 hex digits) is checked eight
// bytes at a time.
type step struct {
	literal []byte
	class   *[128]bool
	ranges  *[maxRanges]wordRange // nil: the class has too many ranges, check a byte at a time
	count   int
}

// wordRange is a class's range lo-hi as the words inClass adds: a byte of
// the range carries into its high bit with from, and not with past. The
// zero wordRange holds no byte.
type wordRange struct{ from, past uint64 }

// maxRanges is how many ranges a class checked a word at a time has at
// most: two (hex digits, letters) cost half the instructions of four.
const maxRanges = 2

// simplePattern matches as regexp does on valid UTF-8 when expr is a
// literal found anywhere (contains), or is anchored at both ends and made
// of literals and ASCII classes repeated a fixed number of times, the last
// perhaps one or more times (steps: ^sha256:[0-9a-f]{64}$,
// ^agentv-review/v[0-9]+$); neither otherwise. The light validator's strings are valid UTF-8 (invalid
// bytes become U+FFFD as they are read), on which a rune of an ASCII class
// is one byte and a literal's runes are its UTF-8 bytes.
func simplePattern(expr string) (contains string, steps *[]step) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", nil
	}
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 {
		return string(re.Rune), nil
	}
	subs := re.Sub
	if re.Op != syntax.OpConcat || len(subs) < 2 || subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return "", nil
	}
	var list []step
	for i, s := range subs[1 : len(subs)-1] {
		last := i == len(subs)-3
		switch {
		case s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0:
			list = append(list, step{literal: []byte(string(s.Rune))})
		case s.Op == syntax.OpCharClass:
			if c := asciiClass(s); c != nil {
				list = append(list, step{class: c, count: 1})
				continue
			}
			return "", nil
		case s.Op == syntax.OpRepeat && s.Min == s.Max && s.Sub[0].Op == syntax.OpCharClass,
			s.Op == syntax.OpPlus && last && s.Sub[0].Op == syntax.OpCharClass:
			c := asciiClass(s.Sub[0])
			if c == nil {
				return "", nil
			}
			count := s.Min
			if s.Op == syntax.OpPlus {
				count = -1
			}
			st := step{class: c, count: count}
			if count >= 8 { // a run matchSteps checks a word at a time
				st.ranges = wordRanges(s.Sub[0])
			}
			list = append(list, st)
		default:
			return "", nil
		}
	}
	return "", &list
}

// matchSteps tells whether b is the text steps describe.
func matchSteps(steps []step, b []byte) bool {
	i := 0
	for _, st := range steps {
		switch {
		case st.class == nil:
			if len(b)-i < len(st.literal) {
				return false
			}
			for _, c := range st.literal {
				if b[i] != c {
					return false
				}
				i++
			}
		case st.count < 0:
			if i == len(b) {
				return false
			}
			for ; i < len(b); i++ {
				if c := b[i]; c >= utf8.RuneSelf || !st.class[c] {
					return false
				}
			}
		default:
			if len(b)-i < st.count {
				return false
			}
			end := i + st.count
			if st.ranges != nil {
				for ; i+8 <= end; i += 8 {
					if !inClass(st.ranges, word(b, i)) {
						return false
					}
				}
			}
			for ; i < end; i++ {
				if c := b[i]; c >= utf8.RuneSelf || !st.class[c] {
					return false
				}
			}
		}
	}
	return i == len(b)
}

// asciiClass is the table of a character class of ASCII runes only, nil
// for any other class.
func asciiClass(re *syntax.Regexp) *[128]bool {
	var c [128]bool
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi >= utf8.RuneSelf {
			return nil
		}
		for r := lo; r <= hi; r++ {
			c[r] = true
		}
	}
	return &c
}

// wordRanges is the words of the ranges of an ASCII character class, nil
// when it has more than maxRanges.
func wordRanges(re *syntax.Regexp) *[maxRanges]wordRange {
	if len(re.Rune) > 2*maxRanges {
		return nil
	}
	var rs [maxRanges]wordRange
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := uint64(re.Rune[i]), uint64(re.Rune[i+1])
		rs[i/2] = wordRange{from: (0x80 - lo) * ones, past: (0x7f - hi) * ones}
	}
	return &rs
}

// inClass tells whether every byte of w is in one of the ranges rs of an
// ASCII class (lo-hi, 0 <= lo <= hi < 0x80). A byte c below 0x80 plus
// 0x80-lo reaches 0x80 exactly when c >= lo, plus 0x7f-hi exactly when
// c > hi, and neither sum passes 0xff, so no byte carries into the next.
func inClass(rs *[maxRanges]wordRange, w uint64) bool {
	in := (w+rs[0].from)&^(w+rs[0].past) | (w+rs[1].from)&^(w+rs[1].past)
	// A byte of 0x80 or more (of a multi-byte rune) is in no class, and
	// what it carries into the next byte does not matter then.
	return in&^w&highs == highs
}

// word is the eight bytes of b at i, the first the lowest.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }
