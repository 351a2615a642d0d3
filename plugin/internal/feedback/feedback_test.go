package feedback

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var benchTime = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

func TestFormatTime(t *testing.T) {
	in := time.Date(2026, 3, 14, 13, 0, 0, 123456789, time.FixedZone("CET", 3600))
	if got, want := FormatTime(in), "2026-03-14T12:00:00.123Z"; got != want {
		t.Errorf("FormatTime = %q, want %q", got, want)
	}
}

func TestRoundTripKeepsUnknownFields(t *testing.T) {
	in := `{
  "run_id": "r",
  "reviewer": "ann",
  "timestamp": "2026-03-14T12:00:00Z",
  "per_case": [
    {
      "test_id": "a",
      "verdict": "flaky",
      "notes": "a <b> & c",
      "x_case": {"nested": [1, 2.50, null]}
    }
  ],
  "a_top": "first",
  "z_top": [true]
}
`
	var f File
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Extra) != 2 || len(f.PerCase[0].Extra) != 1 {
		t.Fatalf("Extra = %v, case Extra = %v", f.Extra, f.PerCase[0].Extra)
	}
	f.OverallNotes = "amended"
	out, err := Encode(&f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "run_id": "r",
  "reviewer": "ann",
  "timestamp": "2026-03-14T12:00:00Z",
  "overall_notes": "amended",
  "per_case": [
    {
      "test_id": "a",
      "verdict": "flaky",
      "notes": "a <b> & c",
      "x_case": {
        "nested": [
          1,
          2.50,
          null
        ]
      }
    }
  ],
  "a_top": "first",
  "z_top": [
    true
  ]
}
`
	if string(out) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", out, want)
	}
}

func TestKnownFieldWinsOverExtra(t *testing.T) {
	f := File{RunID: "r", Reviewer: "ann", Timestamp: "2026-03-14T12:00:00Z",
		Extra: map[string]json.RawMessage{"run_id": json.RawMessage(`"stale"`)}}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "stale") {
		t.Errorf("Marshal = %s: Extra overrode a known field", out)
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	f := &File{RunID: "r", Reviewer: "ann", Timestamp: "now", PerCase: []Case{{TestID: "a", Verdict: "meh"}}}
	_, err := Encode(f)
	want := `invalid feedback: per_case.0.verdict: must be one of the following: "acceptable", "needs_improvement", "incorrect", "flaky" (and 1 more problem)`
	if err == nil || err.Error() != want {
		t.Errorf("Encode(invalid) error = %v, want %s", err, want)
	}
}

func TestUpsert(t *testing.T) {
	f := &File{}
	Upsert(f, Case{TestID: "a", Verdict: Flaky})
	Upsert(f, Case{TestID: "a", Target: "gpt", Verdict: Acceptable})
	Upsert(f, Case{TestID: "a", Target: "gpt", Verdict: Incorrect}) // replaces the second
	Upsert(f, Case{TestID: "a", Target: "gpt", Variant: "v2", Verdict: NeedsImprovement})
	var got []string
	for _, c := range f.PerCase {
		got = append(got, c.TestID+"/"+c.Target+"/"+c.Variant+"="+c.Verdict)
	}
	want := "a//=flaky a/gpt/=incorrect a/gpt/v2=needs_improvement"
	if strings.Join(got, " ") != want {
		t.Errorf("PerCase = %v, want %s", got, want)
	}
}

func TestNilIndex(t *testing.T) {
	if c := NewIndex(nil).Lookup("a", "", ""); c != nil {
		t.Errorf("lookup in no file found %+v", c)
	}
}

func TestAdopt(t *testing.T) {
	f := &File{PerCase: []Case{{TestID: "a", Verdict: Flaky}, {TestID: "b", Verdict: Flaky}}}
	Adopt(f, Case{TestID: "a", Target: "gpt", Verdict: Acceptable}) // replaces the test-id-only entry
	Adopt(f, Case{TestID: "a", Target: "gpt", Verdict: Incorrect})  // exact match now
	Adopt(f, Case{TestID: "c", Target: "gpt", Verdict: Acceptable}) // appended
	var got []string
	for _, c := range f.PerCase {
		got = append(got, c.TestID+"/"+c.Target+"="+c.Verdict)
	}
	if want := "a/gpt=incorrect b/=flaky c/gpt=acceptable"; strings.Join(got, " ") != want {
		t.Errorf("PerCase = %v, want %s", got, want)
	}
}

func TestLookup(t *testing.T) {
	f := &File{PerCase: []Case{
		{TestID: "a", Verdict: Flaky},                                          // any target
		{TestID: "a", Target: "gpt", Verdict: Incorrect},                       // exact for gpt
		{TestID: "b", Target: "gpt", Variant: "v1", Verdict: Acceptable},       // exact only
		{TestID: "c", Target: "claude", Verdict: NeedsImprovement, Notes: "1"}, // any variant of claude
	}}
	tests := []struct {
		testID, target, variant string
		want                    string // verdict, "" for none
	}{
		{"a", "gpt", "", Incorrect},
		{"a", "claude", "", Flaky},
		{"a", "gpt", "v9", Flaky}, // the gpt entry has no variant, but the exact match needs one; first loose entry wins
		{"b", "gpt", "v1", Acceptable},
		{"b", "gpt", "v2", ""},
		{"b", "", "", ""},
		{"c", "claude", "v3", NeedsImprovement},
		{"c", "gpt", "", ""},
		{"zzz", "", "", ""},
	}
	ix := NewIndex(f)
	for _, tt := range tests {
		if a, b := Lookup(f, tt.testID, tt.target, tt.variant), ix.Lookup(tt.testID, tt.target, tt.variant); a != b {
			t.Errorf("%+v: Index.Lookup = %v, Lookup = %v", tt, b, a)
		}
		got := ""
		if c := Lookup(f, tt.testID, tt.target, tt.variant); c != nil {
			got = c.Verdict
		}
		if got != tt.want {
			t.Errorf("Lookup(%q, %q, %q) = %q, want %q", tt.testID, tt.target, tt.variant, got, tt.want)
		}
	}
}

// TestNestedNamesAreExact: inside the extension objects, as at the top, a
// key that differs only in case is not the field (the schema's view); such
// a file validates and loads.
func TestNestedNamesAreExact(t *testing.T) {
	data := []byte(`{"run_id":"r","reviewer":"a","timestamp":"2026-11-30T10:00:00Z","scope":{"mode":"all","MODE":1},
	"per_case":[{"test_id":"x","verdict":"acceptable","automated":{"score":0.5,"SCORE":"high","graders":[{"key":"a:b","score":1,"pass":true,"PASS":"no"}]},
	"carried_from":{"run_id":"r0","Run_ID":7},"flaky_evidence":{"samples":"P F","Samples":3}}]}`)
	if problems, err := Validate(data); err != nil || len(problems) > 0 {
		t.Fatalf("validate: %v %v", problems, err)
	}
	path := filepath.Join(t.TempDir(), "feedback.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := f.PerCase[0]
	if f.Scope.Mode != "all" || *c.Automated.Score != 0.5 || !*c.Automated.Graders[0].Pass || c.CarriedFrom.RunID != "r0" || c.FlakyEvidence.Samples != "P F" {
		t.Errorf("decoded %+v %+v", f.Scope, c)
	}
}
