package feedback

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/prompts"
	"agentv-review/schema"
)

func TestValidateDocumentedExample(t *testing.T) {
	data, err := os.ReadFile("testdata/agentv-documented.json")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Validate(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Validate(documented example) = %v, %v; want valid", problems, err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, c := range f.PerCase {
		verdicts = append(verdicts, c.Verdict)
	}
	if want := []string{Acceptable, NeedsImprovement, Incorrect, Flaky}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts = %v, want one of each: %v", verdicts, want)
	}
	if got := f.PerCase[1].EvaluatorOverrides["llm-grader:judge"]; got != "too strict on phrasing" {
		t.Errorf("evaluator_overrides = %q", got)
	}
}

const minimal = `{"run_id":"r","reviewer":"ann","timestamp":"2026-03-14T12:00:00.000Z"`

func TestValidateAcceptsUnknownFields(t *testing.T) {
	data := minimal + `,"from_the_future":{"x":[1,2]},"per_case":[{"test_id":"a","verdict":"flaky","confidence":0.3}]}`
	problems, err := Validate([]byte(data))
	if err != nil || len(problems) > 0 {
		t.Fatalf("Validate = %v, %v; want valid", problems, err)
	}
}

func TestValidateAcceptsEveryExtension(t *testing.T) {
	score, pass := 0.5, false
	f := &File{
		RunID: "r", Reviewer: "ann", Timestamp: "2026-03-14T12:00:00.000Z",
		SchemaVersion: SchemaVersion, Tool: &Tool{Name: "agentv-review", Version: "0.1.0"},
		ReviewerKind: Human, Scope: &Scope{Mode: "filter", Filter: "target=gpt"}, RunPath: "runs/r",
		Previous: "feedback.history/feedback.2026-03-13T12-00-00.000Z.json",
		Summary:  &Summary{Cases: 3, Reviewed: 1, Skipped: 1, Verdicts: map[string]int{Flaky: 1}},
		PerCase: []Case{{
			TestID: "a", Verdict: Flaky, Target: "gpt", Variant: "v2", Suite: "core",
			Signals:    []string{"flaky_results", "false_positive"},
			ReviewedAt: "2026-03-14T11:59:00.000Z", Reviewer: "bot", ReviewerKind: Agent,
			Automated: &Automated{
				Score: &score, Outcome: "failed", ExecutionStatus: "quality_failure",
				Graders: []GraderResult{{Key: "contains:has-42", Score: &score, Pass: &pass}, {Key: "llm-grader:judge"}},
				Samples: "P F ?",
			},
			Fingerprint:   "sha256:" + strings.Repeat("ab", 32),
			CarriedFrom:   &CarriedFrom{RunID: "r0", ReviewedAt: "2026-03-01T00:00:00Z", Reviewer: "ann"},
			FlakyEvidence: &FlakyEvidence{Samples: "P F P", Runs: "P P F"},
			Stale:         true,
		}},
	}
	if _, err := Encode(f); err != nil {
		t.Fatal(err)
	}
}

func TestValidateProblems(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string // "path: start of message"
	}{
		{"missing run_id", `{"reviewer":"a","timestamp":"2026-01-01T00:00:00Z"}`,
			[]string{"run_id: required field is missing"}},
		{"bad verdict", minimal + `,"per_case":[{"test_id":"a","verdict":"meh"}]}`,
			[]string{"per_case.0.verdict: must be one of the following"}},
		{"missing verdict", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky"},{"test_id":"b"}]}`,
			[]string{"per_case.1.verdict: required field is missing"}},
		{"override not a string", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","evaluator_overrides":{"llm-grader:judge":3}}]}`,
			[]string{"per_case.0.evaluator_overrides.llm-grader:judge: invalid type"}},
		{"signal not in enum", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","signals":["false_positive","vibes"]}]}`,
			[]string{"per_case.0.signals.1: must be one of the following"}},
		{"repeated signal", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","signals":["false_positive","false_positive"]}]}`,
			[]string{"per_case.0.signals: array items[0,1] must be unique"}},
		{"per_case not array", minimal + `,"per_case":{"test_id":"a"}}`,
			[]string{"per_case: invalid type"}},
		{"timestamp not a date", `{"run_id":"r","reviewer":"a","timestamp":"yesterday"}`,
			[]string{"timestamp: does not match format 'date-time'"}},
		{"not an object", `[]`, []string{"(root): invalid type"}},
		{"bad fingerprint", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","fingerprint":"md5:00"}]}`,
			[]string{"per_case.0.fingerprint: does not match pattern"}},
		{"score not a number", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","automated":{"score":"high"}}]}`,
			[]string{"per_case.0.automated.score: invalid type"}},
		{"duplicate beside a broken entry", minimal + `,"per_case":[{"test_id":"a","verdict":"flaky"},"junk",{"test_id":7,"verdict":"flaky"},{"test_id":"a","verdict":"incorrect"}]}`,
			[]string{"per_case.1: invalid type", "per_case.2.test_id: invalid type", "per_case.3: duplicate of per_case.0"}},
		{"duplicate key, sorted numerically", minimal + `,"per_case":[` +
			strings.Repeat(`{"test_id":"x","verdict":"flaky"},`, 10) +
			`{"test_id":"a","verdict":"flaky","target":"t"},{"test_id":"a","verdict":"incorrect","target":"t"},{"test_id":"a","verdict":"flaky"}]}`,
			[]string{
				"per_case.1: duplicate of per_case.0", "per_case.2: duplicate of per_case.0", "per_case.3: duplicate of per_case.0",
				"per_case.4: duplicate of per_case.0", "per_case.5: duplicate of per_case.0", "per_case.6: duplicate of per_case.0",
				"per_case.7: duplicate of per_case.0", "per_case.8: duplicate of per_case.0", "per_case.9: duplicate of per_case.0",
				"per_case.11: duplicate of per_case.10",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := Validate([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("got %d problems %v, want %d: %v", len(problems), problems, len(tt.want), tt.want)
			}
			for i, p := range problems {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, p, tt.want[i])
				}
			}
		})
	}
}

