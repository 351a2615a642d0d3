package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzTreeMatchesJSON: tree accepts exactly what json.Valid does, and
// decodes what encoding/json decodes with UseNumber (the form gojsonschema
// validates); on anything else it does not panic.
func FuzzTreeMatchesJSON(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{`{"a":1,"a":[2,{"b":"\u00e9\ud800x"}],"c":null}`, `"\xff\"ab"`, `[1.5e3,-0,true,false,{}]`, `[[[`, `{"a"`, `"ab\`, `tru`, `{"a":1}}`, ` 7 `,
		`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `-0.0E-07`, `+1`, "\"a\tb\"", `"\x"`, `"\u12"`, `[1,]`, `{"a":1,}`, `[1 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := tree(data)
		if valid := json.Valid(data); ok != valid {
			t.Fatalf("tree(%q) ok %v, json.Valid %v", data, ok, valid)
		} else if !valid {
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
// reports its syntax error, however the split goes, by parts or whole.
func TestValidateNotJSONAnywhere(t *testing.T) {
	t.Run("whole", testValidateNotJSONAnywhere)
	t.Run("by parts", func(t *testing.T) {
		byPartsAlways(t)
		testValidateNotJSONAnywhere(t)
	})
}

func testValidateNotJSONAnywhere(t *testing.T) {
	for _, doc := range []string{
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","notes":"x\\"},{"test_id":"b"}],"summary":{}}`,
		// The second entry's values were judged in the first: a cut
		// through one of them is still seen.
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","fingerprint_version":12,"automated":{"graders":[{"key":"a:b"}]}},` +
			`{"test_id":"b","verdict":"flaky","fingerprint_version":12,"automated":{"graders":[{"key":"a:b"}]}}]}`,
	} {
		for i := range len(doc) {
			for _, cut := range []string{doc[:i], doc[:i] + "}", doc[:i] + "x" + doc[i:]} {
				if _, err := Validate([]byte(cut)); err == nil && !json.Valid([]byte(cut)) {
					t.Fatalf("Validate(%q) finds no syntax error", cut)
				}
			}
		}
	}
}

// FuzzValidateSyntax: Validate reports a syntax error exactly when data is
// not JSON, though it checks the syntax of a document's entries as it
// reads them rather than of the whole.
func FuzzValidateSyntax(f *testing.F) {
	byPartsAlways(f) // the whole path reads entries as tree does (FuzzTreeMatchesJSON)
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{`[{"verdict":"flaky"},{"verdict":"flaky"x}]`, `[{"a":1,"b":[1]},{"a":1 2,"b":[1]2}]`, `[{},{}]`, `[{} {}]`, `[{},]`, `[,{}]`, `[{}}`, `[{"a":01}]`, `[{"a":"\t"}]`, `[{}] ,`, `[{}]}x`, `[1 ,2 ]`} {
		f.Add([]byte(minimal + `,"per_case":` + s + `}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Validate(data)
		_, syntax := errors.AsType[*SyntaxError](err)
		if syntax == json.Valid(data) {
			t.Fatalf("Validate(%q) error %v, json.Valid %v", data, err, json.Valid(data))
		}
	})
}

// An entry as deep as encoding/json allows is JSON, one level deeper is not.
func TestValidateEntryDepth(t *testing.T) {
	for _, depth := range []int{maxDepth - 3, maxDepth - 2} { // the document, per_case and the entry hold the brackets
		doc := []byte(minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","x":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}]}`)
		_, err := Validate(doc)
		if _, syntax := errors.AsType[*SyntaxError](err); syntax == json.Valid(doc) {
			t.Errorf("depth %d: Validate error %v, json.Valid %v", depth, err, json.Valid(doc))
		}
	}
}
