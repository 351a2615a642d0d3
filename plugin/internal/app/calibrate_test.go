package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/run"
)

// scriptIterations reviews the three iteration runs with known labels
// (apply for runs 1 and 2, set for run 3, partly as an agent) and returns
// the folder of runs. Grader verdicts in the corpus, runs 1/2/3:
//
//	contains:contains-4              P P P   (it-stable-pass)
//	contains:contains-Jupiter        F F F   (it-stable-fail)
//	icontains:icontains-not found    F P P   (it-fixed)
//	llm-grader:judge                 P P P   (it-fixed)
//	regex:regex-\bAu\b               P P F   (it-regressed)
//	contains:contains-Tokyo          P P P   (it-reworded)
//	contains:contains-data races     P - P   (it-error-then-recovered; run 2 errored)
func scriptIterations(t *testing.T) string {
	t.Helper()
	fixClock(t)
	root := copyIterations(t)
	runDir := func(i int) string { return filepath.Join(root, iterationRuns[i].id) }
	tmp := t.TempDir()
	mustRun(t, "apply", "--reviewer", "ana", "--from", writeFile(t, filepath.Join(tmp, "run1.jsonl"), `
{"test_id":"it-stable-pass","verdict":"acceptable"}
{"test_id":"it-stable-fail","verdict":"incorrect","notes":"names Saturn"}
{"test_id":"it-fixed","verdict":"incorrect","signals":["false_positive"],"evaluator_overrides":{"llm-grader:judge":"passed an answer that says not found"}}
{"test_id":"it-regressed","verdict":"acceptable"}
{"test_id":"it-reworded","verdict":"acceptable"}
{"test_id":"it-error-then-recovered","verdict":"acceptable"}
`), runDir(0))
	mustRun(t, "apply", "--reviewer", "ana", "--from", writeFile(t, filepath.Join(tmp, "run2.jsonl"), `
{"test_id":"it-stable-pass","verdict":"acceptable"}
{"test_id":"it-stable-fail","verdict":"incorrect"}
{"test_id":"it-fixed","verdict":"acceptable"}
{"test_id":"it-regressed","verdict":"acceptable"}
{"test_id":"it-reworded","verdict":"needs_improvement","notes":"terse"}
{"test_id":"it-error-then-recovered","verdict":"flaky","notes":"HTTP 503 upstream"}
`), runDir(1))
	for _, args := range [][]string{
		{"--agent", "--verdict", "acceptable", runDir(2), "it-stable-pass"},
		{"--agent", "--verdict", "incorrect", runDir(2), "it-stable-fail"},
		{"--reviewer", "bob", "--verdict", "acceptable", runDir(2), "it-fixed"},
		{"--reviewer", "bob", "--verdict", "acceptable", "--signal", "false_negative",
			"--override", `regex:regex-\bAu\b=too strict: "Au," is the symbol`, runDir(2), "it-regressed"},
		{"--reviewer", "bob", "--verdict", "incorrect", "--signal", "false_positive",
			"--override", "contains:contains-Tokyo=passes on a mention,\n\n## the answer names Kyoto", runDir(2), "it-reworded"},
	} {
		mustRun(t, append([]string{"set"}, args...)...)
	}
	return root
}

