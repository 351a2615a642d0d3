package run

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDetailAliasesDeterministic: a row with several spellings of its
// test id and suite is read the same way by every Detail call (it used to
// depend on Go's map order and failed about 6 calls in 200).
func TestDetailAliasesDeterministic(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.jsonl":       `{"testId":"camel","eval_id":"legacy","dataset":"d","eval_set":"s","score":1,"gradingPath":"g/grading.json","resultDir":"r","artifact_dir":"a"}` + "\n",
		"g/grading.json":    `{"graders":[{"name":"judge","type":"llm-grader","score":1,"verdict":"pass"}]}`,
		"r/placeholder.txt": "",
	})
	r := mustOpen(t, dir, Options{})
	c := r.Cases[0]
	if c.TestID != "camel" || c.Suite != "d" {
		t.Fatalf("Open: test_id %q suite %q, want camel, d", c.TestID, c.Suite)
	}
	for i := range 200 {
		d, err := r.Detail(c)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if len(d.Graders) != 1 || d.Graders[0].Name != "judge" {
			t.Fatalf("call %d: graders %+v, want judge from gradingPath", i, d.Graders)
		}
	}
}

// TestNullAlias: null is absent for every spelling, in Open and Detail.
func TestNullAlias(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.jsonl":    `{"test_id":null,"testId":"x","suite":null,"dataset":"d","execution_status":null,"executionStatus":"quality_failure","score":1,"grading_path":null,"gradingPath":"g/grading.json"}` + "\n",
		"g/grading.json": `{"graders":[{"name":"judge","type":"llm-grader","score":0,"verdict":"fail"}]}`,
	})
	r := mustOpen(t, dir, Options{})
	c := r.Cases[0]
	if c.TestID != "x" || c.Suite != "d" || c.Outcome != Failed {
		t.Fatalf("Open: test_id %q suite %q outcome %s, want x, d, failed", c.TestID, c.Suite, c.Outcome)
	}
	d, err := r.Detail(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Graders) != 1 {
		t.Fatalf("Detail did not follow gradingPath past a null grading_path: %+v", d.Graders)
	}
	want := []Sidecar{{Field: "grading_path", Path: d.Sidecars[0].Path, Present: true}}
	if !reflect.DeepEqual(d.Sidecars, want) {
		t.Errorf("sidecars %+v, want %+v", d.Sidecars, want)
	}
}

// skimmedSpellings reads, for each rowSpellings field the skimmer decodes,
// the value Open and Detail resolve from a rowWire.
var skimmedSpellings = map[string]func(*rowWire) string{
	"test_id":           func(w *rowWire) string { return w.head().TestID },
	"suite":             func(w *rowWire) string { return w.head().Suite },
	"eval_path":         func(w *rowWire) string { return w.head().EvalPath },
	"execution_status":  func(w *rowWire) string { return w.head().ExecutionStatus },
	"failure_stage":     func(w *rowWire) string { return w.head().FailureStage },
	"workspace_path":    (*rowWire).workspacePath,
	"file_changes_path": (*rowWire).fileChangesPath,
	"result_dir":        (*rowWire).resultDir,
	"artifact_dir":      (*rowWire).resultDir, // when result_dir is absent
	"grading_path":      (*rowWire).gradingPath,
}

