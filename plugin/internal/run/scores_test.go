package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scoreSeeds are scores[] values with every shape decodeScores handles
// itself or hands to encoding/json.
var scoreSeeds = []string{
	`[{"name":"judge","type":"llm-grader","score":1,"input":{"userPrompt":"[[ ## criteria ## ]]\nok\n\n[[ ## reference_answer ## ]]\n\"yes\"","systemPrompt":"x"},"details":{"n":1}}]`,
	`[{"name":"c","type":"composite","scores":[{"name":"inner","input":{"userPrompt":"[[ ## file_changes ## ]]\ndiff"}}]}]`,
	`[null,"x",1,{"name":null,"type":2,"details":null,"input":null,"scores":null},{"scores":{}}]`,
	`[{"Name":"folded","name":"exact"}]`,
	`[{"name":"a","name":"b"}]`,
	`[{"scores":[{"details":1}],"scores":[{"name":"b"}]}]`,
	`[{"nAmE":"x","DETAILS":[1, 2 ]}]`,
	`[{"ſcores":[{"name":"long s folds to s"}]}]`,
	`[{"na\u006de":"escaped key","type":"t\u00e9"}]`,
	`[{"name":"bad utf8 \xff","in\xffput":{}}]`,
	`[{"input":{"userprompt":"[[ ## criteria ## ]]\nfolded","userPrompt":null}}]`,
	`[{"input":{"userPrompt":"[[ ## criteria ## ]]\na","UserPrompt":3}}]`,
	`[{"input":"[[ ## criteria ## ]]"},{"input":[{"userPrompt":"x"}]}]`,
	` [ { "name" : "spaces" , "input" : { "userPrompt" : "[[ ## criteria ## ]] s" } } ] `,
	`{"name":"not an array"}`, `null`, `"s"`, `[]`, ``,
}

// scoresByJSON is what encoding/json decodes, and the prompts its struct
// decoding reads, for comparison.
func scoresByJSON(raw []byte) ([]scoreRecord, []string) {
	var out []scoreRecord
	_ = json.Unmarshal(raw, &out)
	var prompts []string
	var walk func([]scoreRecord)
	walk = func(ss []scoreRecord) {
		for _, s := range ss {
			var in struct {
				UserPrompt string `json:"userPrompt"`
			}
			if json.Unmarshal(s.Input, &in) != nil {
				in.UserPrompt = ""
			}
			prompts = append(prompts, in.UserPrompt)
			walk(s.Scores)
		}
	}
	walk(out)
	return out, prompts
}

func checkScores(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) && len(raw) > 0 {
		return // a row checkRow accepted holds valid JSON only
	}
	want, wantPrompts := scoresByJSON(raw)
	var sk skimmer
	got := decodeScores(raw, &sk)
	var gotPrompts []string
	var walk func([]scoreRecord)
	walk = func(ss []scoreRecord) {
		for _, s := range ss {
			if string(s.prompt) != string(sk.promptString(s.Input)) {
				t.Errorf("%q: prompt %q, promptString of %q", raw, s.prompt, s.Input)
			}
			p, _ := stringOf(s.prompt)
			gotPrompts = append(gotPrompts, p)
			walk(s.Scores)
		}
	}
	walk(got)
	// RawMessage values are compared as JSON text: encoding/json keeps the
	// same bytes, so they must be equal as they are.
	if !reflect.DeepEqual(normRecords(got), normRecords(want)) {
		t.Errorf("%q:\n got %+v\nwant %+v", raw, got, want)
	}
	if !reflect.DeepEqual(gotPrompts, wantPrompts) {
		t.Errorf("%q: prompts\n got %q\nwant %q", raw, gotPrompts, wantPrompts)
	}
}

// normRecords makes empty and nil slices and RawMessages alike.
func normRecords(ss []scoreRecord) []scoreRecord {
	if len(ss) == 0 {
		return nil
	}
	out := make([]scoreRecord, len(ss))
	for i, s := range ss {
		out[i] = scoreRecord{Name: s.Name, Type: s.Type, Scores: normRecords(s.Scores)}
		if len(s.Details) > 0 {
			out[i].Details = s.Details
		}
		if len(s.Input) > 0 {
			out[i].Input = s.Input
		}
	}
	return out
}

