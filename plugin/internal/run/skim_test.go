package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// oracle decodes a row with encoding/json, which skimRow must match.
// Keys differing only in case are left out of the inputs: encoding/json
// folds them, AgentV (and skimRow) does not.
func oracle(line []byte) (rowWire, string, error) {
	var w rowWire
	err := json.Unmarshal(line, &w)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return w, te.Field, nil
	}
	return w, "", err
}

var skimEdgeRows = []string{
	`{"test_id":"a\"b\\c\u00e9\ud83d\ude00","score":1}`,
	"{\"test_id\":\"bad\xff\",\"suite\":\"ok\",\"score\":1}",
	`{"test_id":null,"score":1,"scores":null,"variant":null,"samples":null}`,
	`{"score":1,"target":7,"scores":[1,{"name":"x","score":"y","pass":"no"}],"attempts":[{"attempt":1.5,"verdict":"pass"}]}`,
	`{"score":1,"score":0.5,"scores":[{"name":"a"}],"scores":[],"test_id":"x","test_id":"y"}`,
	`{"score":1,"x":{"a":[1,{"b":"\"}]"}],"c":true,"d":null,"e":-1.5e-3},"y":[[],{}],"z":"\\"}`,
	`{"test\u005fid":"escaped key","score":1E2}`,
	`{"score":-0.5e-3,"samples":[{"sample":2,"sample_path":"sample-2","score":0,"status":"failed"}],"trials":[{"attempt":0,"run_path":"run-1","verdict":"fail"}]}`,
	`{"score":1e999}`,
	`{"score":"0.9","test_id":"s"}`,
	` { "score" : 0 , "evaluator_results" : [ { "name" : "k" , "verdict" : "pass" , "weight" : 2 } ] } `,
	`{"testId":"c","executionStatus":"ok","evalPath":"e","failureStage":"agent","workspacePath":"/w","resultDir":"r","artifactDir":"a","gradingPath":"g","score":0}`,
	`{"eval_id":"e","dataset":"d","eval_set":"s","error":"boom","file_changes_path":"f","score":0.2,"scores":[{"pass":true,"pass":null}]}`,
}

func skimCorpusLines(t testing.TB) [][]byte {
	t.Helper()
	var lines [][]byte
	files, _ := filepath.Glob(filepath.Join(corpus, "runs", "*", "index.jsonl"))
	more, _ := filepath.Glob("../../../../shared/fixtures/agentv-upstream/*/*.jsonl")
	files = append(files, more...)
	more, _ = filepath.Glob("../../../../shared/fixtures/agentv-upstream/*/*/*index.jsonl")
	files = append(files, more...)
	more, _ = filepath.Glob("../../../../shared/fixtures/agentv-upstream/*/*/.internal/index.jsonl")
	files = append(files, more...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	}
	if len(lines) < 61 {
		t.Fatalf("only %d corpus lines", len(lines))
	}
	for _, r := range skimEdgeRows {
		lines = append(lines, []byte(r))
	}
	return lines
}

func TestSkimRowMatchesEncodingJSON(t *testing.T) {
	for i, line := range skimCorpusLines(t) {
		want, wantField, wantErr := oracle(line)
		got, gotField, err := skimRow(line)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("line %d: err %v, encoding/json %v\n%.300s", i, err, wantErr, line)
			continue
		}
		// On a type error encoding/json still allocates the pointer (a
		// mistyped "pass" becomes &false); skimRow leaves it nil. Compare
		// the reported field only.
		if gotField != wantField || wantField == "" && !reflect.DeepEqual(got, want) {
			t.Errorf("line %d: type error %q, want %q\n got %+v\nwant %+v\n%.300s", i, gotField, wantField, got, want, line)
		}
	}
}

func TestSkimRowRejects(t *testing.T) {
	for _, line := range []string{
		`{"score":1,,}`, `{"score":1`, `{"score":01}`, `{"score":1.}`, `{"score":tru}`, `{"a" 1}`, `{"score":1}x`,
		`{"s":"unterminated}`, `{"s":[1 2]}`, `{1:2}`, `{"score":-}`, `{"x":` + string(bytes.Repeat([]byte("["), maxDepth+1)),
	} {
		if _, _, err := skimRow([]byte(line)); err == nil {
			t.Errorf("%.60s: accepted", line)
		}
		if json.Valid([]byte(line)) {
			t.Errorf("%.60s: test line is valid JSON", line)
		}
	}
}

// FuzzSkimRow: skimRow never panics and accepts every JSON object
// encoding/json accepts.
func FuzzSkimRow(f *testing.F) {
	for _, r := range skimEdgeRows {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_, _, err := skimRow(line)
		if trimmed := bytes.TrimSpace(line); err != nil && json.Valid(line) && len(trimmed) > 0 && trimmed[0] == '{' {
			t.Errorf("rejected valid object %q: %v", line, err)
		}
	})
}

// TestStringEndEveryPosition puts each kind of byte that needs a look at
// every position of a string longer than two 32-byte blocks, so every stage
// of stringRun (32 and 16 bytes at a time, then byte by byte) meets it.
func TestStringEndEveryPosition(t *testing.T) {
	for _, special := range []string{"\x00", "\x1f", "\x7f", "\xff", `\n`, `\u00e9`, `\q`, `\u12g4`, `\`, "\t", `\"`, `\\`, "\x22"} {
		for pos := range 70 {
			body := bytes.Repeat([]byte("abcdefghijklmnopqrstu"), 4)[:pos]
			body = append(append(body, special...), "vwxyz0123"...)
			want := json.Valid(append(append([]byte{'"'}, body...), '"'))
			end, ok, _ := stringEnd(append(body, '"'), 0)
			if got := ok && end == len(body); got != want {
				t.Errorf("%q: valid %v, encoding/json says %v", body, got, want)
			}
		}
	}
}