func TestCalibrateScriptedHistory(t *testing.T) {
	root := scriptIterations(t)
	var rep calibrate.Report
	if err := json.Unmarshal([]byte(mustRun(t, "calibrate", "--json", root)), &rep); err != nil {
		t.Fatal(err)
	}
	type want struct {
		c        calibrate.Confusion
		excluded calibrate.Excluded
		kappa    float64 // -9: undefined
	}
	wants := map[string]want{
		"contains:contains-4":           {calibrate.Confusion{TP: 2}, calibrate.Excluded{Agent: 1}, -9},
		"contains:contains-Jupiter":     {calibrate.Confusion{TN: 2}, calibrate.Excluded{Agent: 1}, -9},
		"icontains:icontains-not found": {calibrate.Confusion{TP: 2, TN: 1}, calibrate.Excluded{}, 1},
		// named wrong in run 1: its pass there is a false pass.
		"llm-grader:judge": {calibrate.Confusion{TP: 2, FP: 1}, calibrate.Excluded{}, 0},
		// named wrong in run 3: its fail there is a false fail.
		`regex:regex-\bAu\b`: {calibrate.Confusion{TP: 2, FN: 1}, calibrate.Excluded{}, 0},
		// needs_improvement counts as a fail; named wrong in run 3.
		"contains:contains-Tokyo": {calibrate.Confusion{TP: 1, FP: 2}, calibrate.Excluded{}, 0},
		// run 2 errored with no grader; run 3 unreviewed.
		"contains:contains-data races": {calibrate.Confusion{TP: 1}, calibrate.Excluded{}, -9},
	}
	if len(rep.Graders) != len(wants) {
		t.Fatalf("%d graders, want %d: %+v", len(rep.Graders), len(wants), rep.Graders)
	}
	for _, g := range rep.Graders {
		w, ok := wants[g.Key]
		if !ok {
			t.Errorf("unexpected grader %s", g.Key)
			continue
		}
		if g.Confusion != w.c || g.Excluded != w.excluded || !g.Current || g.Unrecorded {
			t.Errorf("%s: confusion %+v excluded %+v current %v unrecorded %v, want %+v %+v", g.Key, g.Confusion, g.Excluded, g.Current, g.Unrecorded, w.c, w.excluded)
		}
		switch {
		case w.kappa == -9 && g.Kappa != nil:
			t.Errorf("%s: κ = %v, want undefined", g.Key, g.Kappa.Value)
		case w.kappa != -9 && (g.Kappa == nil || g.Kappa.Value < w.kappa-1e-9 || g.Kappa.Value > w.kappa+1e-9):
			t.Errorf("%s: κ = %+v, want %v", g.Key, g.Kappa, w.kappa)
		}
		if g.Band != calibrate.Exploration {
			t.Errorf("%s: band %s with ≤ 3 labels", g.Key, g.Band)
		}
	}
	judge := graderOf(t, &rep, "llm-grader:judge")
	if judge.TPR.K != 2 || judge.TPR.N != 2 || judge.TNR.K != 0 || judge.TNR.N != 1 {
		t.Errorf("judge TPR %+v TNR %+v, want 2/2 and 0/1", judge.TPR, judge.TNR)
	}
	if len(judge.FalsePasses) != 1 || judge.FalsePasses[0] != (calibrate.CaseRef{RunID: iterationRuns[0].id, Case: "it-fixed"}) {
		t.Errorf("judge false passes = %+v", judge.FalsePasses)
	}

	text := mustRun(t, "calibrate", root)
	for _, s := range []string{"llm-grader:judge", "false passes (1): " + iterationRuns[0].id + " it-fixed", "rule: gating if"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}
	csv := mustRun(t, "calibrate", "--format", "csv", root)
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 8 || !strings.HasPrefix(lines[0], "key,config,current") {
		t.Errorf("csv: %d lines\n%s", len(lines), csv)
	}
}

func graderOf(t *testing.T, rep *calibrate.Report, key string) calibrate.Grader {
	t.Helper()
	for _, g := range rep.Graders {
		if g.Key == key {
			return g
		}
	}
	t.Fatalf("no grader %s", key)
	return calibrate.Grader{}
}

