package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"agentv-review/plugin/internal/jsonnum"
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
	for _, r := range append(skimEdgeRows, skimBlockRows()...) {
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
		}
		if err != nil || wantErr != nil {
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

// skimBlockRows are rows whose strings hold, at every offset from 50 to
// 69 (across stringRun's 16- and 32-byte spans and a 64-byte boundary), an
// escape, a run of backslashes, a raw control character or a quote, each
// row also cut short there: kept and skipped strings, member names.
func skimBlockRows() []string {
	var rows []string
	for _, special := range []string{`\n`, `\\`, `\\\\\\`, `\\\"`, `\u00e9`, `\ud83d\ude00`, `\u12g4`, `\q`, "\x01", "\xff", `é`, `\`, `"`} {
		for pad := 50; pad < 70; pad += 3 {
			fill := strings.Repeat("p", pad)
			for _, row := range []string{
				`{"test_id":"` + fill + special + `x","score":1}`,
				`{"` + fill[:pad-2] + `":"` + special + `","score":0.5,"target":"t` + special + `"}`,
				`{"score":1,"scores":[{"name":"` + fill + special + `","input":{"p":"` + fill + special + fill + `"}}]}`,
				`{"score":1,"x":["` + fill[:pad-8] + `",{"` + special + `":1}]}`,
			} {
				rows = append(rows, row, row[:pad+len(special)-1], row[:pad+15])
			}
		}
	}
	return rows
}

// foldedKey tells whether line has a member name that encoding/json would
// fold into a row field's (testID for testId): AgentV and skimRow match
// names exactly.
func foldedKey(line []byte) bool {
	d := json.NewDecoder(bytes.NewReader(line))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		k, ok := tok.(string)
		if !ok {
			continue
		}
		for _, typ := range []reflect.Type{reflect.TypeFor[rowWire](), reflect.TypeFor[graderWire](), reflect.TypeFor[repeatWire]()} {
			for f := range typ.Fields() {
				if name := f.Tag.Get("json"); name != k && strings.EqualFold(name, k) {
					return true
				}
			}
		}
	}
}

// emptyNil sets w's empty lists to nil: encoding/json makes [] an empty
// slice, skimRow leaves it nil, and no reader of a rowWire tells them apart.
func emptyNil(w rowWire) rowWire {
	for _, l := range []*[]graderWire{&w.Scores, &w.EvaluatorResults} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	for _, l := range []*[]repeatWire{&w.Samples, &w.Attempts, &w.Trials} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return w
}

// FuzzSkimRow: skimRow accepts exactly the JSON objects encoding/json
// accepts and decodes them as json.Unmarshal does, with the same first
// mistyped field.
func FuzzSkimRow(f *testing.F) {
	for _, r := range append(skimEdgeRows, skimBlockRows()...) {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, gotField, err := skimRow(line)
		if trimmed := bytes.TrimSpace(line); len(trimmed) == 0 || trimmed[0] != '{' {
			if err == nil {
				t.Fatalf("accepted %q, not an object", line)
			}
			return
		}
		if valid := json.Valid(line); valid != (err == nil) {
			t.Fatalf("%q: error %v, json.Valid %v", line, err, valid)
		}
		want, wantField, _ := oracle(line)
		switch {
		case err != nil || foldedKey(line):
		case strings.HasSuffix(wantField, ".sample") || strings.HasSuffix(wantField, ".attempt"):
			// 15.0 is an integer to AgentV and skimRow, not to encoding/json.
		case gotField != wantField:
			t.Fatalf("%q: mistyped field %q, encoding/json says %q", line, gotField, wantField)
		case wantField == "" && !reflect.DeepEqual(emptyNil(got), emptyNil(want)):
			t.Fatalf("%q: decoded\n%+v\nencoding/json:\n%+v", line, got, want)
		}
	})
}

// hasWide tells whether b has a byte above 0x7f.
func hasWide(b []byte) bool { return bytes.ContainsFunc(b, func(r rune) bool { return r >= 0x80 }) }

// TestStringEndEveryPosition puts each kind of byte that needs a look at
// every position of a string longer than two 64-byte spans, so every stage
// of the scan (the first word, stringRun's 32 and 16 bytes at a time, then
// byte by byte) meets it.
func TestStringEndEveryPosition(t *testing.T) {
	for _, special := range []string{"\x00", "\x1f", "\x7f", "\xff", `\n`, `\u00e9`, `\q`, `\u12g4`, `\`, "\t", `\"`, `\\`, `\\\`, "\x22"} {
		for pos := range 140 {
			body := bytes.Repeat([]byte("abcdefghijklmnopqrstu"), 7)[:pos]
			body = append(append(body, special...), "vwxyz0123"...)
			want := json.Valid(append(append([]byte{'"'}, body...), '"'))
			end, ok, escaped := stringEnd(append(body, '"'), 0)
			if got := ok && end == len(body); got != want {
				t.Errorf("%q: valid %v, encoding/json says %v", body, got, want)
			}
			if want && escaped != bytes.Contains(body, []byte(`\`)) {
				t.Errorf("%q: escaped %v", body, escaped)
			}
		}
	}
}

// FuzzLiteralEnd: literalEnd ends where the run of literal bytes ends and
// accepts it when it is true, false, null or a number (jsonnum.Valid),
// from any byte of any input.
func FuzzLiteralEnd(f *testing.F) {
	for _, s := range []string{"0", "-0.5e+10,", "1.5e", "0123", "1.", "-", "true", "nulll", "0.017710000000000004}", "1E5x", "2e-3]"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i >= len(b) {
			return
		}
		want := i
		for want < len(b) && isLiteralByte(b[want]) {
			want++
		}
		lit := string(b[i:want])
		wantOK := lit == "true" || lit == "false" || lit == "null" || jsonnum.Valid(lit)
		if end, ok := literalEnd(b, i); end != want || ok != wantOK {
			t.Fatalf("literalEnd(%q, %d) = %d, %v; want %d, %v", b, i, end, ok, want, wantOK)
		}
	})
}
