package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
)

const corpus = "../../../testdata/agentv-4.42.4/runs"

// runApp runs the command line without a terminal and returns exit code,
// stdout and stderr.
func runApp(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{Out: &out, Err: &errOut, Getenv: func(string) string { return "" }, LockWait: 10 * time.Second}
	if clock, ok := clocks.Load(t); ok {
		s.Now = clock.(func() time.Time)
	}
	code := Main(append([]string{"agentv-review"}, args...), s)
	return code, out.String(), errOut.String()
}

// copyRun copies a corpus run into a temporary folder, so tests can write
// feedback beside it.
func copyRun(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(corpus, name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestStatusJSONMatchesAgentV(t *testing.T) {
	var runs struct {
		Runs []struct {
			Name   string         `json:"name"`
			Counts map[string]int `json:"execution_status_counts"`
		} `json:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(corpus, "..", "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs.Runs {
		t.Run(r.Name, func(t *testing.T) {
			code, out, stderr := runApp(t, "status", "--json", filepath.Join(corpus, r.Name))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got statusReport
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("status --json is not JSON: %v\n%s", err, out)
			}
			want := [3]int{r.Counts["ok"], r.Counts["quality_failure"], r.Counts["execution_error"]}
			if r.Name == "rerun-failed-duplicate-rows" {
				want = [3]int{2, 1, 0} // AgentV's own count after --rerun-failed dedupe
			}
			if g := [3]int{got.Passed, got.Failed, got.Errored}; g != want {
				t.Errorf("passed/failed/errored = %v, want %v", g, want)
			}
			if got.RunID != r.Name || got.Cases != want[0]+want[1]+want[2] || got.Unreviewed != got.Cases || got.Reviewed != 0 {
				t.Errorf("run_id %q cases %d reviewed %d unreviewed %d", got.RunID, got.Cases, got.Reviewed, got.Unreviewed)
			}
			if len(got.Verdicts) != 4 {
				t.Errorf("verdicts = %v, want all four keys", got.Verdicts)
			}
		})
	}
}

func TestUsageAndInputErrors(t *testing.T) {
	core := filepath.Join(corpus, "core-pass-fail-error")
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"flag after run dir", []string{"status", core, "--json"}, clierr.CodeUsage, "put flags before arguments"},
		{"unknown flag", []string{"status", "--nope", core}, clierr.CodeUsage, "-nope"},
		{"too many args", []string{"status", core, core}, clierr.CodeUsage, "expected [run]"},
		{"guided review without a terminal", []string{core}, clierr.CodeUsage, "non-interactive commands"},
		{"missing run", []string{"status", filepath.Join(t.TempDir(), "nope")}, clierr.CodeInvalid, "hint:"},
		{"unknown case", []string{"show", core, "no-such-case"}, clierr.CodeUsage, "no-such-case"},
		{"bad verdict in gate", []string{"status", "--fail-on", "wrong", core}, clierr.CodeUsage, "acceptable"},
		{"bad filter key", []string{"list", "--filter", "color=red", core}, clierr.CodeUsage, "unknown filter key"},
		{"unknown docs topic", []string{"docs", "nope"}, clierr.CodeUsage, "topics"},
		{"unknown shell", []string{"shell-init", "tcsh"}, clierr.CodeUsage, "bash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runApp(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.inStderr, stderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr has a stack trace:\n%s", stderr)
			}
		})
	}
}

func TestListOrderAndJSON(t *testing.T) {
	code, out, stderr := runApp(t, "list", "--json", filepath.Join(corpus, "core-pass-fail-error"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep listReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 15 {
		t.Fatalf("%d cases, want 15", len(rep.Cases))
	}
	tiers := map[string]int{"errored": 0, "failed": 1, "suspicious": 2, "clean": 3}
	for i := 1; i < len(rep.Cases); i++ {
		if tiers[rep.Cases[i-1].Tier] > tiers[rep.Cases[i].Tier] {
			t.Errorf("case %d (%s) before %d (%s): tiers out of order", i, rep.Cases[i-1].Tier, i+1, rep.Cases[i].Tier)
		}
	}
	if first := rep.Cases[0]; first.Outcome != "errored" || len(first.Reasons) == 0 {
		t.Errorf("first case %+v, want an errored case with reasons", first)
	}
	last := rep.Cases[len(rep.Cases)-1]
	if last.Tier != "clean" || last.Verdict != nil {
		t.Errorf("last case %+v, want a clean unreviewed pass", last)
	}
	for _, e := range rep.Cases {
		if e.TestID == "rubric-explain" && e.Tier != "suspicious" {
			t.Errorf("rubric-explain passes while its rubric grader fails: tier %s, want suspicious", e.Tier)
		}
	}
}

// TestNoEscapeReachesOutput renders every case of the terminal-hazards run
// as text: no ESC, CSI (C1), BEL, BS, CR or DEL may come out.
func TestNoEscapeReachesOutput(t *testing.T) {
	dir := filepath.Join(corpus, "terminal-hazards")
	code, out, stderr := runApp(t, "list", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	outputs := []string{out, stderr}
	for i := 1; i <= 7; i++ {
		_, out, stderr := runApp(t, "show", dir, "#"+string(rune('0'+i)))
		outputs = append(outputs, out, stderr)
	}
	for _, o := range outputs {
		if i := strings.IndexAny(o, "\x1b\x07\x08\r\x7f\u009b\u0090\u009d"); i >= 0 {
			t.Fatalf("control character %q reached the output at %d:\n%s", o[i], i, o[max(0, i-80):min(len(o), i+80)])
		}
	}
	if !strings.Contains(strings.Join(outputs, ""), "␛[") {
		t.Error("escape sequences should be shown as visible ␛[ text")
	}
}

func TestValidateExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"run_id":"r","reviewer":"ana","timestamp":"2026-11-30T10:00:00Z","per_case":[{"test_id":"a","verdict":"acceptable"}]}`), 0o644)
	os.WriteFile(bad, []byte(`{"run_id":"r","reviewer":"ana","timestamp":"2026-11-30T10:00:00Z","per_case":[{"test_id":"a","verdict":"great"}]}`), 0o644)
	if code, out, stderr := runApp(t, "validate", good); code != 0 {
		t.Errorf("valid file: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ := runApp(t, "validate", "--json", bad)
	if code != clierr.CodeInvalid {
		t.Errorf("invalid file: exit %d, want 3", code)
	}
	var rep validateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Valid || len(rep.Problems) != 1 || rep.Problems[0].Path != "per_case.0.verdict" {
		t.Errorf("report %+v, want one problem at per_case.0.verdict", rep)
	}
}

func TestStatusGate(t *testing.T) {
	dir := copyRun(t, "iterations-1")
	if code, _, _ := runApp(t, "status", "--require-complete", dir); code != clierr.CodeFailure {
		t.Errorf("unreviewed run: gate exit %d, want 1", code)
	}
	fb := `{"run_id":"iterations-1","reviewer":"ana","timestamp":"2026-11-30T10:00:00Z","per_case":[
	 {"test_id":"it-stable-pass","verdict":"acceptable"},{"test_id":"it-fixed","verdict":"incorrect"},
	 {"test_id":"it-regressed","verdict":"acceptable"},{"test_id":"it-error-then-recovered","verdict":"acceptable"},
	 {"test_id":"it-stable-fail","verdict":"needs_improvement"},{"test_id":"it-reworded","verdict":"flaky"}]}`
	if err := os.WriteFile(filepath.Join(dir, "feedback.json"), []byte(fb), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runApp(t, "status", "--require-complete", dir); code != 0 {
		t.Errorf("complete review: exit %d\n%s", code, stderr)
	}
	code, out, _ := runApp(t, "status", "--json", "--fail-on", "incorrect,flaky", dir)
	if code != clierr.CodeFailure {
		t.Errorf("--fail-on incorrect,flaky: exit %d, want 1", code)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Reviewed != 6 || rep.Verdicts["flaky"] != 1 || rep.Gate == nil || rep.Gate.Passed || len(rep.Gate.Problems) != 2 {
		t.Errorf("report %+v gate %+v", rep, rep.Gate)
	}
}

func TestJSONErrorsAndAmbiguousRuns(t *testing.T) {
	project := t.TempDir()
	runs := filepath.Join(project, ".agentv", "results", "runs", "default")
	for _, r := range []struct{ name, id string }{{"iterations-1", "2026-11-30T07-51-38-262Z"}, {"iterations-2", "2026-11-30T07-51-40-206Z"}} {
		if err := os.CopyFS(filepath.Join(runs, r.id), os.DirFS(filepath.Join(corpus, r.name))); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runApp(t, "status", "--json", project)
	if code != clierr.CodeInvalid {
		t.Fatalf("two runs: exit %d, want 3", code)
	}
	var je jsonError
	if err := json.Unmarshal([]byte(out), &je); err != nil || je.Error.Code != 3 || je.Error.Hint == "" {
		t.Errorf("--json error document %q (%v)", out, err)
	}
	newest := strings.Index(stderr, "07-51-40-206Z")
	oldest := strings.Index(stderr, "07-51-38-262Z")
	if newest < 0 || oldest < 0 || newest > oldest {
		t.Errorf("stderr should list both runs, newest first:\n%s", stderr)
	}

	// An existing feedback.json that is invalid is named with its field.
	dir := filepath.Join(runs, "2026-11-30T07-51-40-206Z")
	if err := os.WriteFile(filepath.Join(dir, "feedback.json"), []byte(`{"run_id": "x", "timestamp": "2026-11-30T10:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runApp(t, "status", dir)
	if code != clierr.CodeInvalid || !strings.Contains(stderr, "feedback.json") || !strings.Contains(stderr, `"reviewer"`) || !strings.Contains(stderr, "hint: ") {
		t.Errorf("invalid feedback.json: exit %d\n%s", code, stderr)
	}
}

// TestPositionsAgree: "#N" is the case's position in the run, the same
// in every listing (filtered or not, in review order) and in show and set.
func TestPositionsAgree(t *testing.T) {
	dir := filepath.Join(corpus, "core-pass-fail-error")
	for _, args := range [][]string{{}, {"--scope", "failures"}, {"--filter", "grader=contains"}} {
		_, out, _ := runApp(t, append(append([]string{"list", "--json"}, args...), dir)...)
		var rep listReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Cases) == 0 {
			t.Fatalf("list %v: %v\n%s", args, err, out)
		}
		for _, e := range rep.Cases {
			code, out, stderr := runApp(t, "show", "--json", dir, fmt.Sprintf("#%d", e.Pos))
			var got showReport
			if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
				t.Fatalf("show #%d: exit %d\n%s", e.Pos, code, stderr)
			}
			if got.TestID != e.TestID || got.Target != e.Target || got.Pos != e.Pos {
				t.Errorf("list %v row #%d is %s, show #%d is %s", args, e.Pos, e.Ref, e.Pos, got.Ref)
			}
		}
		_, text, _ := runApp(t, append(append([]string{"list"}, args...), dir)...)
		for _, e := range rep.Cases {
			if !strings.Contains(text, fmt.Sprintf("#%d  %s", e.Pos, e.Ref)) {
				t.Errorf("list %v text lacks #%d %s:\n%s", args, e.Pos, e.Ref, text)
			}
		}
	}
	if code, _, _ := runApp(t, "show", dir, "#16"); code != clierr.CodeUsage {
		t.Errorf("show #16 of 15: exit %d, want 2", code)
	}
}

func TestCommandHelp(t *testing.T) {
	for _, cmd := range []string{"status", "list", "show", "set", "history"} {
		code, out, _ := runApp(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "agentv review "+cmd+" [command options]") || strings.Contains(out, "agentv review agentv review") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
}

// TestShowChecksTheRowsItReads: show checks whole only the rows of the
// case it shows (run.Options.CheckKeptOnly): a case shows while another
// row has a malformed nested value, which status reports; showing that
// row, by ref or by position, fails with status's error.
func TestShowChecksTheRowsItReads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	mkdir(t, dir)
	rows := `{"test_id":"a","score":1,"target":"x"}` + "\n" +
		`{"test_id":"b","score":0,"target":"x","m":{"k":tru}}` + "\n" +
		`{"test_id":"c","score":1,"target":"x","m":[1,,2]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "index.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, statusErr := runApp(t, "status", dir)
	if code == 0 || !strings.Contains(statusErr, "index.jsonl:2") {
		t.Fatalf("status: exit %d\n%s", code, statusErr)
	}
	if code, out, stderr := runApp(t, "show", "--json", dir, "a"); code != 0 || !strings.Contains(out, `"test_id": "a"`) {
		t.Fatalf("show a: exit %d\n%s%s", code, out, stderr)
	}
	for _, ref := range []string{"b", "#2"} {
		if code, _, stderr := runApp(t, "show", dir, ref); code == 0 || stderr != statusErr {
			t.Errorf("show %s: exit %d\n%s\nwant status's error\n%s", ref, code, stderr, statusErr)
		}
	}
	if code, _, stderr := runApp(t, "show", dir, "#3"); code == 0 || !strings.Contains(stderr, "index.jsonl:3") {
		t.Errorf("show #3: exit %d\n%s", code, stderr)
	}
}