func TestCalibrateWriteAndFind(t *testing.T) {
	root := scriptIterations(t)
	code, _, stderr := runApp(t, "calibrate", "--write", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(root, certificateName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := calibrate.Validate(data); err != nil || len(problems) > 0 {
		t.Fatalf("written certificate: %v %v", problems, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(root, ".calibration.json.tmp-*")); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
	runDir := filepath.Join(root, iterationRuns[2].id)
	if got, found := certificateFor(runDir); !found || got != path {
		t.Errorf("certificateFor = %s, %v; want %s", got, found, path)
	}
	if _, err := loadCertificate(path); err != nil {
		t.Error(err)
	}
	// With a certificate, history and status report the corrected pass rate.
	_, out, _ := runApp(t, "history", "--json", root)
	var hist historyReport
	if err := json.Unmarshal([]byte(out), &hist); err != nil || len(hist.Corrected) != 3 || hist.Certificate != path {
		t.Errorf("history with a certificate: %v, %d corrected rates, certificate %q", err, len(hist.Corrected), hist.Certificate)
	}
	for _, c := range hist.Corrected {
		if c.Corrected == nil && !strings.HasPrefix(c.CorrectedNA, "n/a") {
			t.Errorf("run %s: neither a corrected rate nor why not: %+v", c.RunID, c)
		}
	}
	_, out, _ = runApp(t, "status", "--json", runDir)
	var st statusReport
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Calibration == nil || st.Calibration.Rates == nil || st.Calibration.Certificate != path {
		t.Errorf("status with a certificate: %v %+v", err, st.Calibration)
	}
	code, _, stderr = runApp(t, "status", "--require-calibrated", "--band", "gating", runDir)
	if code != clierr.CodeFailure || !strings.Contains(stderr, "calibration gate failed") {
		t.Errorf("status --require-calibrated --band gating: exit %d\n%s", code, stderr)
	}
	// A run given alone: the certificate goes beside it.
	other := copyRun(t, "iterations-1")
	mustRun(t, "calibrate", "--write", other)
	if _, err := os.Stat(filepath.Join(filepath.Dir(other), certificateName)); err != nil {
		t.Error(err)
	}
	if _, found := certificateFor(filepath.Join(t.TempDir(), "run")); found {
		t.Error("found a certificate in an empty folder")
	}
	if _, err := loadCertificate(filepath.Join(t.TempDir(), certificateName)); clierr.Code(err) != clierr.CodeFailure {
		t.Errorf("missing certificate: %v (exit %d), want exit 1", err, clierr.Code(err))
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), certificateName), `{"version":2}`)
	if _, err := loadCertificate(bad); clierr.Code(err) != clierr.CodeInvalid || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad certificate: %v (exit %d), want exit 3 naming the file", err, clierr.Code(err))
	}
}

