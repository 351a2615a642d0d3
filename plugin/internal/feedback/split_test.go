package feedback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// splitDocs are indented documents for the segmented decode: duplicates,
// unknown fields, nested unknown arrays of objects, escapes, strays and
// invalid entries.
func splitDocs(t *testing.T) map[string][]byte {
	t.Helper()
	entries := []string{
		`{"test_id":"a","suite":"core","target":"gpt","verdict":"acceptable","reviewer_kind":"agent",
		  "automated":{"score":0.5,"outcome":"failed","graders":[{"key":"regex:x","score":0,"pass":false},{"key":"llm-grader:j","score":null,"pass":null}]}}`,
		`{"test_id":"b","target":"claude","verdict":"flaky","x":[{"y":[{"z":1}]},{"w":"},\n{"}],"automated":{"outcome":"passed"}}`,
		`{"test_id":"zz","verdict":"incorrect","notes":"\"q\" \\ \u00e9 ,\n {"}`,
		`{"test_id":"c","suite":"extra","verdict":"needs_improvement","unknown":{"deep":{"deeper":[1,2,{"k":"v"}]}}}`,
		`{"test_id":"c","verdict":"acceptable"}`,
		`{"test_id":"b","suite":"core","target":"gpt","verdict":"incorrect","automated":{"score":1,"graders":[{"key":"t:n","score":1,"pass":true}]}}`,
	}
	doc := func(es ...string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"run_id":"r","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z","per_case":[`)
		for i, e := range es {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e)
		}
		b.WriteString(`],"tool":{"name":"agentv-review"},"summary":{"cases":5,"reviewed":1,"skipped":0}}`)
		var out bytes.Buffer
		if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
			t.Fatalf("%v\n%s", err, b.Bytes())
		}
		return out.Bytes()
	}
	return map[string][]byte{
		"valid":                doc(entries...),
		"duplicate entries":    doc(append(entries, entries[0])...),
		"bad verdict at end":   doc(append(entries, `{"test_id":"q","verdict":"great"}`)...),
		"bad verdict at start": doc(append([]string{`{"test_id":"q","verdict":"great"}`}, entries...)...),
		"repeated key":         doc(entries[0], `{"test_id":"q","verdict":"flaky","verdict":"flaky"}`, entries[1]),
		"not an entry":         doc(entries[0], `[{"test_id":"q","verdict":"flaky"}]`, entries[1]),
		"empty":                doc(),
	}
}

// decodeWith decodes data with segments guessed at starts; used is how
// many counted.
func decodeWith(t *testing.T, data []byte, starts []int64) (v *View, used int, ok bool) {
	t.Helper()
	v = newView(viewRun)
	f, parts, used, ok := decodeParts(bytes.NewReader(data), int64(len(data)), mustLight(t), starts, viewRun)
	if !ok || !v.mergeParts(parts) {
		return v, used, false
	}
	v.File = f
	return v, used, true
}

// viewOf is what a View tells: the file, the strays, and each case's entry.
func viewOf(v *View) []any {
	out := []any{v.File, v.Unmatched, v.Ambiguous, v.Shadowed}
	for i := range v.byCase {
		out = append(out, v.Entry(i))
	}
	return out
}

// The segmented decode reads exactly what the sequential one reads,
// wherever the segments are guessed to start: at an entry, inside one, in
// a nested array, in a string, or past per_case.
func TestSplitMatchesSequential(t *testing.T) {
	for name, data := range splitDocs(t) {
		t.Run(name, func(t *testing.T) {
			want, _, wantOK := decodeWith(t, data, nil)
			if name == "valid" && !wantOK {
				t.Fatal("the sequential decode rejects the valid document")
			}
			most := 0 // the most segments that counted in one decode
			check := func(starts ...int64) {
				got, used, ok := decodeWith(t, data, starts)
				if ok != wantOK || ok && !reflect.DeepEqual(viewOf(got), viewOf(want)) {
					t.Fatalf("segments at %v: ok %v, view %+v; want %v, %+v", starts, ok, got, wantOK, want)
				}
				most = max(most, used)
			}
			var braces []int64
			for o := range int64(len(data)) {
				check(o)
				if data[o] == '{' {
					braces = append(braces, o)
				}
			}
			if name == "valid" {
				for i, a := range braces {
					for _, b := range braces[i+1:] {
						check(a, b)
					}
				}
			}
			check(braces...)
			if wantOK && name != "empty" && most < 2 {
				t.Errorf("at most %d segment(s) counted", most)
			}
		})
	}
}

// Of an indented file, guessStarts picks entries of per_case, not grader
// results or other nested objects.
func TestGuessStartsPicksEntries(t *testing.T) {
	f := &File{RunID: "r", Reviewer: "a", Timestamp: "2026-01-01T00:00:00Z"}
	for i := range 400 {
		f.PerCase = append(f.PerCase, Case{TestID: fmt.Sprint("t", i), Verdict: Flaky,
			Automated: &Automated{Graders: []GraderResult{{Key: "a:b"}, {Key: "c:d"}, {Key: "e:f"}}}})
	}
	data, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	starts := guessStarts(bytes.NewReader(data), int64(len(data)), 4)
	if len(starts) != 3 {
		t.Fatalf("guessed %d starts, want 3", len(starts))
	}
	for _, o := range starts {
		if line := data[bytes.LastIndexByte(data[:o], '\n')+1 : o+1]; string(line) != "    {" {
			t.Errorf("start at %d is %q, not an entry", o, line)
		}
	}
	if got := guessStarts(strings.NewReader(string(data)), int64(len(data)), 1); got != nil {
		t.Errorf("one part: starts %v", got)
	}
}
