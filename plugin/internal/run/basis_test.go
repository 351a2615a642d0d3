package run

import (
	"encoding/json"
	"reflect"
	"testing"
)

var textSeeds = []string{
	`{"test_id":"a","output_path":"o/answer.md","input_path":"in\u0070ut.md","answer_path":null,"responsePath":"r.md"}`,
	`{"output":[{"role":"assistant","content":"hi <b>"}],"input":"q","answer":null,"output_text":1,"candidate_answer":{"x":[1, 2]}}`,
	`{"Output":"folded","output":"exact"}`,
	`{"INPUT_PATH":"folded.md"}`,
	`{"outputPath":"camel.md","output_path":3}`,
	`{"output_path":"bad \xff utf8","input":"\u00e9"}`,
	`{"ſcores":[],"output_text":"s"}`,
	`{}`,
}

// TestTextOfLikeDecodeRow: where textOf decodes the answer and input
// fields itself, it finds what decodeRow does.
func TestTextOfLikeDecodeRow(t *testing.T) {
	for _, s := range textSeeds {
		checkTextOf(t, []byte(s))
	}
}

func FuzzTextOf(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkTextOf(t, line) })
}

func checkTextOf(t *testing.T, line []byte) {
	t.Helper()
	var sk skimmer
	if !json.Valid(line) {
		return
	}
	m, err := sk.members(line)
	if err != nil {
		return // not an object
	}
	normalize(m)
	var want, got rowFull
	if err := (&Run{}).decodeRow(&Case{}, m, textFields, &want); err != nil {
		t.Fatal(err)
	}
	if !textOf(m, &got, &sk) {
		return // decodeRow decodes it
	}
	for i, g := range textMembers(&got) {
		w := textMembers(&want)[i]
		if g.path != nil && *g.path != *w.path {
			t.Errorf("%q: %s = %q, want %q", line, g.name, *g.path, *w.path)
		}
		if g.raw != nil && !sameJSON(*g.raw, *w.raw) {
			t.Errorf("%q: %s = %s, want %s", line, g.name, *g.raw, *w.raw)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