func TestCalibrateUsage(t *testing.T) {
	root := copyIterations(t)
	for _, args := range [][]string{
		{"calibrate", "--format", "xml", root},
		{"calibrate", "--json", "--format", "csv", root},
		{"calibrate", "--margin", "2", root},
		{"calibrate", root, "--json"},
	} {
		if code, _, _ := runApp(t, args...); code != clierr.CodeUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	out := mustRun(t, "calibrate", root)
	if !strings.Contains(out, "no grader has human labels yet") {
		t.Errorf("unreviewed:\n%s", out)
	}
}

// certificateWith builds a certificate from the labels cells for each
// grader configuration.
func certificateWith(t *testing.T, cells map[calibrate.Ref]calibrate.Confusion) *calibrate.Report {
	t.Helper()
	var obs []calibrate.Observation
	for ref, c := range cells {
		add := func(n int, g calibrate.GraderVerdict, h calibrate.HumanVerdict) {
			for i := range n {
				obs = append(obs, calibrate.Observation{RunID: "labels", Case: ref.Key + string(g) + string(h) + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
					Grader: ref.Key, Config: ref.Config, GraderVerdict: g, Human: h, Reviewer: calibrate.Human})
			}
		}
		add(c.TP, calibrate.GraderPass, calibrate.Acceptable)
		add(c.FN, calibrate.GraderFail, calibrate.Acceptable)
		add(c.TN, calibrate.GraderFail, calibrate.Incorrect)
		add(c.FP, calibrate.GraderPass, calibrate.Incorrect)
	}
	rep, err := calibrate.Build(obs, calibrate.Options{Current: []calibrate.Ref{}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestCalibrationGateAndCorrectedRate(t *testing.T) {
	r, err := run.Open(filepath.Join(corpus, "iterations-3"), run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rg := calibrate.ReadGraders(r)
	if len(rg.Warnings) > 0 {
		t.Fatal(rg.Warnings)
	}
	deciders := rg.Deciders()
	if len(deciders) != 7 {
		t.Fatalf("deciders = %+v", deciders)
	}
	ref := map[string]calibrate.Ref{}
	for _, d := range deciders {
		ref[d.Key] = d
	}
	worked := calibrate.Confusion{TP: 45, FN: 5, TN: 40, FP: 10}  // trend
	strong := calibrate.Confusion{TP: 100, FN: 1, TN: 100, FP: 1} // gating
	all := map[calibrate.Ref]calibrate.Confusion{}
	for _, d := range deciders {
		all[d] = strong
	}
	all[ref["llm-grader:judge"]] = worked

	results, err := calibrationGate(rg, certificateWith(t, all), "trend")
	if err != nil || len(results) != 7 {
		t.Fatalf("trend gate with every grader calibrated: %v %+v", err, results)
	}
	results, err = calibrationGate(rg, certificateWith(t, all), "gating")
	if clierr.Code(err) != clierr.CodeFailure || !strings.Contains(err.Error(), "llm-grader:judge") {
		t.Fatalf("gating gate: err %v (exit %d), want exit 1 naming the judge", err, clierr.Code(err))
	}
	for _, res := range results {
		if res.Pass != (res.Key != "llm-grader:judge") {
			t.Errorf("%s: pass %v (%s)", res.Key, res.Pass, res.Reason)
		}
		// TPR 0.9 needs 12 more human passes; TNR 0.8 is not above 0.8.
		if res.Key == "llm-grader:judge" && (res.Band != calibrate.Trend || res.More.Positive != 12 || !strings.Contains(res.MoreNote, "fix the grader")) {
			t.Errorf("judge: %+v, want trend, 12 more positives, fix the grader", res)
		}
	}
	// A calibration of another configuration is history, not evidence.
	old := map[calibrate.Ref]calibrate.Confusion{}
	for d, c := range all {
		if d.Key == "contains:contains-4" {
			d.Config = "sha256:" + strings.Repeat("0", 64)
		}
		old[d] = c
	}
	results, err = calibrationGate(rg, certificateWith(t, old), "trend")
	if clierr.Code(err) != clierr.CodeFailure {
		t.Fatalf("gate with an old configuration: %v", err)
	}
	for _, res := range results {
		if res.Key == "contains:contains-4" && (res.Pass || !strings.Contains(res.Reason, "history, not evidence")) {
			t.Errorf("contains-4: %+v", res)
		}
	}
	if _, err := calibrationGate(rg, certificateWith(t, all), "exploration"); clierr.Code(err) != clierr.CodeUsage {
		t.Errorf("band exploration: %v, want exit 2", err)
	}

	// Corrected rate: it-fixed has two graders, so only per-grader rates.
	rate := calibrate.CorrectedRate(rg, nil, certificateWith(t, all))
	if rate.AutomatedPassed != 4 || rate.Cases != 6 || rate.Corrected != nil || !strings.Contains(rate.CorrectedNA, "several graders") {
		t.Errorf("run rate = %+v", rate)
	}
	if len(rate.Graders) != 7 {
		t.Fatalf("grader rates = %+v", rate.Graders)
	}
	for _, g := range rate.Graders {
		if g.Estimate == nil {
			t.Errorf("%s: %s", g.Key, g.NA)
		}
	}
	rate = calibrate.CorrectedRate(rg, nil, nil)
	if rate.Corrected != nil || rate.Graders[0].NA != "n/a: no calibration for its current configuration" {
		t.Errorf("without a certificate: %+v", rate)
	}
}