func TestValidateSyntaxError(t *testing.T) {
	tests := []struct {
		data      string
		line, col int
	}{
		{"{\n  \"run_id\": \"r\",\n  reviewer: 1\n}", 3, 3},
		{"{\n  \"run_id\": \"r\",\n", 2, 16},
		{"", 1, 1},
		{"{} {}", 1, 4},
	}
	for _, tt := range tests {
		problems, err := Validate([]byte(tt.data))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Validate(%q) = %v, %v; want *SyntaxError", tt.data, problems, err)
			continue
		}
		if se.Line != tt.line || se.Column != tt.col {
			t.Errorf("Validate(%q): line %d column %d, want %d:%d (%v)", tt.data, se.Line, se.Column, tt.line, tt.col, se)
		}
	}
}

// The schema's enums are the catalog's ids: one vocabulary for the session,
// the docs and the file.
func TestSchemaEnumsMatchCatalog(t *testing.T) {
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Scope struct {
				Properties struct{ Mode struct{ Enum []string } }
			}
		}
		Definitions struct {
			Verdict struct{ Enum []string }
			Case    struct {
				Properties struct {
					Signals struct{ Items struct{ Enum []string } }
				}
			}
		}
	}
	if err := json.Unmarshal(schema.JSON, &s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		schema, id []string
	}{
		{"verdicts", s.Definitions.Verdict.Enum, prompts.IDs(cat.Verdicts)},
		{"signals", s.Definitions.Case.Properties.Signals.Items.Enum, prompts.IDs(cat.Signals)},
		{"scopes", s.Properties.Scope.Properties.Mode.Enum, prompts.IDs(cat.Scopes)},
	} {
		if !slices.Equal(c.schema, c.id) {
			t.Errorf("%s: schema %v, prompts/review.json %v", c.name, c.schema, c.id)
		}
	}
}

