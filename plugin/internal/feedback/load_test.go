package feedback

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

func TestLoadDocumentedExample(t *testing.T) {
	f, err := Load("testdata/agentv-documented.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.RunID != "2026-03-14T10-32-00_claude" || len(f.PerCase) != 4 || f.PerCase[2].WorkspaceNotes == "" {
		t.Errorf("Load = %+v", f)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		line  int
		field string
		msg   string
	}{
		{"not JSON", "{\n  \"run_id\": \"r\",\n  oops\n}", 3, "",
			"not valid JSON: invalid character 'o' looking for beginning of object key string"},
		{"bad verdict", "{\n  \"run_id\": \"r\", \"reviewer\": \"a\", \"timestamp\": \"2026-03-14T12:00:00Z\",\n  \"per_case\": [\n    {\"test_id\": \"a\", \"verdict\": \"flaky\"},\n    {\"test_id\": \"b\",\n     \"verdict\": \"meh\"}\n  ]\n}", 6, "per_case.1.verdict",
			`must be one of the following: "acceptable", "needs_improvement", "incorrect", "flaky"`},
		{"missing field reported at its object", "{\"run_id\": \"r\", \"reviewer\": \"a\", \"timestamp\": \"2026-03-14T12:00:00Z\",\n\"per_case\": [\n\n{\"verdict\": \"flaky\"}]}", 4, "per_case.0.test_id",
			"required field is missing"},
		{"several problems", `{"per_case": 1}`, 1, "per_case", "invalid type. Expected: array, given: integer (and 3 more problems)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "feedback.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			var ce *clierr.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load error = %v, want *clierr.Error", err)
			}
			want := clierr.Error{Code: clierr.CodeInvalid, File: path, Line: tt.line, Field: tt.field, Msg: tt.msg,
				Hint: `run "agentv review validate ` + path + `" to list every problem`}
			ce.Err = nil
			if *ce != want {
				t.Errorf("Load error =\n%+v\nwant\n%+v", *ce, want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "feedback.json"))
	if clierr.Code(err) != clierr.CodeInvalid || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want exit 3 wrapping fs.ErrNotExist", err)
	}
}

func TestLoadRefusesLegacy(t *testing.T) {
	for file, kind := range map[string]Kind{"testdata/dashboard.json": KindDashboard, "testdata/skill-creator.json": KindSkillCreator} {
		_, err := Load(file)
		var le *LegacyError
		if !errors.As(err, &le) || le.Kind != kind || clierr.Code(err) != clierr.CodeInvalid {
			t.Errorf("Load(%s) = %v, want exit 3 wrapping LegacyError{%s}", file, err, kind)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		data string
		want Kind
	}{
		{`{"run_id":"r","reviews":[]}`, KindReview},
		{`{"reviewer":"a"}`, KindReview},
		{`not json`, KindReview},
		{`{"reviews":[]}`, KindDashboard},
		{`{"reviews":[{"test_id":"a","comment":"c"}]}`, KindDashboard},
		{`{"reviews":[{"run_id":"a","feedback":""}]}`, KindSkillCreator},
		{`{"reviews":[],"status":"in_progress"}`, KindSkillCreator},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.data)); got != tt.want {
			t.Errorf("Detect(%s) = %s, want %s", tt.data, got, tt.want)
		}
	}
}

func TestLoadLegacy(t *testing.T) {
	tests := []struct {
		file string
		kind Kind
		want []LegacyNote
	}{
		{"testdata/dashboard.json", KindDashboard, []LegacyNote{
			{TestID: "greeting", Note: "tone is off", Time: "2026-02-01T09:00:00.000Z", Source: "testdata/dashboard.json"},
			{TestID: "math", Note: "", Time: "2026-02-01T09:05:00.000Z", Source: "testdata/dashboard.json"},
		}},
		{"testdata/skill-creator.json", KindSkillCreator, []LegacyNote{
			{TestID: "eval-0-with_skill", Note: "missing the summary table", Time: "2026-02-02T10:00:00Z", Source: "testdata/skill-creator.json"},
			{TestID: "eval-1-with_skill", Note: LooksFine, Time: "2026-02-02T10:01:00Z", Source: "testdata/skill-creator.json"},
		}},
	}
	for _, tt := range tests {
		notes, kind, err := LoadLegacy(tt.file)
		if err != nil || kind != tt.kind || !slices.Equal(notes, tt.want) {
			t.Errorf("LoadLegacy(%s) = %+v, %s, %v; want %+v, %s", tt.file, notes, kind, err, tt.want, tt.kind)
		}
	}
}

func TestLoadLegacyErrors(t *testing.T) {
	if _, kind, err := LoadLegacy("testdata/agentv-documented.json"); kind != KindReview || clierr.Code(err) != clierr.CodeInvalid {
		t.Errorf("LoadLegacy(review file) = %s, %v; want KindReview and exit 3", kind, err)
	}
	path := filepath.Join(t.TempDir(), "feedback.json")
	if err := os.WriteFile(path, []byte("{\"reviews\": [\n  {\"test_id\": \"a\", \"comment\": 7}\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadLegacy(path)
	var ce *clierr.Error
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Field != "reviews.comment" || ce.Code != clierr.CodeInvalid {
		t.Errorf("LoadLegacy(bad types) = %#v, want exit 3 at line 2, field reviews.comment", err)
	}
}

// FuzzDetectMatchesDecoding: Detect, which scans the top-level members,
// tells the kind that decoding the whole document tells.
func FuzzDetectMatchesDecoding(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`{"reviews":[],"run_id":null}`))
	f.Add([]byte(`{"reviews":[{"feedback":""}],"reviews":[{"comment":""}], "x":1}`))
	f.Add([]byte(`{"re\u0076iews":[{"feedback":""}],"n":-2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want := KindReview
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) == nil && top["run_id"] == nil && top["reviews"] != nil {
			want = KindDashboard
			var reviews []map[string]json.RawMessage
			if top["status"] != nil || json.Unmarshal(top["reviews"], &reviews) == nil && len(reviews) > 0 && reviews[0]["feedback"] != nil {
				want = KindSkillCreator
			}
		}
		if got := Detect(data); got != want {
			t.Fatalf("Detect = %s, decoding tells %s", got, want)
		}
	})
}