// TestDecodeScoresLikeJSON: the hand-made inputs checkScores must hold
// for beside FuzzDecodeScores's seeds (go test runs those).
func TestDecodeScoresLikeJSON(t *testing.T) {
	// A prompt with every escape encoding/json knows.
	p := `[{"input":{"userPrompt":"[[ ## criteria ## ]]\n\t\"q\" \\ \/ \b\f\r \u00e9 \ud83d\ude00 \ud800 \udc00x \u0000"}}]`
	checkScores(t, []byte(p))
	if got, _ := stringOf((&skimmer{}).promptString([]byte(`{"userPrompt":"a\u00e9\ud83d\ude00"}`))); got != "aé😀" {
		t.Errorf("userPrompt = %q", got)
	}
	// Deep nesting stays within the skimmer's limit, as encoding/json's.
	deep := strings.Repeat(`[{"scores":`, 300) + `[]` + strings.Repeat(`}]`, 300)
	checkScores(t, []byte(deep))
}

func FuzzDecodeScores(f *testing.F) {
	for _, s := range scoreSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkScores(t, raw) })
}

// FuzzUnescape: unescape decodes every JSON string body as encoding/json.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`plain`, `a\nb\t\"c\"\\\/\b\f\r`, `\u00e9\ud83d\ude00`, `\ud800x\udc00\ud800\u0041`, "bad \xff\xfe utf8 \xe2\x82", `\u0000`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		quoted := append(append([]byte{'"'}, body...), '"')
		if !json.Valid(quoted) {
			return
		}
		var want string
		if err := json.Unmarshal(quoted, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := unescape(body); !ok || got != want {
			t.Errorf("unescape(%q) = %q, %v; want %q", body, got, ok, want)
		}
	})
}

// promptTree is what Task.fromPrompts reads of scores: each record's
// prompt, with its children's.
func promptTree(scores []scoreRecord) string {
	var b strings.Builder
	for _, s := range scores {
		fmt.Fprintf(&b, "%q(%s)", s.prompt, promptTree(s.Scores))
	}
	return b.String()
}

// checkPromptScores: decodeScoresIn not full gives the prompts and
// nesting of the full decode, on any bytes (it walks them as the full
// decode does), and fromPrompts of it, from every start it may have, the
// Task fromPromptsByMap finds in the full decode.
func checkPromptScores(t *testing.T, raw []byte) {
	t.Helper()
	var sk skimmer
	full := decodeScores(raw, &sk)
	list := make([]scoreRecord, 0, 1) // the room of a row before
	decodeScoresIn(&list, raw, &sk, false)
	if got, want := promptTree(list), promptTree(full); got != want {
		t.Fatalf("%q: prompts not full %s, full %s", raw, got, want)
	}
	for _, start := range []Task{{}, {Criteria: "c"}, {Expected: "e"}, {FileChanges: "f"}} {
		for _, changes := range []bool{false, true} {
			got, want := start, start
			got.fromPrompts(list, changes)
			fromPromptsByMap(&want, full, changes)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q from %+v, changes %v: Task not full %+v, full by map %+v", raw, start, changes, got, want)
			}
		}
	}
}

// fromPromptsByMap is Task.fromPrompts by the plain reading: each prompt
// decoded whole, its sections by sectionsByMap.
func fromPromptsByMap(t *Task, scores []scoreRecord, changes bool) {
	for _, s := range scores {
		if t.Criteria != "" && t.Expected != "" && (t.FileChanges != "" || !changes) {
			return
		}
		text, _ := stringOf(s.prompt)
		if !strings.Contains(text, sectionOpen) {
			fromPromptsByMap(t, s.Scores, changes)
			continue
		}
		sec := sectionsByMap(text)
		if t.Criteria == "" {
			t.Criteria = sec["criteria"]
		}
		if t.Expected == "" {
			t.Expected = sec["reference_answer"]
		}
		if t.FileChanges == "" && changes {
			t.FileChanges = sec["file_changes"]
		}
	}
}

// FuzzPromptScores checks checkPromptScores from scoreSeeds and the
// scores[] of every fixture row.
func FuzzPromptScores(f *testing.F) {
	for _, s := range scoreSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`[{"name":"bad \x","input":{"userPrompt":"[[ ## criteria ## ]] c"}}]`))
	f.Add([]byte(`[{"type":"t\u00e9","name":3,"input":{"userPrompt":"[[ ## reference_answer ## ]]\u0020e"}},{"name":"x"`))
	for _, raw := range fixtureScores(f) {
		f.Add(raw)
	}
	f.Fuzz(checkPromptScores)
}

// fixtureScores is the scores[] of every row of the fixture manifests.
func fixtureScores(f *testing.F) [][]byte {
	f.Helper()
	paths, err := filepath.Glob("../../../testdata/agentv-4.42.4/runs/*/index.jsonl")
	if err != nil || len(paths) == 0 {
		f.Fatal("no fixture manifests", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			var row struct{ Scores json.RawMessage }
			if json.Unmarshal(line, &row) == nil && row.Scores != nil {
				out = append(out, row.Scores)
			}
		}
	}
	return out
}