// Every property the schema declares is documented and is a field of the
// Go types, and every Go field is in the schema.
func TestSchemaMatchesTypes(t *testing.T) {
	var s struct {
		Properties  map[string]map[string]any
		Definitions struct {
			Case struct{ Properties map[string]map[string]any }
		}
	}
	if err := json.Unmarshal(schema.JSON, &s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		props map[string]map[string]any
		keys  map[string]bool
	}{
		{"top level", s.Properties, fileKeys},
		{"per_case", s.Definitions.Case.Properties, caseKeys},
	} {
		for name, prop := range c.props {
			if _, ok := prop["description"]; !ok && name != "verdict" {
				t.Errorf("%s: %s has no description", c.name, name)
			}
			if !c.keys[name] {
				t.Errorf("%s: schema property %s is not a Go field", c.name, name)
			}
		}
		for k := range c.keys {
			if _, ok := c.props[k]; !ok {
				t.Errorf("%s: Go field %s is not in the schema", c.name, k)
			}
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	f := &File{RunID: "r", Reviewer: "ann", Timestamp: FormatTime(benchTime)}
	score := 0.75
	for i := range 1000 {
		f.PerCase = append(f.PerCase, Case{
			TestID: fmt.Sprintf("case-%04d", i), Verdict: Acceptable, Target: "gpt",
			Notes:              "fine, though the phrasing drifts from the reference",
			EvaluatorOverrides: map[string]string{"llm-grader:judge": "too strict on phrasing"},
			Signals:            []string{"false_negative"},
			ReviewedAt:         FormatTime(benchTime),
			Automated: &Automated{Score: &score, Outcome: "passed", Samples: "P P F",
				Graders: []GraderResult{{Key: "contains:has-answer", Score: &score}}},
			Fingerprint: "sha256:" + strings.Repeat("0f", 32),
		})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		problems, err := Validate(data)
		if err != nil || len(problems) > 0 {
			b.Fatal(problems, err)
		}
	}
}

// validateWhole is Validate without the split: the whole document against
// the whole schema, then the duplicate rule.
func validateWhole(t *testing.T, data []byte) []Problem {
	t.Helper()
	ss, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := validateWith(ss.whole, data, "")
	if err != nil {
		t.Fatal(err)
	}
	problems = append(problems, duplicates(entryKeys(entriesOf(data)))...)
	sortProblems(problems) // by path, then message: gojsonschema's order within a path is its own
	return problems
}

// FuzzSplitMatchesWhole: validating entry by entry (Validate) finds
// exactly the problems, with the same paths and messages, as validating
// the whole document.
func FuzzSplitMatchesWhole(f *testing.F) {
	if parts, err := compiledParts(); err != nil || parts == nil {
		f.Fatalf("the schema does not split (%v): Validate would not use the entry schema by parts", err)
	}
	byPartsAlways(f)
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{
		minimal + `,"per_case":[{"test_id":"a","verdict":"meh","automated":{"score":2,"graders":[{"score":"x"}]}},{"verdict":"flaky","signals":["vibes","vibes"]},"junk",{"test_id":"b","verdict":"flaky","fingerprint":"md5:0","reviewed_at":"soon"}],"summary":{"cases":-1}}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","target":"t"},{"test_id":"a","verdict":"incorrect","target":"t"},{"test_id":"a","verdict":"flaky"}],"reviewer_kind":"robot"}`,
		`{"per_case":[{"test_id":"a"}],"timestamp":3}`,
		minimal + `,"per_case":null}`,
		minimal + `,"per_case":[1,true,null,"x",[2],{"test_id":"a","verdict":"flaky"},{"test_id":"a","verdict":"flaky"}],"summary":{"cases":1},"z":7}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"x"}],"per\u005fcase":[{"test_id":"a","verdict":"y"}, 3 ],"n":-1.5e3}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky"},7],"per_case":[{"test_id":"b","verdict":"flaky"},{"test_id":"b","verdict":"flaky"},false]}`,
		// Values repeated across entries, judged once by parts: the
		// same problems at each entry's path.
		minimal + `,"per_case":[` + strings.Repeat(`{"test_id":"a","verdict":"meh","automated":{"score":"x","graders":[{"key":"k"}]},"fingerprint_version":0},`, 3) +
			`{"verdict":"meh","test_id":"b","automated": {"score":"x","graders":[{"key":"k"}]}},{"test_id":"c"},{"test_id":"c"},{}]}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","evaluator_overrides":{"Invalid":5,"(root)":1,"a.b":[1]}},` +
			`{"test_id":"b","verdict":"flaky","evaluator_overrides":{"Invalid":5,"(root)":1,"a.b":[1]}}]}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"x","verdict":"flaky"},{"test_id":"b","verdict":"flaky","verdict":"x"},` +
			`{"test_\u0069d":"c","verd\u0069ct":"flaky","test_id":"d","signals":["flaky_results","flaky_results"]},{"test_id":"e","verdict":"flaky","signals":["flaky_results","flaky_results"]}]}`,
		minimal + `,"per_case":[{"zz":1,"test_id":"a","verdict":"meh","yy":{}},{"test_id":"b","zz":1,"verdict":"meh"},{"zz":[],"verdict":"meh","test_id":3}]}`,
		minimal + `,"per_case":[{"test_id":"a","verdict":"flaky","target":7,"reviewed_at":"soon"},{"target":7,"test_id":"a","verdict":"flaky","reviewed_at":"soon"},{"test_id":"a","target":7}]}`,
	} {
		f.Add([]byte(s))
	}
	huge := regexp.MustCompile(`[eE][+-]?0*[0-9]{4}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if huge.Match(data) {
			t.Skip("gojsonschema takes minutes over an exponent such as 1e1000000000")
		}
		got, err := Validate(data)
		if err != nil {
			return // not JSON
		}
		if want := validateWhole(t, data); !slices.Equal(got, want) {
			t.Fatalf("entry by entry:\n%v\nwhole:\n%v", got, want)
		}
	})
}

// TestValidateIsDeterministic: problems gojsonschema reports in Go map
// order (names summary.verdicts may not hold) come out in one order, so
// the same file always gives the same report.
func TestValidateIsDeterministic(t *testing.T) {
	data := []byte(minimal + `,"summary":{"cases":1,"reviewed":1,"verdicts":{"b1":1,"a2":1,"z3":1,"m4":1,"q5":1,"c6":1}},"per_case":[{"test_id":"a","verdict":"flaky"}]}`)
	first, err := Validate(data)
	if err != nil || len(first) < 2 {
		t.Fatalf("Validate = %v, %v; want several problems", first, err)
	}
	for range 50 {
		if again, _ := Validate(data); !slices.Equal(again, first) {
			t.Fatalf("Validate gave\n%v\nthen\n%v", first, again)
		}
	}
}

// TestValidatorPanicIsAnError: gojsonschema dereferences nil on a number
// it cannot parse; validateLoaded reports that as an error naming the
// entry (the parallel entry checks would otherwise end the process).
func TestValidatorPanicIsAnError(t *testing.T) {
	ss, err := compiledSchemas()
	if err != nil || ss.entry == nil {
		t.Fatal(err)
	}
	doc := map[string]any{"test_id": "a", "verdict": json.Number(".5")}
	problems, err := validateLoaded(ss.entry, decoded{gojsonschema.NewGoLoader(nil), doc}, "per_case.3")
	if err == nil || !strings.Contains(err.Error(), "per_case.3") || problems != nil {
		t.Fatalf("validateLoaded = %v, %v; want an error naming per_case.3", problems, err)
	}
}

// TestQueuedPanicNamesTheEntry: when the values of a property validated
// together make gojsonschema panic, each is validated alone, and the error
// names the first entry that fails, as an entry validated alone would.
func TestQueuedPanicNamesTheEntry(t *testing.T) {
	byPartsAlways(t)
	ss, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	r := newEntryResults(ss.entry, 8)
	if r.parts == nil {
		t.Fatal("the schema does not split")
	}
	var tr treeReader
	m := r.memo(&tr)
	p := r.parts.names["verdict"]
	for i, v := range []any{"flaky", json.Number(".5"), json.Number(".5")} {
		m.enqueue(i+4, entryMember{key: "verdict", prop: p, v: v})
	}
	if err := r.flush(&tr, 0); err == nil || !strings.Contains(err.Error(), "per_case.5") {
		t.Fatalf("flush = %v; want an error naming per_case.5", err)
	}
}

// TestQueuedErrorComesFirst: an entry whose bytes are not JSON (an object
// or not), after an earlier entry's queued value that fails, gives the
// earlier entry's error, as validating in order would.
func TestQueuedErrorComesFirst(t *testing.T) {
	byPartsAlways(t)
	ss, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{`{"verdict": }`, `[1`, `{"verdict": "flaky"} x`} {
		r := newEntryResults(ss.entry, 8)
		var tr treeReader
		r.memo(&tr).enqueue(4, entryMember{key: "verdict", prop: r.parts.names["verdict"], v: json.Number(".5")})
		_, err := r.checkRaw(&tr, 0, 5, []byte(raw))
		if err == nil || !strings.Contains(err.Error(), "per_case.4") {
			t.Errorf("checkRaw(%s) after a queued bad value = %v; want the error naming per_case.4", raw, err)
		}
	}
}

// TestEncodeByPartsMatchesValidate: the entries a write validates by parts,
// from the bytes it encodes for them, have the problems Validate finds in
// the bytes written, though most repeat a value judged before: invalid
// ones, in blocks on every core.
func TestEncodeByPartsMatchesValidate(t *testing.T) {
	byPartsAlways(t)
	f := &File{RunID: "r", Reviewer: "a", Timestamp: "2026-01-01T00:00:00Z"}
	for i := range 5*entryBlock + 7 { // notes that do not repeat: a memo stops looking them up
		c := Case{TestID: fmt.Sprintf("t%d", i%500), Verdict: []string{"flaky", "meh", "acceptable"}[i%3], ReviewedAt: []string{"", "soon"}[i%2],
			EvaluatorOverrides: map[string]string{"a:b": "x"}, Notes: fmt.Sprint(i)}
		if i%4 == 0 {
			score := float64(i%7) / 2
			c.Automated = &Automated{Score: &score, Outcome: []string{"passed", "won"}[i%2], Graders: []GraderResult{{Key: "nokey"}, {Key: "a:b"}}}
		}
		f.PerCase = append(f.PerCase, c)
	}
	sameAsEncodingJSON(t, f)
	data, problems, err := encodeChecked(f)
	if want := validateWhole(t, data); err != nil || len(want) == 0 || !reflect.DeepEqual(problems, want) {
		t.Fatalf("a write by parts found %d problems (%v); the whole document has %d", len(problems), err, len(want))
	}
}

// byPartsAlways makes every file with entries validated by parts until t
// ends, however few.
func byPartsAlways(t testing.TB) {
	old := minParts
	minParts = 0
	t.Cleanup(func() { minParts = old })
}
