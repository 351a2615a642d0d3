package feedback

import (
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/caseid"
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

// ids is a caseid.Cases over a slice, standing in for a run.
type ids []caseid.ID

func (l ids) Len() int           { return len(l) }
func (l ids) ID(i int) caseid.ID { return l[i] }
func (l ids) WithTestID(t string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, id := range l {
			if id.TestID == t && !yield(i) {
				return
			}
		}
	}
}

func verdicts(f *File) string {
	var got []string
	for _, c := range f.PerCase {
		got = append(got, caseid.Full(c.ID())+"="+c.Verdict)
	}
	return strings.Join(got, " ")
}

// TestIndexSuites: test a exists in suites s1 and s2; judging a in s2 must
// not replace a in s1's entry, and the file counts two reviewed cases.
func TestIndexSuites(t *testing.T) {
	run := ids{{Suite: "s1", TestID: "a"}, {Suite: "s2", TestID: "a"}}
	f := &File{}
	ix := Bind(f, run)
	ix.Put(0, Case{Verdict: Acceptable})
	ix.Put(1, Case{Verdict: Incorrect})
	ix.Put(1, Case{Verdict: Flaky}) // replaces s2's only
	if got, want := verdicts(f), "s1::a=acceptable s2::a=flaky"; got != want {
		t.Errorf("PerCase = %s, want %s", got, want)
	}
	again := Bind(f, run)
	if again.Reviewed() != 2 || again.Entry(0).Verdict != Acceptable || again.Entry(1).Verdict != Flaky {
		t.Errorf("rebound: %d reviewed, entries %+v %+v", again.Reviewed(), again.Entry(0), again.Entry(1))
	}
}

// TestIndexOldFiles: entries of AgentV's documented shape (test_id only)
// and of older files (test_id + target) match when that is unambiguous,
// are replaced by a new judgment of their case, and never count twice.
func TestIndexOldFiles(t *testing.T) {
	run := ids{
		{Suite: "core", TestID: "a", Target: "gpt"},
		{Suite: "core", TestID: "b", Target: "gpt"},
		{Suite: "core", TestID: "b", Target: "claude"},
		{Suite: "core", TestID: "c", Target: "gpt"},
	}
	f := &File{PerCase: []Case{
		{TestID: "a", Verdict: Flaky},                                   // unique test id: case 0
		{TestID: "b", Verdict: Flaky},                                   // b has two targets: ambiguous
		{TestID: "b", Target: "claude", Verdict: Flaky},                 // case 2
		{TestID: "zz", Verdict: Flaky},                                  // not in the run
		{TestID: "c", Target: "gpt", Verdict: Flaky},                    // case 3 ...
		{TestID: "c", Suite: "core", Target: "gpt", Verdict: Incorrect}, // ... named more exactly: wins
	}}
	ix := Bind(f, run)
	if ix.Entry(0) != &f.PerCase[0] || ix.Entry(1) != nil || ix.Entry(2) != &f.PerCase[2] || ix.Entry(3) != &f.PerCase[5] {
		t.Errorf("bound entries: %v %v %v %v", ix.Entry(0), ix.Entry(1), ix.Entry(2), ix.Entry(3))
	}
	if !slices.Equal(ix.Ambiguous, []int{1}) || !slices.Equal(ix.Unmatched, []int{3}) || !slices.Equal(ix.Shadowed, []int{4}) {
		t.Errorf("ambiguous %v unmatched %v shadowed %v", ix.Ambiguous, ix.Unmatched, ix.Shadowed)
	}
	if ix.Reviewed() != 3 {
		t.Errorf("Reviewed = %d, want 3", ix.Reviewed())
	}
	ix.Put(0, Case{Verdict: Acceptable}) // replaces the test-id-only entry in place, now named exactly
	if got := caseid.Full(f.PerCase[0].ID()) + "=" + f.PerCase[0].Verdict; got != "core::a@gpt=acceptable" || len(f.PerCase) != 6 {
		t.Errorf("after Put: %s (%d entries)", got, len(f.PerCase))
	}
	ix.Put(1, Case{Verdict: Acceptable}) // b@gpt had none: appended, the ambiguous entry stays
	if len(f.PerCase) != 7 || ix.Entry(1) != &f.PerCase[6] {
		t.Errorf("after Put(1): %s", verdicts(f))
	}
	if got := Bind(nil, run); got.Reviewed() != 0 || got.Entry(0) != nil {
		t.Errorf("Bind(nil) has entries")
	}
}

// TestPutAllIsPutInOrder: PutAll of many entries (copied on every core)
// leaves the file as Put of each in order does: an old file's entry is
// replaced and named exactly, a case judged twice keeps its later entry,
// the others are appended in order.
func TestPutAllIsPutInOrder(t *testing.T) {
	var run ids
	for i := range 3 * entryBlock {
		run = append(run, caseid.ID{Suite: "s", TestID: fmt.Sprint("t", i%(entryBlock+7)), Target: fmt.Sprint("m", i/(entryBlock+7))})
	}
	old := func() *File {
		return &File{PerCase: []Case{{TestID: "t3", Target: "m1", Verdict: Flaky}, {TestID: "zz", Verdict: Flaky}, {TestID: "t5", Suite: "s", Target: "m0", Verdict: Incorrect}}}
	}
	// The first entry of each block (entryBlock entries, copied on one
	// core) judges again the case of the entry before it, the last of the
	// block before, which another core copies meanwhile.
	var entries []Bound
	for k := range 5*entryBlock/2 + 1 {
		i := (k * 7) % len(run)
		if k%entryBlock == 0 && k > 0 {
			i = entries[k-1].Case
		}
		entries = append(entries, Bound{Case: i, Entry: Case{Verdict: [...]string{Acceptable, Incorrect, Flaky}[k%3], Notes: fmt.Sprint("answer ", k)}})
	}
	entries = append(entries, Bound{Case: entries[10].Case, Entry: Case{Verdict: Acceptable, Notes: "again"}})
	want, got := old(), old()
	one := Bind(want, run)
	for _, b := range entries {
		one.Put(b.Case, b.Entry)
	}
	all := Bind(got, run)
	all.PutAll(entries)
	if len(got.PerCase) != len(want.PerCase) {
		t.Fatalf("PutAll: %d entries, Put: %d", len(got.PerCase), len(want.PerCase))
	}
	for p := range want.PerCase {
		if g, w := got.PerCase[p], want.PerCase[p]; caseid.Full(g.ID()) != caseid.Full(w.ID()) || g.Verdict != w.Verdict || g.Notes != w.Notes {
			t.Fatalf("per_case.%d: PutAll %s=%s %q, Put %s=%s %q", p, caseid.Full(g.ID()), g.Verdict, g.Notes, caseid.Full(w.ID()), w.Verdict, w.Notes)
		}
	}
	if e := all.Entry(entries[10].Case); e == nil || e.Notes != "again" {
		t.Errorf("the case judged twice keeps %+v, want its later entry", e)
	}
	if all.Reviewed() != one.Reviewed() {
		t.Errorf("Reviewed: PutAll %d, Put %d", all.Reviewed(), one.Reviewed())
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
