package feedback

import (
	"encoding/json"
	"unicode/utf8"

	"agentv-review/plugin/internal/jsonnum"
)

// maxDepth is encoding/json's nesting limit: deeper input is not JSON to
// json.Valid.
const maxDepth = 10000

// tree decodes one JSON value as encoding/json decodes it into an any with
// UseNumber (maps, slices, strings, json.Number, bools, nil), the form
// gojsonschema validates. ok is json.Valid(raw): Validate checks the
// syntax of a document's entries as it reads them. On input that is not
// JSON it never panics.
func tree(raw []byte) (v any, ok bool) {
	var t treeReader
	return t.read(raw, 0)
}

// treeReader reads one value after another, sharing the keys, short
// strings and numbers they repeat (values are never changed).
type treeReader struct {
	b                []byte
	i                int
	bad              bool
	keys, strs, nums map[string]any // keys and strings as string, numbers as json.Number
	members          []treeItem     // of the objects being read, innermost last
	memo             *entryMemo     // of the entries it checked by parts (entryResults.checkRaw, checkEncoded)
}

// shareLimit caps the values a treeReader shares.
const shareLimit = 4096

// read reads raw, a value inside depth objects and arrays.
func (t *treeReader) read(raw []byte, depth int) (v any, ok bool) {
	t.b, t.i, t.bad = raw, 0, false
	v = t.value(depth)
	t.space()
	return v, !t.bad && t.i == len(t.b)
}

// share returns b as a value made by mk, the same value for the same
// short b in m.
func share(m *map[string]any, b []byte, mk func(string) any) any {
	if len(b) > 32 {
		return mk(string(b))
	}
	if v, ok := (*m)[string(b)]; ok {
		return v
	}
	v := mk(string(b))
	if *m == nil {
		*m = map[string]any{}
	}
	if len(*m) < shareLimit {
		(*m)[string(b)] = v
	}
	return v
}

func asString(s string) any { return s }
func asNumber(s string) any { return json.Number(s) }

func (t *treeReader) space() { t.i = skipSpace(t.b, t.i) }

// next consumes c, reporting whether it was next.
func (t *treeReader) next(c byte) bool {
	t.space()
	if t.i < len(t.b) && t.b[t.i] == c {
		t.i++
		return true
	}
	return false
}

func (t *treeReader) value(depth int) any {
	t.space()
	if t.i >= len(t.b) || depth >= maxDepth && (t.b[t.i] == '{' || t.b[t.i] == '[') {
		t.bad = true
		return nil
	}
	switch c := t.b[t.i]; c {
	case '{':
		start := len(t.members) // the members are gathered to size the map
		t.object(func(k string) {
			v := t.value(depth + 1)
			t.members = append(t.members, treeItem{k, v})
		})
		members := t.members[start:]
		m := make(map[string]any, len(members))
		for _, it := range members {
			m[it.key] = it.v // the last of a repeated key counts
		}
		clear(members)
		t.members = t.members[:start]
		return m
	case '[':
		t.i++
		a := []any{}
		if t.next(']') {
			return a
		}
		for !t.bad {
			a = append(a, t.value(depth+1))
			if !t.next(',') {
				t.bad = t.bad || !t.next(']')
				break
			}
		}
		return a
	case '"':
		return t.str(&t.strs)
	case 't', 'f', 'n':
		lit, v := "null", any(nil)
		if c == 't' {
			lit, v = "true", true
		} else if c == 'f' {
			lit, v = "false", false
		}
		if len(t.b)-t.i < len(lit) || string(t.b[t.i:t.i+len(lit)]) != lit {
			t.bad = true
		}
		t.i += len(lit)
		return v
	}
	start := t.i
	t.number()
	return share(&t.nums, t.b[start:t.i], asNumber)
}

// object reads the object at t.i, calling member with each member's key
// when its value is next, for member to read the value.
func (t *treeReader) object(member func(key string)) {
	t.i++ // past '{'
	if t.next('}') {
		return
	}
	for !t.bad {
		t.space()
		k, _ := t.str(&t.keys).(string)
		if !t.next(':') {
			t.bad = true
			return
		}
		member(k)
		if !t.next(',') {
			t.bad = t.bad || !t.next('}')
			return
		}
	}
}

// number reads the bytes a number may hold (numClass) and checks them
// with jsonnum.Valid.
func (t *treeReader) number() {
	start := t.i
	for t.i < len(t.b) && numClass[t.b[t.i]] != 0 {
		t.i++
	}
	t.bad = t.bad || !jsonnum.Valid(t.b[start:t.i])
}

// str reads a string: an ASCII one without escapes as it is (shared in
// m), any other as encoding/json does (escapes, U+FFFD for invalid UTF-8),
// which also checks its escapes.
func (t *treeReader) str(m *map[string]any) any {
	if t.i >= len(t.b) || t.b[t.i] != '"' {
		t.bad = true
		return nil
	}
	start := t.i
	// Plain bytes (the light decoder's word-at-a-time scan), then, past
	// the first other byte, one at a time.
	t.i += plain(t.b[start+1:])
	if j := t.i + 1; j < len(t.b) && t.b[j] == '"' {
		t.i = j + 1
		return share(m, t.b[start+1:j], asString)
	}
	asIs := true
	for t.i++; t.i < len(t.b) && t.b[t.i] != '"'; t.i++ {
		if c := t.b[t.i]; c == '\\' {
			asIs = false
			t.i++
		} else if c >= utf8.RuneSelf {
			asIs = false
		} else if c < ' ' {
			t.bad = true // a control character must be escaped
		}
	}
	if t.i >= len(t.b) {
		t.bad = true
		return nil
	}
	t.i++
	if asIs {
		return share(m, t.b[start+1:t.i-1], asString)
	}
	var s string
	if json.Unmarshal(t.b[start:t.i], &s) != nil {
		t.bad = true
	}
	return s
}
