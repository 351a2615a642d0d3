package feedback

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"agentv-review/plugin/internal/caseid"
)

// viewRun is the run of the view tests: test b has two targets, c two suites.
var viewRun = ids{
	{Suite: "core", TestID: "a", Target: "gpt"},
	{Suite: "core", TestID: "b", Target: "gpt"},
	{Suite: "core", TestID: "b", Target: "claude"},
	{Suite: "core", TestID: "c", Target: "gpt"},
	{Suite: "extra", TestID: "c", Target: "gpt"},
}

// checkViewMatchesBind: LoadView fails exactly when Load does, and else
// binds each case to the entry Bind binds it to, keeping its verdict,
// reviewer kind and machine verdict, with the same strays.
func checkViewMatchesBind(t *testing.T, data []byte, runID string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "feedback.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, ferr := Load(path)
	v, verr := LoadView(path, runID, viewRun)
	if (ferr == nil) != (verr == nil) || ferr != nil && ferr.Error() != verr.Error() {
		t.Fatalf("Load error %v, LoadView error %v", ferr, verr)
	}
	if ferr != nil {
		return
	}
	top := *f
	top.PerCase = nil
	if !reflect.DeepEqual(&top, v.File) {
		t.Errorf("top-level fields: view %+v, want %+v", v.File, &top)
	}
	ix := Bind(nil, viewRun)
	if f.RunID == runID {
		ix = Bind(f, viewRun)
	}
	strays := func(pos []int) Strays {
		if len(pos) == 0 {
			return Strays{}
		}
		return Strays{Count: len(pos), First: f.PerCase[pos[0]].ID()}
	}
	if got, want := []any{v.Unmatched, v.Ambiguous, v.Shadowed, reviewedIn(v)}, []any{strays(ix.Unmatched), strays(ix.Ambiguous), len(ix.Shadowed), ix.Reviewed()}; !reflect.DeepEqual(got, want) {
		t.Errorf("unmatched, ambiguous, shadowed, reviewed = %+v, want %+v", got, want)
	}
	for i := range viewRun.Len() {
		want := ix.Entry(i)
		if want != nil {
			want = &Case{Verdict: want.Verdict, ReviewerKind: want.ReviewerKind, Automated: want.Automated}
			if a := want.Automated; a != nil {
				want.Automated = &Automated{Score: a.Score, Outcome: a.Outcome, Graders: a.Graders}
				for k := range a.Graders {
					a.Graders[k].Extra = nil
				}
			}
		}
		if got := v.Entry(i); !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: view entry %s, want %s", i, jsonOf(got), jsonOf(want))
		}
	}
	// One Scratch for every case, forwards then backwards: nothing of an
	// entry stays in it for the next.
	var buf Scratch
	for k, n := 0, viewRun.Len(); k < 2*n; k++ {
		i := k
		if k >= n {
			i = 2*n - 1 - k
		}
		if got, want := v.EntryIn(i, &buf), v.Entry(i); !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: entry in a used Scratch %s, want %s", i, jsonOf(got), jsonOf(want))
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestViewMatchesBind(t *testing.T) {
	head := `{"run_id":"r","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z","tool":{"name":"agentv-review"},"summary":{"cases":5,"reviewed":1,"skipped":0},`
	tests := []struct{ name, doc string }{
		{"exact entries", head + `"per_case":[
			{"test_id":"a","suite":"core","target":"gpt","verdict":"acceptable","reviewer_kind":"agent","notes":"n",
			 "automated":{"score":0.5,"outcome":"failed","graders":[{"key":"regex:x","score":0,"pass":false,"extra":1},{"key":"llm-grader:j","score":null,"pass":null}]}},
			{"test_id":"b","target":"claude","verdict":"flaky","automated":{"outcome":"passed"}}]}`},
		{"strays and shadowing", head + `"per_case":[
			{"test_id":"b","verdict":"flaky"},
			{"test_id":"zz","verdict":"flaky"},
			{"test_id":"c","verdict":"incorrect"},
			{"test_id":"a","suite":"core","target":"gpt","verdict":"incorrect"},
			{"test_id":"a","verdict":"acceptable"},
			{"test_id":"c","suite":"extra","verdict":"acceptable"},
			{"test_id":"c","suite":"extra","target":"gpt","verdict":"flaky"},
			{"test_id":"b","suite":"core","target":"claude","verdict":"acceptable"},
			{"test_id":"b","target":"claude","verdict":"needs_improvement"},
			{"test_id":"b","suite":"core","target":"gpt","verdict":"incorrect"},
			{"test_id":"b","target":"gpt","verdict":"flaky"}]}`},
		{"equally exact entries: the later wins", head + `"per_case":[
			{"test_id":"a","suite":"core","verdict":"incorrect"},
			{"test_id":"a","target":"gpt","verdict":"acceptable"}]}`},
		{"another run's file", `{"run_id":"other","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z","per_case":[{"test_id":"zz","verdict":"flaky"},{"test_id":"a","verdict":"flaky"}]}`},
		{"duplicate entries", head + `"per_case":[{"test_id":"a","verdict":"flaky"},{"test_id":"a","verdict":"acceptable"}]}`},
		// The light pass compares identities only when entries share a case
		// or two are strays: each way two entries can repeat an identity.
		{"duplicate strays", head + `"per_case":[{"test_id":"zz","verdict":"flaky"},{"test_id":"a","verdict":"flaky"},{"test_id":"zz","verdict":"acceptable"}]}`},
		{"duplicate ambiguous entries", head + `"per_case":[{"test_id":"b","verdict":"flaky"},{"test_id":"a","verdict":"flaky"},{"test_id":"b","verdict":"acceptable"}]}`},
		{"duplicate exact entries apart", head + `"per_case":[{"test_id":"c","suite":"extra","target":"gpt","verdict":"flaky"},{"test_id":"zz","verdict":"flaky"},{"test_id":"a","verdict":"flaky"},{"test_id":"c","suite":"extra","target":"gpt","verdict":"acceptable"}]}`},
		{"duplicates in another run's file", `{"run_id":"other","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z","per_case":[{"test_id":"a","verdict":"flaky"},{"test_id":"a","verdict":"flaky"}]}`},
		{"one stray, one shadowed, no duplicate", head + `"per_case":[{"test_id":"zz","verdict":"flaky"},{"test_id":"a","verdict":"flaky"},{"test_id":"a","target":"gpt","verdict":"acceptable"}]}`},
		{"empty test ids twice", head + `"per_case":[{"test_id":"","verdict":"flaky"},{"test_id":"","verdict":"acceptable"}]}`},
		{"schema violation", head + `"per_case":[{"test_id":"a","verdict":"great"}]}`},
		{"repeated key (left to the full path)", head + `"per_case":[{"test_id":"a","verdict":"flaky","verdict":"acceptable"}]}`},
		{"no per_case", `{"run_id":"r","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z"}`},
		{"not JSON", `{"run_id":`},
		{"legacy", `{"reviews":[{"test_id":"a","comment":"x","updated_at":"2026-01-01"}]}`},
		// A test id is kept in the decoder's room until its entry is added
		// (draft.keepTestID): escaped, invalid UTF-8, across a buffer's end.
		{"escaped test ids", head + `"per_case":[{"test_id":"\u0061","verdict":"flaky"},{"test_id":"z\u007a","verdict":"flaky"},{"test_id":"\u0063","suite":"extra","verdict":"incorrect"}]}`},
		{"invalid UTF-8 in a test id", head + "\"per_case\":[{\"test_id\":\"a\xff\",\"verdict\":\"flaky\"},{\"test_id\":\"a\",\"verdict\":\"flaky\"}]}"},
		{"test ids across the buffer's end", head + `"per_case":[{"test_id":"` + strings.Repeat("x", 70000) + `","verdict":"flaky"},{"test_id":"` +
			strings.Repeat(" ", 65500) + `","verdict":"flaky"},{"test_id":"b","target":"gpt","verdict":"acceptable"},{"test_id":"` + strings.Repeat("y", 40) + `","verdict":"flaky"},{"test_id":"a","verdict":"incorrect"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkViewMatchesBind(t, []byte(tt.doc), "r") })
	}
}

func TestViewMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.json")
	_, err := LoadView(path, "r", viewRun)
	if _, ferr := Load(path); err == nil || err.Error() != ferr.Error() {
		t.Fatalf("LoadView of a missing file: %v, want %v", err, ferr)
	}
}

// FuzzViewMatchesBind: on any document, LoadView agrees with Load and Bind.
func FuzzViewMatchesBind(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	huge := regexp.MustCompile(`[eE][+-]?0*[0-9]{4}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if huge.Match(data) {
			t.Skip("gojsonschema takes minutes over an exponent such as 1e1000000000")
		}
		checkViewMatchesBind(t, data, "r")
	})
}

// An entry is bound as it is decoded, in the decoder's buffers, which
// the next entries overwrite: the first stray keeps its own identity.
func TestStrayKeepsItsIdentity(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"run_id":"r","reviewer":"ann","timestamp":"2026-11-30T10:00:00Z","per_case":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"test_id":"s%d","suite":"x%d","target":"t%d","verdict":"flaky","automated":{"score":0.5,"outcome":"failed"}}`, i, i, i)
	}
	b.WriteString("]}")
	path := filepath.Join(t.TempDir(), "feedback.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := LoadView(path, "r", viewRun)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Strays{Count: 40000, First: caseid.ID{TestID: "s0", Suite: "x0", Target: "t0"}}); v.Unmatched != want {
		t.Fatalf("%+v unmatched, want %+v", v.Unmatched, want)
	}
}

// TestViewEntrySize: an entry costs what the View's comment says (a field
// added unnoticed costs status 100k of them).
func TestViewEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(viewEntry{}); n != 32 {
		t.Errorf("viewEntry is %d bytes, the View's comment says 32", n)
	}
}
