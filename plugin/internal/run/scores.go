package run

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decodeScores decodes a row's scores[] value as json.Unmarshal into a
// []scoreRecord does, its error ignored (a mistyped part is left unset),
// but with the skimmer: the grader prompts in scores[].input are most of a
// row, and encoding/json walks them through its state machine twice (once
// to validate, once to decode). A grader whose members encoding/json
// would match otherwise than by exact, unrepeated keys — a key that
// differs from a field only in case, a field given twice (encoding/json
// decodes the second into the first's value) — is left to encoding/json.
func decodeScores(raw []byte, sk *skimmer) []scoreRecord {
	var out []scoreRecord
	decodeScoresIn(&out, raw, sk, true)
	return out
}

// decodeScoresIn is decodeScores into *list, whose room it reuses (an
// empty list may then be that room, where decodeScores has nil). Unless
// full, it decodes only what Task.fromPrompts reads, prompt and Scores,
// when the skimmer can (Name, Type and Input are then left unset): by the
// same rules, so the records, their prompts and nesting are decodeScores'.
func decodeScoresIn(list *[]scoreRecord, raw []byte, sk *skimmer, full bool) {
	*list = (*list)[:0]
	if len(raw) == 0 {
		return
	}
	sk.b, sk.i, sk.depth = raw, 0, 0
	if ok, err := sk.scoreList(list, full); ok && err == nil {
		return
	}
	*list = nil
	_ = json.Unmarshal(raw, list)
	withPrompts(*list, sk)
}

// withPrompts sets the prompt of each of scores (and of their children)
// from its Input, for records encoding/json decoded.
func withPrompts(scores []scoreRecord, sk *skimmer) {
	for i := range scores {
		scores[i].prompt = sk.promptString(scores[i].Input)
		withPrompts(scores[i].Scores, sk)
	}
}

// scoreFields are scoreRecord's json tags, in the order of its fields.
var scoreFields = [...]string{"name", "type", "details", "input", "scores"}

// scoreList reads the array at s.i into *dst (null or another kind: nil),
// each record in full or only its prompt and Scores (see decodeScoresIn).
// ok is false when a grader needs encoding/json (see decodeScores).
func (s *skimmer) scoreList(dst *[]scoreRecord, full bool) (ok bool, err error) {
	if s.peek() != '[' {
		*dst = nil
		return true, s.skip()
	}
	ok = true
	err = s.array(func() error {
		*dst = append(*dst, scoreRecord{})
		if !ok || s.peek() != '{' { // null or a mistyped element: zero
			return s.skip()
		}
		v := &(*dst)[len(*dst)-1] // nothing else appends to *dst meanwhile
		var seen [len(scoreFields)]bool
		return s.object(func(key []byte) error {
			f := fieldOf(key, scoreFields[:])
			if f < 0 {
				return s.skip()
			}
			if f >= len(scoreFields) || seen[f] {
				ok = false
			}
			if !ok {
				return s.skip()
			}
			seen[f] = true
			switch field := scoreFields[f]; {
			case field == "input": // read once for its bytes and its prompt
				s.ws()
				start := s.i
				p, err := s.prompt()
				if v.prompt = p; full {
					v.Input = s.b[start:s.i]
				}
				return err
			case field == "scores":
				nested, err := s.scoreList(&v.Scores, full)
				ok = ok && nested
				return err
			case field == "details":
				return s.raw(&v.Details)
			case !full && s.peek() == '"': // checked as str checks it, not kept
				_, err := s.rawString()
				return err
			case field == "name":
				return s.str(&v.Name, "name")
			}
			return s.str(&v.Type, "type")
		})
	})
	return ok, err
}

// fieldOf is the index in tags of key; len(tags) when key matches a tag
// only as strings.EqualFold does (as encoding/json matches keys to
// fields), -1 when it matches none.
func fieldOf[K string | []byte](key K, tags []string) int {
	for i, t := range tags {
		if string(key) == t {
			return i
		}
	}
	ascii := true
	for i := range len(key) {
		ascii = ascii && key[i] < 0x80
	}
	for _, t := range tags {
		// An ASCII key folds to an ASCII tag only of its length.
		if (!ascii || len(key) == len(t)) && strings.EqualFold(string(key), t) {
			return len(tags)
		}
	}
	return -1
}

// raw reads any value into *dst as json.RawMessage decodes it: its bytes,
// "null" included. They alias the skimmer's input.
func (s *skimmer) raw(dst *json.RawMessage) error {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return err
	}
	*dst = s.b[start:s.i]
	return nil
}

var promptField = []string{"userPrompt"}

// promptString is the userPrompt of a grader's input, as json.Unmarshal of
// input into a struct { UserPrompt string `json:"userPrompt"` } reads it,
// but not decoded: the JSON string, quotes included (see stringOf).
// It is nil when that read gives "" for want of a string (input missing
// or not an object, a userPrompt that is not a string).
func (s *skimmer) promptString(input []byte) []byte {
	s.b, s.i, s.depth = input, 0, 0
	p, err := s.prompt()
	if err != nil {
		return nil
	}
	return p
}

// prompt reads the value at s.i, a grader's input, and returns its
// userPrompt as promptString does.
func (s *skimmer) prompt() ([]byte, error) {
	if s.peek() != '{' {
		return nil, s.skip()
	}
	var p []byte
	bad := false
	err := s.object(func(key []byte) error {
		if fieldOf(key, promptField) < 0 {
			return s.skip()
		}
		switch s.peek() {
		case '"': // the last one wins
			start := s.i
			if _, err := s.rawString(); err != nil {
				return err
			}
			p = s.b[start:s.i]
			return nil
		case 'n': // null leaves the value as it is
		default:
			bad = true
		}
		return s.skip()
	})
	if bad {
		return nil, err
	}
	return p, err
}

// stringOf is the JSON string v (a value checkRow accepted) as
// json.Unmarshal decodes it into a string; ok is false for another kind
// (null and nil included). A long string with escapes (a grader prompt)
// is unescaped in one pass, not by encoding/json, which checks the whole
// value again first.
func stringOf(v json.RawMessage) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	if t, ok := unescape(body); ok {
		return t, true
	}
	var t string
	if json.Unmarshal(v, &t) != nil {
		return "", false
	}
	return t, true
}

// unescape decodes the body of a JSON string (between its quotes, its
// escapes checked by rawString) as encoding/json does: bad UTF-8 and lone
// surrogates become U+FFFD. ok is false for what it does not expect.
func unescape(raw []byte) (string, bool) {
	b := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		n := bytes.IndexByte(raw, '\\')
		if n < 0 {
			n = len(raw)
		}
		b = appendValid(b, raw[:n])
		if raw = raw[n:]; len(raw) == 0 {
			break
		}
		if len(raw) < 2 {
			return "", false
		}
		switch c := raw[1]; c {
		case '"', '\\', '/':
			b = append(b, c)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(raw)
			if r < 0 {
				return "", false
			}
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				if dec := utf16.DecodeRune(r, hex4(raw)); dec != utf8.RuneError {
					r, raw = dec, raw[6:]
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", false
		}
		raw = raw[2:]
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true // b is not written to again
}

// appendValid appends p to b, each byte of bad UTF-8 as U+FFFD.
func appendValid(b, p []byte) []byte {
	if utf8.Valid(p) {
		return append(b, p...)
	}
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		b, p = utf8.AppendRune(b, r), p[n:]
	}
	return b
}

// hex4 is the rune of the \uXXXX escape p starts with, -1 if none.
func hex4(p []byte) rune {
	if len(p) < 6 || p[0] != '\\' || p[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range p[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
