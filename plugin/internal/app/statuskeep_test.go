package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

// TestStatusCountsWithoutCases: status of a run nothing judges reads its
// cases only to count them (statusOptions.keep); its report is the one
// status gives when it reads every case whole (as --require-complete
// makes it), gate aside — duplicates, errors and warnings included.
func TestStatusCountsWithoutCases(t *testing.T) {
	dirs := statusRuns(t, 5)
	report := func(args ...string) map[string]any {
		t.Helper()
		_, out, stderr := runApp(t, args...)
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
		}
		delete(rep, "gate")
		delete(rep, "verified") // --require-complete checks fingerprints
		return rep
	}
	for _, dir := range dirs {
		none := filepath.Join(t.TempDir(), "none.json")
		counted := report("status", "--json", "--out", none, dir)
		whole := report("status", "--json", "--out", none, "--require-complete", dir)
		if !reflect.DeepEqual(counted, whole) {
			t.Errorf("%s: counted\n%v\nread whole\n%v", dir, counted, whole)
		}
	}
}

// TestStatusCompactAsWhole: status of a run with a feedback file reads it
// compact (statusOptions.keep), making each case in turn; its counts,
// warnings and gate are those of a loop over the cases read whole — the
// run read keeping every case, as before — however the entries judge them:
// current, stale, proposed, without a machine verdict, strays, entries
// another shadows.
func TestStatusCompactAsWhole(t *testing.T) {
	for _, dir := range statusRuns(t, 7) {
		fb := judgeSome(t, dir)
		for _, failOn := range []string{"", "incorrect,flaky"} {
			var out, errOut bytes.Buffer
			s := &Streams{Out: &out, Err: &errOut, Getenv: func(string) string { return "" }}
			err := runStatus(s, statusOptions{Target: dir, Out: fb, JSON: true, FailOn: failOn})
			var got statusReport
			if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
				t.Fatalf("%s: %v\n%s", dir, jerr, errOut.String())
			}
			want, wantErr := wholeStatus(t, dir, fb, failOn)
			got.Draft, want.Draft = nil, nil
			if !reflect.DeepEqual(got, want) || (err == nil) != (wantErr == nil) {
				t.Errorf("%s --fail-on %q: compact (err %v)\n%+v\nwhole (err %v)\n%+v", dir, failOn, err, got, wantErr, want)
			}
		}
	}
}

// judgeSome writes a feedback file for the run at dir: of each case, in
// turn, a current verdict, a stale one, an agent's proposal, a verdict
// without the machine verdict, or none; then a stray entry and an entry
// naming the first case less exactly (shadowed).
func judgeSome(t *testing.T, dir string) string {
	t.Helper()
	st, err := openState(&Streams{Out: io.Discard, Err: io.Discard}, dir, filepath.Join(t.TempDir(), "none.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &feedback.File{RunID: st.run.ID, Reviewer: "t", Timestamp: "2026-07-06T12:00:00Z"}
	verdicts := []string{feedback.Acceptable, feedback.Incorrect, feedback.Flaky, feedback.NeedsImprovement}
	for i, c := range st.run.Cases {
		e := feedback.Case{TestID: c.TestID, Suite: c.Suite, Target: c.Target, Variant: c.Variant, Verdict: verdicts[i%len(verdicts)]}
		score := c.Score
		a := &feedback.Automated{Outcome: string(c.Outcome), Score: &score}
		for _, g := range c.Graders {
			a.Graders = append(a.Graders, feedback.GraderResult{Key: g.Key(), Score: g.Score, Pass: g.Pass})
		}
		switch i % 5 {
		case 1:
			stale := score + 1
			a.Score = &stale
		case 2:
			e.ReviewerKind = feedback.Agent
		case 3:
			a = nil
		case 4:
			continue
		}
		e.Automated = a
		f.PerCase = append(f.PerCase, e)
	}
	if n := len(f.PerCase); n > 0 {
		first := f.PerCase[0]
		first.Suite, first.Verdict = "", feedback.Flaky
		f.PerCase = append(f.PerCase, feedback.Case{TestID: "no-such-test", Verdict: feedback.Flaky}, first)
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, filepath.Join(t.TempDir(), "feedback.json"), string(data))
}

// wholeStatus is status's report of the run at dir judged by fb, counted
// over the cases of a read that keeps every one whole.
func wholeStatus(t *testing.T, dir, fb, failOn string) (statusReport, error) {
	t.Helper()
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	st, err := openStateWith(&Streams{Out: io.Discard, Err: &errOut}, dir, fb, run.Options{Outline: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := st.run
	rep := st.newStatusReport(cat, false)
	var offending []*run.Case
	problems := map[*run.Case]string{}
	var scratch feedback.Scratch
	for _, c := range r.Cases {
		state, j := st.quickState(c, &scratch)
		rep.count(state, j)
		if j != nil && state != stateStale && failOn != "" && strings.Contains(","+failOn+",", ","+j.Verdict+",") {
			offending = append(offending, c)
			problems[c] = j.Verdict
		}
	}
	if rep.Stale > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d verdict(s) no longer match what the run shows (the output, a grader result or the test changed since): they count as stale, not reviewed", rep.Stale))
	}
	if failOn == "" {
		return rep, nil
	}
	rep.Gate = &gateResult{Passed: len(offending) == 0, Problems: []gateProblem{}}
	for _, item := range triage.Rank(offending) {
		rep.Gate.Problems = append(rep.Gate.Problems, gateProblem{st.refOf(item.Case), problems[item.Case]})
	}
	if !rep.Gate.Passed {
		return rep, errors.New("gate failed")
	}
	return rep, nil
}

// statusRuns are the status tests' runs: the corpus's, and a generated
// 4000-row run (seed seed) with duplicate rows: more chunks than status
// counts at once on two cores (inOrder: 512 cases a chunk, 2×GOMAXPROCS in
// flight), so chunks reuse their room.
func statusRuns(t *testing.T, seed int64) []string {
	t.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		dirs = append(dirs, filepath.Join(corpus, e.Name()))
	}
	gen := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	if _, err := genrun.Write442(gen, genrun.Options{Rows: 4000, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return append(dirs, gen)
}
