package feedback

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzTreeMatchesJSON: on JSON, tree decodes what encoding/json decodes
// with UseNumber (the form gojsonschema validates); on anything else it
// does not panic.
func FuzzTreeMatchesJSON(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{`{"a":1,"a":[2,{"b":"\u00e9\ud800x"}],"c":null}`, `"\xff\"ab"`, `[1.5e3,-0,true,false,{}]`, `[[[`, `{"a"`, `"ab\`, `tru`, `{"a":1}}`, ` 7 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := tree(data)
		if !json.Valid(data) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("tree %#v (ok %v), encoding/json %#v (%v)", got, ok, want, err)
		}
	})
}

// Validate splits a document that is not JSON without panicking and
// reports its syntax error, however the split goes.
func TestValidateNotJSONAnywhere(t *testing.T) {
	doc := []byte(minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","notes":"x\\"},{"test_id":"b"}],"summary":{}}`)
	for i := range len(doc) {
		for _, cut := range [][]byte{doc[:i], append(append([]byte{}, doc[:i]...), '}')} {
			if _, err := Validate(cut); err == nil && !json.Valid(cut) {
				t.Fatalf("Validate(%q) finds no syntax error", cut)
			}
		}
	}
}
