package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

var summaryDocs = []string{
	`{"index_path":".internal/index.jsonl","run_id":"r1"}`,
	`{"manifest_path":"m.jsonl","x":{"run_id":"nested, not top-level"},"run_id":"top"}`,
	` { "counts" : { "total_tests" : 3 , "ids" : [ "a\"b" , "c\\" , -1.5e3 , true , null , [ ] , { } ] } , "index_path" : "i\u00e9\n.jsonl" } `,
	`{"run_id":"a","run_id":"b","index_path":null}`,
	`{"metadata":{"eval_file":"e","timestamp":"2026-07-06T11:31:44.780Z","targets":["t"]},"run_summary":{"timestamp":"not this"}}`,
	`{"timestamp":"top","metadata":{"x":{"timestamp":"deeper"}},"metadata":{"timestamp":"second"}}`,
	`{"metadata":{"timestamp":7}}`, `{"metadata":"x"}`, `{"metadata":null,"run_id":"r"}`, `{"metadata":[{"timestamp":"t"}]}`,
	`{"run_id":5,"index_path":"kept"}`,
	`{"index_path":["x"],"run_id":{"a":1}}`,
	"{\"run_id\":\"bad\xff\"}",
	`{}`,
	`{"a":[1 2]}`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":tru}`, `{"a":"x}`, `{"a":1}x`, `{"a":"\x"}`, `{"a":"\u12"}`,
	`[]`, `"s"`, `1`, ``, `{`, `{"a":[}`, `{"a":]}`, `{"a":1]`, `{"a":{"b":2}}}`,
}

// TestDecodeSummaryMatchesEncodingJSON: the streamed decoder fills and
// refuses what json.Unmarshal does, whatever the read sizes.
func TestDecodeSummaryMatchesEncodingJSON(t *testing.T) {
	for _, doc := range summaryDocs {
		var want summaryWire
		wantErr := json.Unmarshal([]byte(doc), &want)
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader([]byte(doc)),
			"bytewise": iotest.OneByteReader(bytes.NewReader([]byte(doc))),
		} {
			got, malformed, readErr := decodeSummary(r)
			if readErr != nil {
				t.Fatalf("%s %q: read error %v", name, doc, readErr)
			}
			if (malformed != nil) != (wantErr != nil) {
				t.Errorf("%s %q: malformed %v, encoding/json %v", name, doc, malformed, wantErr)
			}
			if got != want {
				t.Errorf("%s %q: got %+v, want %+v", name, doc, got, want)
			}
		}
	}
}

// FuzzDecodeSummary: on any input the streamed decoder agrees with
// encoding/json on validity and on the three strings (keys that differ
// only in case are left out: encoding/json folds them, AgentV does not).
func FuzzDecodeSummary(f *testing.F) {
	for _, d := range summaryDocs {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if bytes.ContainsFunc(doc, func(r rune) bool { return r < 0x20 && r != ' ' && r != '\t' && r != '\n' && r != '\r' }) {
			t.Skip("raw control characters: skipped strings are not checked for them")
		}
		for _, key := range []string{"index_path", "manifest_path", "run_id", "metadata", "timestamp"} {
			if bytes.Count(bytes.ToLower(doc), []byte(key)) != bytes.Count(doc, []byte(key)) {
				t.Skip("a key in another case: encoding/json folds it")
			}
		}
		var want summaryWire
		wantErr := json.Unmarshal(doc, &want)
		if trimmed := bytes.TrimSpace(doc); wantErr == nil && (len(trimmed) == 0 || trimmed[0] != '{') {
			// encoding/json takes null for an empty object; a summary that
			// is not an object is malformed (AgentV would fail to read it).
			wantErr = errors.New("not a JSON object")
		}
		got, malformed, _ := decodeSummary(iotest.HalfReader(bytes.NewReader(doc)))
		if (malformed != nil) != (wantErr != nil) {
			if _, typed := wantErr.(*json.UnmarshalTypeError); !typed || malformed == nil {
				t.Fatalf("%q: malformed %v, encoding/json %v", doc, malformed, wantErr)
			}
		}
		if wantErr == nil && got != want {
			t.Fatalf("%q: got %+v, want %+v", doc, got, want)
		}
	})
}