// TestRowSpellings: for every pair of spellings of a field, the skimmer
// (Open, and Detail's identity) and normalize (Detail's other fields) pick
// the one rowSpellings puts first, skipping a null or a mistyped value; and
// every spelling of a field the skimmer reads is one it decodes.
func TestRowSpellings(t *testing.T) {
	tags := map[string]bool{}
	rt := reflect.TypeFor[rowWire]()
	for i := range rt.NumField() {
		tags[rt.Field(i).Tag.Get("json")] = true
	}
	for _, names := range rowSpellings {
		read, skimmed := skimmedSpellings[names[0]]
		for _, n := range names {
			if tags[n] != skimmed {
				t.Errorf("%s: the skimmer decodes %s: %v, but reads field %s: %v", n, n, tags[n], names[0], skimmed)
			}
		}
		if valueKind(names[0]) != '"' {
			continue
		}
		for i, first := range names {
			for _, second := range names[i+1:] {
				for _, lose := range []string{`"A"`, `null`, `7`} {
					line := `{"score":1,"` + second + `":"B","` + first + `":` + lose + `}`
					want := map[bool]string{true: "A", false: "B"}[lose == `"A"`]
					var sk skimmer
					m, merr := sk.members([]byte(line), nil, nil)
					if merr != nil {
						t.Fatal(merr)
					}
					normalize(m, sk.renames)
					if got := string(m[names[0]]); got != `"`+want+`"` || len(m) != 2 {
						t.Errorf("%s: normalize gives %s=%s (%d members), want %q", line, names[0], got, len(m), want)
					}
					if !skimmed {
						continue
					}
					w, _, err := checkRow([]byte(line), &skimmer{})
					if err != nil {
						t.Fatal(err)
					}
					if got := read(w); got != want {
						t.Errorf("%s: the skimmer gives %s=%q, want %q", line, names[0], got, want)
					}
				}
			}
		}
	}
	w, _, _ := checkRow([]byte(`{"artifact_dir":"a","result_dir":"r","score":1}`), &skimmer{})
	if got := w.resultDir(); got != "r" {
		t.Errorf("result_dir before artifact_dir: got %q", got)
	}
}

// FuzzOpenDetail: for any row, the identity (test_id, target, variant,
// suite, eval_path) and outcome (score, outcome, execution_status) Open
// computes are what Detail reads, and what encoding/json with rowSpellings
// gives (last duplicate wins, null or a mistyped value is absent) — or Open
// and Detail's decoder both reject the row.
func FuzzOpenDetail(f *testing.F) {
	for _, line := range skimCorpusLines(f) {
		f.Add(string(line))
	}
	f.Add(`{"test_id":null,"testId":"x","score":1}`)
	f.Add(`{"testId":"c","eval_id":"e","dataset":"d","eval_set":"s","score":0.5,"executionStatus":"ok"}`)
	f.Add(`{"test_id":"x","test_id":5,"eval_id":"e","score":1,"target":[],"variant":"v"}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return // one row per input
		}
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": line + "\n"})
		r, err := Open(dir, Options{})
		trimmed := []byte(strings.TrimPrefix(strings.TrimSpace(line), "\ufeff"))
		if err != nil {
			if _, _, rerr := checkRow(trimmed, &skimmer{}); rerr == nil {
				t.Fatalf("Open rejects %q (%v) but Detail's decoder accepts it", line, err)
			}
			return
		}
		c := r.Cases[0]
		if _, err := r.Detail(c); err != nil {
			t.Fatalf("Open accepted %q but Detail fails: %v", line, err)
		}
		var sk skimmer
		w, m, err := r.reread(c, &sk)
		if err != nil {
			t.Fatal(err)
		}
		if got, open := w.head(), headOf(c); got != open {
			t.Fatalf("%q:\n  Open   %+v\n  Detail %+v", line, open, got)
		}
		if want, open := oracleHead(t, m), headOf(c); want != open {
			t.Fatalf("%q:\n  Open          %+v\n  encoding/json %+v", line, open, want)
		}
	})
}

// oracleHead reads the rowHead of a row decoded by encoding/json into m and
// normalised, applying AgentV's outcome rule.
func oracleHead(t *testing.T, m map[string]json.RawMessage) rowHead {
	str := func(name string) string {
		var s string
		if v, ok := m[name]; ok && v[0] == '"' {
			if err := json.Unmarshal(v, &s); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	h := rowHead{
		TestID: str("test_id"), Target: str("target"), Variant: str("variant"), Suite: str("suite"),
		EvalPath: str("eval_path"), ExecutionStatus: str("execution_status"), Error: str("error"),
		FailureStage: str("failure_stage"),
	}
	if err := json.Unmarshal(m["score"], &h.Score); err != nil {
		t.Fatal(err)
	}
	switch {
	case h.ExecutionStatus == "execution_error":
		h.Outcome = Errored
	case h.ExecutionStatus == "quality_failure":
		h.Outcome = Failed
	case h.ExecutionStatus == "ok" || h.Score >= 0.8:
		h.Outcome = Passed
	default:
		h.Outcome = Failed
	}
	return h
}
