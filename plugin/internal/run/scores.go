package run

import (
	"encoding/json"
	"strings"
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
	if len(raw) == 0 {
		return nil
	}
	sk.b, sk.i, sk.depth = raw, 0, 0
	if ok, err := sk.scoreList(&out); ok && err == nil {
		return out
	}
	out = nil
	_ = json.Unmarshal(raw, &out)
	return out
}

// scoreFields are scoreRecord's json tags, in the order of its fields.
var scoreFields = [...]string{"name", "type", "details", "input", "scores"}

// scoreList reads the array at s.i into *dst (null or another kind: nil).
// ok is false when a grader needs encoding/json (see decodeScores).
func (s *skimmer) scoreList(dst *[]scoreRecord) (ok bool, err error) {
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
			switch scoreFields[f] {
			case "name":
				return s.str(&v.Name, "name")
			case "type":
				return s.str(&v.Type, "type")
			case "details":
				return s.raw(&v.Details)
			case "input":
				return s.raw(&v.Input)
			}
			nested, err := s.scoreList(&v.Scores)
			ok = ok && nested
			return err
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

// userPrompt is the userPrompt of a grader's input, as json.Unmarshal of
// input into a struct { UserPrompt string `json:"userPrompt"` } reads it;
// "" when that fails (input missing or not an object, a userPrompt that
// is not a string).
func (s *skimmer) userPrompt(input []byte) string {
	s.b, s.i, s.depth = input, 0, 0
	if s.peek() != '{' {
		return ""
	}
	var p string
	bad := false
	err := s.object(func(key []byte) error {
		if fieldOf(key, promptField) < 0 {
			return s.skip()
		}
		switch s.peek() {
		case '"':
			return s.str(&p, "userPrompt") // the last one wins
		case 'n': // null leaves the value as it is
		default:
			bad = true
		}
		return s.skip()
	})
	if err != nil || bad {
		return ""
	}
	return p
}
