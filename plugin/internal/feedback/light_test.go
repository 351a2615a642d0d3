package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"agentv-review/schema"
)

func mustLight(t testing.TB) *node {
	t.Helper()
	root, err := lightSchema()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// FuzzLightMatchesFull: the light read path accepts exactly what the full
// validator (gojsonschema plus the duplicate rule) accepts, and decodes to
// what the full path decodes. The one documented difference: a document
// with a repeated key is left to the full path
// (Load then reads it again), so the light pass may reject it; so may it
// a value its Go field cannot hold (a count of 1e20), which the full path
// fails to decode as well.
func FuzzLightMatchesFull(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	for _, s := range lightCases {
		f.Add([]byte(s.doc))
	}
	root := mustLight(f)
	huge := regexp.MustCompile(`[eE][+-]?0*[0-9]{4}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if huge.Match(data) {
			t.Skip("gojsonschema takes minutes over an exponent such as 1e1000000000")
		}
		problems, verr := Validate(data)
		full := verr == nil && len(problems) == 0
		light, ok := parseLight(root, bytes.NewReader(data))
		if ok && !full {
			t.Fatalf("light accepts what the full validator rejects (%v %v)", verr, problems)
		}
		if !ok && full {
			if _, err := parse("feedback.json", data); err == nil && !repeatsKey(data) {
				t.Fatalf("light rejects a valid document the full path decodes")
			}
		}
		if !ok || !full {
			return
		}
		want, err := parse("feedback.json", data)
		if err != nil {
			return // the old decoder fails on numbers such as 15.0 for an integer; Load does not
		}
		a, errA := Encode(light)
		b, errB := Encode(want)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("light and full decode differ (%v %v):\n%s\n---\n%s", errA, errB, a, b)
		}
	})
}

// repeatsKey tells whether data repeats a key in an object.
func repeatsKey(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys     map[string]bool
		wantsKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.wantsKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k], top.wantsKey = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantsKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantsKey = true
		}
	}
}

const head = `{"run_id":"r","reviewer":"a","timestamp":"2026-01-01T00:00:00Z"`

var lightCases = []struct {
	name, doc string
	valid     bool
}{
	{"minimal", head + `}`, true},
	// A key is predicted from the last object's: an escaped spelling, a
	// longer or a shorter key is told apart.
	{"keys spelt otherwise", head + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"test\u005fid":"b","verd\u0069ct":"flaky"}]}`, true},
	{"key longer than the last", head + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"test_idx":"b","test_id":"b","verdict":"flaky"}]}`, true},
	{"key shorter than the last", head + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"test_i":"b","verdict":"flaky"}]}`, false},
	{"key needing an escape, then without it", head + `,"per_case":[{"test_id":"a","verdict":"flaky","x\ny":1},{"test_id":"b","verdict":"flaky","x` + "\n" + `y":1}]}`, false},
	{"keys in another order", head + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"verdict":"flaky","test_id":"b"}]}`, true},
	// The text around a member or element is taken when it is the last
	// object's or array's at that place (see takes): what follows it is
	// still checked, and text like it but not it is read afresh.
	{"same text, then a required key missing", head + ",\"per_case\":[\n {\"test_id\": \"a\",\n  \"verdict\": \"flaky\"\n },\n {\"test_id\": \"b\"\n },\n {\"test_id\": \"c\",\n  \"verdict\": \"flaky\"\n }]}", false},
	{"same text, then a trailing comma", head + ",\"per_case\":[\n {\"test_id\": \"a\",\n  \"verdict\": \"flaky\"},\n {\"test_id\": \"b\",\n  \"verdict\": \"flaky\",\n }]}", false},
	{"same text, then an element missing", head + ",\"per_case\":[\n {\"test_id\": \"a\", \"verdict\": \"flaky\"},\n ,\n {\"test_id\": \"b\", \"verdict\": \"flaky\"}]}", false},
	{"an empty array after a full one", head + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"graders":[ {"key":"t:n"} ]}},{"test_id":"b","verdict":"flaky","automated":{"graders":[ ]}}]}`, true},
	{"more space, less space, another key", head + ",\"per_case\":[\n {\"test_id\": \"a\",\n  \"verdict\": \"flaky\"\n },\n  {\"test_id\":  \"b\",\n  \"verdict\":\"flaky\"\n  } ,\n {\"test_id\": \"c\",\n  \"notes\": \"flaky\",\n  \"verdict\": \"flaky\"\n }\n]}", true},
	{"same text, then a key for another field", head + ",\"per_case\":[\n {\"test_id\": \"a\",\n  \"verdict\": \"flaky\"},\n {\"test_id\": \"b\",\n  \"verdict\": 1}]}", false},
	{"integer written 15.0", head + `,"summary":{"cases":15.0,"reviewed":1e1,"skipped":0}}`, true},
	{"fraction for an integer", head + `,"summary":{"cases":1.5}}`, false},
	{"negative count", head + `,"summary":{"cases":-1}}`, false},
	{"score out of 0..1 (a reviewable row)", head + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"score":1.5}}]}`, true},
	{"score not a number", head + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"score":"1"}}]}`, false},
	{"case-folded key is unknown, so per_case stays empty", head + `,"per_CAse":[{"verdict":"nope"}]}`, true},
	{"missing required", `{"run_id":"r","reviewer":"a"}`, false},
	{"bad enum", head + `,"per_case":[{"test_id":"a","verdict":"great"}]}`, false},
	{"bad pattern", head + `,"schema_version":"v1"}`, false},
	{"bad date-time", `{"run_id":"r","reviewer":"a","timestamp":"yesterday"}`, false},
	{"date only is a date-time to the schema library", `{"run_id":"r","reviewer":"a","timestamp":"2026-01-01"}`, true},
	{"repeated signal", head + `,"per_case":[{"test_id":"a","verdict":"flaky","signals":["flaky_results","flaky_results"]}]}`, false},
	{"unknown verdict key in summary", head + `,"summary":{"verdicts":{"great":1}}}`, false},
	{"duplicate entries", head + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"test_id":"a","verdict":"flaky"}]}`, false},
	{"null grader score", head + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"graders":[{"key":"t:n","score":null,"pass":null}]}}]}`, true},
	{"grader key without colon", head + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"graders":[{"key":"tn"}]}}]}`, false},
	{"override not a string", head + `,"per_case":[{"test_id":"a","verdict":"flaky","evaluator_overrides":{"t:n":1}}]}`, false},
	{"escapes and surrogates", head + `,"overall_notes":"\u00e9\ud83d\ude00\ud800 \"q\"\n"}`, true},
	{"surrogates that do not pair", head + `,"overall_notes":"\ud800\ud800\udc00\udc00\ud800\n\ud800\u0041"}`, true},
	{"trailing data", head + `} x`, false},
	{"not json", `{"run_id":`, false},
	{"leading zero", head + `,"summary":{"cases":01}}`, false},
}

func TestLightCases(t *testing.T) {
	root := mustLight(t)
	for _, tt := range lightCases {
		problems, err := Validate([]byte(tt.doc))
		full := err == nil && len(problems) == 0
		_, light := parseLight(root, bytes.NewReader([]byte(tt.doc)))
		if full != tt.valid || light != tt.valid {
			t.Errorf("%s: full validator %v (%v %v), light %v; want %v", tt.name, full, err, problems, light, tt.valid)
		}
	}
}

// A key repeated in an object whose text up to the key is the last
// object's is still told: the light pass leaves the document to the full
// path, as any repeated key.
func TestLightRepeatedKeyAfterSameText(t *testing.T) {
	doc := head + ",\"per_case\":[\n {\"test_id\": \"a\",\n  \"verdict\": \"flaky\"},\n {\"test_id\": \"b\",\n  \"test_id\": \"b\",\n  \"verdict\": \"flaky\"}]}"
	if _, ok := parseLight(mustLight(t), bytes.NewReader([]byte(doc))); ok || !repeatsKey([]byte(doc)) {
		t.Fatalf("light pass accepts a repeated key (%v)", ok)
	}
}

// A reader that hands out one byte at a time crosses every buffer
// boundary (strings, escapes, numbers, captured unknown fields).
func TestLightOneByteReads(t *testing.T) {
	doc := head + `,"x":{"a":[1,-12.5e-3,"\u00e9"]},"per_case":[{"test_id":"a\\b","verdict":"flaky","automated":{"score":0.125,"new":[true]}}]}`
	want, ok := parseLight(mustLight(t), strings.NewReader(doc))
	got, ok2 := parseLight(mustLight(t), &oneByte{r: strings.NewReader(doc)})
	if !ok || !ok2 {
		t.Fatalf("light rejects: %v %v", ok, ok2)
	}
	a, _ := Encode(want)
	b, _ := Encode(got)
	if !bytes.Equal(a, b) || !strings.Contains(string(b), `"new": [`) || !strings.Contains(string(b), `"score": 0.125`) || !strings.Contains(string(b), `-12.5e-3`) {
		t.Errorf("one-byte reads decode to\n%s\nwant\n%s", b, a)
	}
}

type oneByte struct{ r *strings.Reader }

func (o *oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// Unknown fields survive a rewrite at every level, nested objects included.
func TestUnknownFieldsSurviveEverywhere(t *testing.T) {
	doc := `{"run_id":"r","reviewer":"a","timestamp":"2026-01-01T00:00:00Z","top":1,
	"tool":{"name":"x","t":1},"scope":{"mode":"all","s":2},"summary":{"cases":1,"reviewed":1,"skipped":0,"m":3},
	"per_case":[{"test_id":"a","verdict":"flaky","c":4,
		"automated":{"score":0.5,"a":5,"graders":[{"key":"t:n","score":1,"pass":true,"g":6}]},
		"carried_from":{"run_id":"old","cf":7},"flaky_evidence":{"runs":"P F","fe":8}}]}`
	path := t.TempDir() + "/feedback.json"
	f, ok := parseLight(mustLight(t), strings.NewReader(doc))
	if !ok {
		t.Fatal("light rejects")
	}
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := Encode(again)
	for _, field := range []string{"top", "t", "s", "m", "c", "a", "g", "cf", "fe"} {
		if !strings.Contains(string(out), `"`+field+`": `) {
			t.Errorf("field %q lost on rewrite:\n%s", field, out)
		}
	}
	// The old decoder (json.Unmarshal) keeps them too.
	var viaJSON File
	if err := json.Unmarshal([]byte(doc), &viaJSON); err != nil {
		t.Fatal(err)
	}
	if b, _ := Encode(&viaJSON); !bytes.Equal(b, out) {
		t.Errorf("json.Unmarshal and Load differ:\n%s\n---\n%s", b, out)
	}
}

func TestCompileLightRefusesUnknownKeywords(t *testing.T) {
	if _, err := compileLight(schema.JSON); err != nil {
		t.Fatalf("embedded schema: %v", err)
	}
	for _, s := range []string{
		`{"type":"object","properties":{"x":{"multipleOf":2}}}`,
		`{"$ref":"http://example.com/s.json"}`,
		`{"$ref":"#/definitions/missing"}`,
		`{"enum":[1]}`,
		`{"properties":{"x":{"$ref":"#/definitions/d","type":"string"}},"definitions":{"d":{}}}`,
	} {
		if _, err := compileLight([]byte(s)); err == nil {
			t.Errorf("compileLight(%s) accepts it", s)
		}
	}
}

// A rejected file is explained by the full validator: file, line, field.
func TestLoadRejectionNamesLineAndField(t *testing.T) {
	path := t.TempDir() + "/feedback.json"
	doc := "{\n" + `"run_id":"r","reviewer":"a","timestamp":"2026-01-01T00:00:00Z",` + "\n" + `"per_case":[` + "\n" + `{"test_id":"a","verdict":"great"}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var legacy *LegacyError
	if err == nil || errors.As(err, &legacy) || !strings.Contains(err.Error(), ":4") || !strings.Contains(err.Error(), "per_case.0.verdict") {
		t.Errorf("Load error = %v, want line 4 and per_case.0.verdict", err)
	}
}
