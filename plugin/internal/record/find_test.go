package record

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

// refCheck is Check as it was before Checker (catalog choices listed at
// every call, overrides checked, grader keys made, even when there are none): the reference the differential test
// holds Checker to. Find's reference is a new Finder per answer, which is
// what Find was (caseid.Match makes a Matcher per call).
func refCheck(cat *prompts.Catalog, cs *run.Case, a feedback.Case) []Problem {
	var ps []Problem
	verdicts := prompts.IDs(cat.Verdicts)
	switch {
	case a.Verdict == "":
		ps = append(ps, Problem{Field: "verdict", Flag: "--verdict", Msg: "missing", Hint: "verdicts: " + strings.Join(verdicts, ", ")})
	case !slices.Contains(verdicts, a.Verdict):
		ps = append(ps, Problem{Field: "verdict", Flag: "--verdict", Msg: fmt.Sprintf("unknown verdict %q", a.Verdict), Hint: "verdicts: " + strings.Join(verdicts, ", ")})
	}
	signals := prompts.IDs(cat.Signals)
	for i, sig := range a.Signals {
		field := fmt.Sprintf("signals.%d", i)
		switch {
		case !slices.Contains(signals, sig):
			ps = append(ps, Problem{Field: field, Flag: "--signal", Msg: fmt.Sprintf("unknown signal %q", sig), Hint: "signals: " + strings.Join(signals, ", ")})
		case slices.Index(a.Signals, sig) < i:
			ps = append(ps, Problem{Field: field, Flag: "--signal", Msg: fmt.Sprintf("signal %q given twice", sig), Hint: "give each signal once"})
		}
	}
	if defects := prompts.IDs(cat.TestDefects); a.TestDefect != "" && !slices.Contains(defects, a.TestDefect) {
		ps = append(ps, Problem{Field: "test_defect", Flag: "--test-defect", Msg: fmt.Sprintf("unknown test defect %q", a.TestDefect), Hint: "test defects: " + strings.Join(defects, ", ")})
	}
	if cs == nil {
		return ps
	}
	return append(ps, checkOverrides(cs, a.EvaluatorOverrides)...)
}

// answers are n answers about the cases of r, most of them wrong in some
// way: unknown, ambiguous (a part left out), suite-less, target-less,
// "#N" and hostile ids, bad verdicts, signals, defects and overrides.
func answers(r *run.Run, cat *prompts.Catalog, n int, seed uint64) []feedback.Case {
	rng := rand.New(rand.NewPCG(seed, 7))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	verdicts, signals, defects := prompts.IDs(cat.Verdicts), prompts.IDs(cat.Signals), prompts.IDs(cat.TestDefects)
	hostile := []string{"", "#1", "#0", "a@b", `a\@b`, "s::t", "-x", "é\x00\xff", `\`, "#" + fmt.Sprint(r.Len()), strings.Repeat("z", 300)}
	out := make([]feedback.Case, n)
	for i := range out {
		c := r.At(rng.IntN(r.Len()))
		a := feedback.Case{TestID: c.TestID, Suite: c.Suite, Target: c.Target, Variant: c.Variant, EvalPath: c.EvalPath}
		switch rng.IntN(10) {
		case 0:
			a.Suite = ""
		case 1:
			a.Target = ""
		case 2:
			a.Suite, a.Target = "", ""
		case 3:
			a.TestID = pick(hostile...)
		case 4:
			a.TestID += "-unknown"
		case 5:
			a.Target = pick("nope", c.Target+"x")
		case 6:
			a.EvalPath = pick("", "elsewhere/EVAL.yaml")
		}
		a.Verdict = pick(append(verdicts, "", "great")...)
		for range rng.IntN(4) {
			a.Signals = append(a.Signals, pick(append(signals, "vibes", signals[0])...))
		}
		if rng.IntN(3) == 0 {
			a.TestDefect = pick(append(defects, "typo")...)
		}
		switch rng.IntN(4) {
		case 0:
			a.EvaluatorOverrides = map[string]string{}
		case 1:
			a.EvaluatorOverrides = map[string]string{"nope:x": "?", "z:y": "?"}
			for _, k := range GraderKeys(c) {
				a.EvaluatorOverrides[k] = "ok"
			}
		}
		out[i] = a
	}
	return out
}

// TestFinderCheckerMatchReference: one Finder and one Checker, used for
// thousands of answers, decide and word every problem exactly as a Finder
// per answer and the per-call Check of before did, on a generated run (many targets per test),
// a run with targets and variants, and a run of hostile ids.
func TestFinderCheckerMatchReference(t *testing.T) {
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	if _, err := genrun.Write442(gen, genrun.Options{Rows: 600, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	hostileDir, _ := hostile(t)
	multi, _ := open(t, "multi-target-v1-v2", false)
	runs := map[string]*run.Run{"multi-target": multi}
	for name, dir := range map[string]string{"generated": gen, "hostile": hostileDir} {
		r, err := run.Open(dir, run.Options{})
		if err != nil {
			t.Fatal(err)
		}
		runs[name] = r
	}
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			find, check := NewFinder(r), NewChecker(cat)
			var found, ambiguous, unknown, overrides int
			for i, a := range answers(r, cat, 5000, uint64(len(name))) {
				wantCase, wantPs := NewFinder(r).Find(a)
				gotCase, gotPs := find.Find(a)
				wantPs = append(wantPs, refCheck(cat, wantCase, a)...)
				gotPs = append(gotPs, check.Check(gotCase, a)...)
				if gotCase != wantCase || !reflect.DeepEqual(gotPs, wantPs) {
					t.Fatalf("answer %d %+v: got %v %+v, want %v %+v", i, a, gotCase, gotPs, wantCase, wantPs)
				}
				for _, p := range gotPs {
					switch {
					case strings.Contains(p.Msg, "could be"):
						ambiguous++
					case strings.HasPrefix(p.Msg, "no case"):
						unknown++
					case strings.HasPrefix(p.Field, "evaluator_overrides."):
						overrides++
					}
				}
				if gotCase != nil {
					found++
				}
			}
			if found == 0 || ambiguous == 0 || unknown == 0 || overrides == 0 {
				t.Errorf("answers not varied enough: %d found, %d ambiguous, %d unknown, %d bad overrides", found, ambiguous, unknown, overrides)
			}
		})
	}
}
