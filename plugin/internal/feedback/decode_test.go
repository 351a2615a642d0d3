package feedback

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// decodeSeeds are entries and objects in every shape decodeKnown must
// take or leave to the slow way: plain, escaped, repeated, case-folded and
// unknown keys, null, numbers as strings, invalid UTF-8, nesting.
var decodeSeeds = []string{
	`{"test_id":"explain-refund-000000","suite":"billing","target":"gpt-5-mini","verdict":"acceptable"}`,
	` {"test_id" : "a" , "verdict":"flaky" } `,
	`{}`, ` { } `, `null`, `[]`, `"x"`, `1`, ``, `{`, `{"test_id":"a",}`, `{"test_id":"a"} x`, `{"test_id":"a"}{}`, `{}x`, `{} {}`, `{"signals"x["a"]}`, `{"test_id":"a"x"verdict":"b"}`,
	`{"test_id":"a","test_id":"b"}`, `{"test_id":"a","Verdict":"x","verdict":"acceptable"}`, `{"Test_ID":"a"}`,
	`{"test\u005fid":"a"}`, `{"test_id":"a\u0000b","notes":"line\nbreak \"quoted\" <&>"}`, `{"notes":"é ü \u00e9"}`,
	"{\"test_id\":\"\xff\"}", "{\"\xff\":1}", "{\"notes\":\"a\x01b\"}", "{\"test_id\":\"a\"}\x00",
	`{"test_id":null,"signals":null,"automated":null,"evaluator_overrides":null}`,
	`{"test_id":"a","signals":["false_positive","x"],"evaluator_overrides":{"regex:a":"n","regex:a":"m"}}`,
	`{"signals":"x"}`, `{"signals":[1]}`, `{"notes":3}`, `{"test_id":true}`, `{"evaluator_overrides":{"a":1}}`,
	`{"fingerprint_version":"2"}`, `{"fingerprint_version":1e2}`, `{"fingerprint_version":1.5}`, `{"fingerprint_version":-0}`,
	`{"fingerprint_version":99999999999999999999}`, `{"stale":"true"}`, `{"stale":true,"stale":false}`,
	`{"automated":{"score":0.5,"outcome":"failed","graders":[{"key":"a:b","score":1,"pass":true}]},"automated":{"outcome":"passed"}}`,
	`{"automated":{"score":"1"}}`, `{"automated":{"graders":[{"key":"a:b","score":null,"pass":null,"x":1}]},"zz":1}`,
	`{"automated":{"Score":1,"samples":"P F"},"test_id":"a"}`, `{"automated":[]}`, `{"automated":{"graders":{}}}`,
	`{"carried_from":{"run_id":"r","RUN_ID":"x"},"flaky_evidence":{"samples":"P F","runs":"a"}}`,
	`{"carried_from":{"run_id":1}}`, `{"test_id":"a","blind_verdict":"acceptable","x_case":{"nested":[1,2.50,null]}}`,
	`{"notes":"` + strings.Repeat("long note ", 1200) + `"}`,
	`{"automated":{"x":` + strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2) + `}}`,
	`{"automated":{"x":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}}`,
	`{"signals":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
	`{"run_id":"r","reviewer":"ann","timestamp":"2026-03-14T12:00:00Z","per_case":[{"test_id":"a","verdict":"flaky"}],` +
		`"tool":{"name":"agentv-review","version":"1"},"scope":{"mode":"spot","seed":7,"sample":3},"summary":{"cases":1,"reviewed":1,"skipped":0,"verdicts":{"flaky":1}}}`,
	`{"scope":{"mode":"all","MODE":"x"},"tool":{"name":1},"summary":{"verdicts":{"a":1,"a":2}},"per_case":[null,{"test_id":"a"},1]}`,
	`{"scope":{"seed":-1},"summary":{"cases":1.5}}`, `{"per_case":[{"test_id":"a","test_id":"b"}]}`,
}

// decoded is what a decoder made of an input: the value, its Extra, the error.
type decoding struct {
	v     any
	extra map[string]json.RawMessage
	err   error
}

// exactTypes are the types unmarshalWithExtra decodes, each with its
// exact names, as the UnmarshalJSON methods use them.
var exactTypes = []struct {
	name  string
	new   func() any
	known map[string]bool
}{
	{"case", func() any { return new(caseFields) }, caseKeys},
	{"file", func() any { return new(fileFields) }, fileKeys},
	{"tool", func() any { return new(Tool) }, keysOf[Tool]()},
	{"scope", func() any { return new(Scope) }, keysOf[Scope]()},
	{"summary", func() any { return new(Summary) }, keysOf[Summary]()},
	{"automated", func() any { return new(Automated) }, keysOf[Automated]()},
	{"grader", func() any { return new(GraderResult) }, keysOf[GraderResult]()},
	{"carried", func() any { return new(CarriedFrom) }, keysOf[CarriedFrom]()},
	{"flaky", func() any { return new(FlakyEvidence) }, keysOf[FlakyEvidence]()},
}

// FuzzDecodeKnownAsByMap: see checkDecodeKnown (go test runs the seeds).
func FuzzDecodeKnownAsByMap(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeKnown)
}

// checkDecodeKnown: unmarshalWithExtra, which decodes an object of known
// names in one pass, gives for any input what unmarshalByMap (the decoding
// it had before) gives: the same Extra and error, for every type, and for
// JSON (all encoding/json passes to an UnmarshalJSON) the same value,
// decoding into a zero value or into one that already holds fields (as
// encoding/json decodes into an existing struct). Nested objects decode
// the same way on both sides, so by induction on nesting the two agree at
// every depth. A Case's UnmarshalJSON, which apply calls on any bytes,
// gives what it gave before and leaves the Case as it was on error;
// json.Unmarshal into a Case (which checks the JSON first) agrees with it.
func checkDecodeKnown(t *testing.T, data []byte) {
	t.Helper()
	prior := []byte(`{"test_id":"p","notes":"n","signals":["s"],"evaluator_overrides":{"k:v":"o"},"automated":{"score":1,"graders":[{"key":"a:b","score":0.5,"pass":false}]},` +
		`"per_case":[{"test_id":"q"}],"name":"t","mode":"all","seed":3,"verdicts":{"flaky":1},"key":"a:b","score":0.25,"pass":true,"run_id":"r","samples":"P"}`)
	for _, typ := range exactTypes {
		for _, start := range [][]byte{nil, prior} {
			got, want := typ.new(), typ.new()
			if start != nil {
				if _, err := unmarshalByMap(start, got, typ.known); err != nil {
					t.Fatalf("%s: prior: %v", typ.name, err)
				}
				unmarshalByMap(start, want, typ.known)
			}
			var g, w decoding
			g.extra, g.err = unmarshalWithExtra(data, got, typ.known)
			w.extra, w.err = unmarshalByMap(data, want, typ.known)
			if json.Valid(data) { // else only the error counts: encoding/json calls UnmarshalJSON with JSON only
				g.v, w.v = got, want
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s from %q: %q gives\n%+v %v %v\nbefore\n%+v %v %v", typ.name, start, data, got, g.extra, g.err, want, w.extra, w.err)
			}
		}
	}
	var before Case
	if err := json.Unmarshal(prior, &before); err != nil {
		t.Fatal(err)
	}
	var cf caseFields
	extra, err := unmarshalByMap(data, &cf, caseKeys)
	want := Case(cf)
	want.Extra = extra
	if err != nil {
		want = before
	}
	got := before
	got.Signals = append([]string(nil), before.Signals...) // not shared with before
	gerr := got.UnmarshalJSON(data)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, err) {
		t.Fatalf("Case.UnmarshalJSON(%q) = %+v, %v; before %+v, %v", data, got, gerr, want, err)
	}
	// encoding/json hands UnmarshalJSON the value without the blanks
	// around it, so an error's Offset may differ: its message may not.
	var viaJSON Case
	if jerr := json.Unmarshal(data, &viaJSON); json.Valid(data) && (fmt.Sprint(jerr) != fmt.Sprint(err) || err == nil && !reflect.DeepEqual(viaJSON, want)) {
		t.Fatalf("json.Unmarshal(%q) = %+v, %v; UnmarshalJSON %+v, %v", data, viaJSON, jerr, want, err)
	}
}

// TestDecodeAnswersAsByMap decodes every line of a JSON Lines file of
// answers, $AGENTV_REVIEW_ANSWERS (the bench's 98k answers.jsonl), both
// ways: the same entries and errors.
func TestDecodeAnswersAsByMap(t *testing.T) {
	path := os.Getenv("AGENTV_REVIEW_ANSWERS")
	if path == "" {
		t.Skip("set AGENTV_REVIEW_ANSWERS to a JSON Lines file of answers")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n := 0
	defer func() {
		if t.Failed() {
			t.Logf("at line %d of %s", n+1, path)
		}
	}()
	for ; sc.Scan(); n++ {
		checkDecodeKnown(t, sc.Bytes()) // as the fuzz target checks each input: every type, from empty and prior values
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d answers decode as before", n)
}
