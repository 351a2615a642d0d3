package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
)

func statusOf(t *testing.T, args ...string) (int, statusReport, string) {
	t.Helper()
	code, out, stderr := runApp(t, append([]string{"status", "--json"}, args...)...)
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("status %v: %v\n%s%s", args, err, out, stderr)
	}
	return code, rep, stderr
}

func counts(rep statusReport) [4]int {
	return [4]int{rep.Reviewed, rep.Proposed, rep.Stale, rep.Unreviewed}
}

// TestProposalsAreNotReviews: an agent's judgments are proposals until a
// human confirms them; the completeness gate wants human verdicts unless
// told that proposals will do; list marks them.
func TestProposalsAreNotReviews(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	mustRun(t, "set", "--agent", "--verdict", "acceptable", dir, "ws-fix-bug")
	mustRun(t, "set", "--agent", "--verdict", "incorrect", dir, "ws-add-docs")
	code, rep, _ := statusOf(t, "--require-complete", dir)
	if code != clierr.CodeFailure || counts(rep) != [4]int{0, 2, 0, 0} || rep.Verdicts["acceptable"] != 0 || rep.ProposedVerdicts["incorrect"] != 1 {
		t.Errorf("two proposals: exit %d, counts %v, verdicts %v / %v", code, counts(rep), rep.Verdicts, rep.ProposedVerdicts)
	}
	if rep.Gate == nil || len(rep.Gate.Problems) != 2 || rep.Gate.Problems[0].Problem != stateProposed {
		t.Errorf("gate %+v: want both cases failing as proposed", rep.Gate)
	}
	if code, _, _ := statusOf(t, "--require-complete", "--accept-proposals", dir); code != 0 {
		t.Errorf("--accept-proposals: exit %d, want 0", code)
	}
	// A human confirms one.
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "ws-fix-bug")
	if _, rep, _ := statusOf(t, dir); counts(rep) != [4]int{1, 1, 0, 0} || rep.Verdicts["acceptable"] != 1 {
		t.Errorf("after a human verdict: counts %v verdicts %v", counts(rep), rep.Verdicts)
	}
	_, out, _ := runApp(t, "list", "--json", dir)
	var list listReport
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Cases {
		want := map[string]string{"ws-fix-bug": stateReviewed + " human", "ws-add-docs": stateProposed + " agent"}[e.TestID]
		if e.ReviewerKind == nil || e.State+" "+*e.ReviewerKind != want {
			t.Errorf("list %s: state %q kind %v, want %s", e.TestID, e.State, e.ReviewerKind, want)
		}
	}
	if _, text, _ := runApp(t, "list", dir); !strings.Contains(text, "incorrect (proposed)") {
		t.Errorf("list text should mark the proposal:\n%s", text)
	}
}

// TestStaleWithinRun: a verdict no longer applies when AgentV re-ran the
// case (a row appended), or when its answer changed on disk (found by
// --verify and by the gate, which verifies).
func TestStaleWithinRun(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "ws-fix-bug")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "incorrect", dir, "ws-add-docs")
	if code, rep, _ := statusOf(t, "--require-complete", dir); code != 0 || counts(rep) != [4]int{2, 0, 0, 0} {
		t.Fatalf("both judged: exit %d counts %v", code, counts(rep))
	}

	// The answer judged changes on disk: only a fingerprint check sees it.
	answer := filepath.Join(dir, "workspace", "ws-fix-bug", "outputs", "answer.md")
	if err := os.WriteFile(answer, []byte("a different answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, rep, _ := statusOf(t, dir); counts(rep) != [4]int{2, 0, 0, 0} || rep.Verified {
		t.Errorf("without --verify: counts %v verified %v", counts(rep), rep.Verified)
	}
	if _, rep, stderr := statusOf(t, "--verify", dir); counts(rep) != [4]int{1, 0, 1, 0} || !rep.Verified ||
		!strings.Contains(strings.Join(rep.Warnings, "\n"), "1 verdict(s) no longer match") || !strings.Contains(stderr, "no longer match") {
		t.Errorf("--verify after the answer changed: counts %v, warnings %v", counts(rep), rep.Warnings)
	}
	code, rep, _ := statusOf(t, "--require-complete", dir)
	if code != clierr.CodeFailure || rep.Gate == nil || len(rep.Gate.Problems) != 1 || rep.Gate.Problems[0].Problem != stateStale {
		t.Errorf("gate after the answer changed: exit %d gate %+v", code, rep.Gate)
	}

	// AgentV --rerun-failed appends a row for ws-add-docs with a new score.
	manifest := filepath.Join(dir, "index.jsonl")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	rerun := rows[1]
	rerun["score"], rerun["execution_status"] = 1.0, "ok"
	b, _ := json.Marshal(rerun)
	if err := os.WriteFile(manifest, append(data, append(b, '\n')...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, rep, _ := statusOf(t, dir); counts(rep) != [4]int{1, 0, 1, 0} {
		t.Errorf("after a re-run row: counts %v, want ws-add-docs stale", counts(rep))
	}
	if code, out, _ := runApp(t, "show", "--json", dir, "ws-add-docs"); code != 0 || !strings.Contains(out, `"state": "stale"`) {
		t.Errorf("show of the re-run case: exit %d, want state stale", code)
	}
}

// TestForeignFeedbackIsNotThisRunsReview: a feedback.json copied from
// another run is reported, counts for nothing, and fails the gate.
func TestForeignFeedbackIsNotThisRunsReview(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	other := copyRun(t, "workspace-file-changes")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", other, "ws-fix-bug")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", other, "ws-add-docs")
	data, err := os.ReadFile(filepath.Join(other, "feedback.json"))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"run_id": "workspace-file-changes"`, `"run_id": "2026-11-29T08-00-00-000Z"`, 1))
	if err := os.WriteFile(filepath.Join(dir, "feedback.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, rep, stderr := statusOf(t, "--require-complete", dir)
	if code != clierr.CodeFailure || counts(rep) != [4]int{0, 0, 0, 2} || rep.FeedbackRunID == nil || *rep.FeedbackRunID != "2026-11-29T08-00-00-000Z" {
		t.Errorf("foreign feedback: exit %d counts %v run id %v", code, counts(rep), rep.FeedbackRunID)
	}
	if !strings.Contains(stderr, "copied from another run") || len(rep.Warnings) == 0 {
		t.Errorf("foreign feedback should be warned about: %q %v", stderr, rep.Warnings)
	}
	// Judging the run replaces the foreign file (kept in the history), never merges into it.
	mustRun(t, "set", "--reviewer", "bo", "--verdict", "incorrect", dir, "ws-add-docs")
	if _, rep, _ := statusOf(t, dir); counts(rep) != [4]int{1, 0, 0, 1} || rep.FeedbackRunID == nil || *rep.FeedbackRunID != "workspace-file-changes" {
		t.Errorf("after judging: counts %v run id %v", counts(rep), rep.FeedbackRunID)
	}
}

// TestFlatFilesHaveTheirOwnFeedback: several flat results files (AgentV
// v1–v3) in one folder are several runs; each gets its own feedback file.
func TestFlatFilesHaveTheirOwnFeedback(t *testing.T) {
	src := filepath.Join("../../../../shared/fixtures/agentv-upstream", "06-flat-jsonl-v4-wire")
	if _, err := os.Stat(src); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("upstream fixtures are required in CI: %v", err)
		}
		t.Skipf("upstream fixtures absent: %v", err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "suite.baseline.jsonl"), filepath.Join(dir, "trials.suite.baseline.jsonl")
	_, out, _ := runApp(t, "list", "--json", a)
	var list listReport
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Cases) == 0 {
		t.Fatalf("list %s: %v\n%s", a, err, out)
	}
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", a, "#1")
	if _, err := os.Stat(filepath.Join(dir, "suite.baseline.feedback.json")); err != nil {
		t.Fatalf("the first file's feedback: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "feedback.json")); err == nil {
		t.Error("a shared feedback.json was written for a flat results file")
	}
	if _, rep, _ := statusOf(t, b); rep.Reviewed != 0 || rep.Feedback != nil {
		t.Errorf("the second file shares the first's review: reviewed %d, feedback %v", rep.Reviewed, rep.Feedback)
	}
	if _, rep, _ := statusOf(t, a); rep.Reviewed != 1 {
		t.Errorf("the first file: reviewed %d, want 1", rep.Reviewed)
	}
}

// TestExportNeverOverwritesARun: export --out refuses every file of a run
// it reads (manifest, sidecars, feedback, draft, history) and an existing
// file without --force.
func TestExportNeverOverwritesARun(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "ws-fix-bug")
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "incorrect", dir, "ws-add-docs") // archives the first version
	history, _ := filepath.Glob(filepath.Join(dir, "feedback.history", "*.json"))
	targets := append([]string{
		filepath.Join(dir, "index.jsonl"), filepath.Join(dir, "feedback.json"), filepath.Join(dir, "feedback.draft.json"),
		filepath.Join(dir, "workspace", "ws-fix-bug", "outputs", "answer.md"), filepath.Join(dir, "new-file.csv"),
	}, history...)
	for _, target := range targets {
		before, _ := os.ReadFile(target)
		code, _, stderr := runApp(t, "export", "--format", "csv", "--force", "--out", target, dir)
		after, _ := os.ReadFile(target)
		if code != clierr.CodeUsage || string(after) != string(before) || !strings.Contains(stderr, "is inside run") {
			t.Errorf("export --out %s: exit %d, file changed %v\n%s", target, code, string(after) != string(before), stderr)
		}
	}
	out := filepath.Join(t.TempDir(), "verdicts.csv")
	mustRun(t, "export", "--format", "csv", "--out", out, dir)
	if code, _, _ := runApp(t, "export", "--format", "csv", "--out", out, dir); code != clierr.CodeUsage {
		t.Errorf("export over an existing file without --force: exit %d, want 2", code)
	}
	mustRun(t, "export", "--format", "csv", "--force", "--out", out, dir)
	// Holdout cases are withheld unless asked for.
	_, csv, stderr := runApp(t, "export", "--format", "csv", "--holdout", "ws-add-*", dir)
	if strings.Contains(csv, "ws-add-docs") || !strings.Contains(csv, "ws-fix-bug") || !strings.Contains(stderr, "1 row(s) of holdout cases withheld") {
		t.Errorf("holdout export:\n%s\n%s", csv, stderr)
	}
	if _, csv, _ := runApp(t, "export", "--format", "csv", "--holdout", "ws-add-*", "--include-holdout", dir); !strings.Contains(csv, "ws-add-docs") {
		t.Errorf("--include-holdout should export the holdout case:\n%s", csv)
	}
}

// TestRunFunctionsWithoutMain: every non-interactive command is an options
// value and a run function, callable with any streams and clock.
func TestRunFunctionsWithoutMain(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	var out, errOut strings.Builder
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := &Streams{In: strings.NewReader(`{"test_id":"ws-add-docs","verdict":"incorrect"}`), Out: &out, Err: &errOut,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return at }, LockWait: time.Second}
	if err := runApply(s, applyOptions{write: writeOptions{Target: dir, Reviewer: "ana"}, From: "-"}); err != nil {
		t.Fatalf("runApply: %v\n%s", err, errOut.String())
	}
	if err := runSet(s, setOptions{write: writeOptions{Target: dir, Reviewer: "ana"}, Ref: "#1", Answer: feedback.Case{Verdict: feedback.Acceptable}}); err != nil {
		t.Fatalf("runSet: %v", err)
	}
	out.Reset()
	if err := runStatus(s, statusOptions{Target: dir, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil || rep.Reviewed != 2 {
		t.Errorf("runStatus: %v, reviewed %d\n%s", err, rep.Reviewed, out.String())
	}
	f, err := feedback.Load(filepath.Join(dir, "feedback.json"))
	if err != nil || f.PerCase[0].ReviewedAt != "2026-12-01T09:00:00.000Z" {
		t.Errorf("the injected clock stamps the verdicts: %v %+v", err, f)
	}
	for name, run := range map[string]func() error{
		"list":     func() error { return runList(s, listOptions{Target: dir, JSON: true}) },
		"show":     func() error { return runShow(s, showOptions{Target: dir, Ref: "ws-fix-bug", JSON: true}) },
		"validate": func() error { return runValidate(s, validateOptions{Path: filepath.Join(dir, "feedback.json")}) },
		"history":  func() error { return runHistory(s, historyOptions{Target: dir}) },
	} {
		if err := run(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestListCrossRunReasons: list ranks a case that regressed since the
// previous run (ordered by when the runs ran) as suspicious, with the reason.
func TestListCrossRunReasons(t *testing.T) {
	root := copyIterations(t)
	_, out, _ := runApp(t, "list", "--json", filepath.Join(root, iterationRuns[2].id))
	var list listReport
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range list.Cases {
		for _, r := range e.Reasons {
			if e.TestID == "it-regressed" && r.Code == "regressed" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("it-regressed lacks the regressed reason in run 3:\n%s", out)
	}
}

// TestFeedbackFilesNeverBlock: a feedback.json, draft or lock file that is
// a FIFO (or a symlink out of the run) is reported, never opened and
// waited on.
func TestFeedbackFilesNeverBlock(t *testing.T) {
	for _, name := range []string{"feedback.json", "feedback.draft.json", "feedback.lock"} {
		t.Run(name, func(t *testing.T) {
			dir := copyRun(t, "workspace-file-changes")
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan string, 1)
			go func() {
				code, _, stderr := runApp(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "ws-fix-bug")
				done <- fmt.Sprintf("exit %d: %s", code, stderr)
			}()
			select {
			case got := <-done:
				if !strings.Contains(got, "FIFO") || strings.HasPrefix(got, "exit 0") {
					t.Errorf("a FIFO %s: %s", name, got)
				}
			case <-time.After(time.Minute):
				t.Fatalf("set blocked on a FIFO %s", name)
			}
		})
	}
}

// TestOutOfRangeScoreIsReviewable: a row whose score is outside 0..1 can
// be judged, and the machine verdict is recorded as it is.
func TestOutOfRangeScoreIsReviewable(t *testing.T) {
	dir := copyRun(t, "workspace-file-changes")
	manifest := filepath.Join(dir, "index.jsonl")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"score":1,`, `"score":1.5,`, 1))
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "set", "--reviewer", "ana", "--verdict", "acceptable", dir, "ws-fix-bug")
	f, err := feedback.Load(filepath.Join(dir, "feedback.json"))
	if err != nil || f.PerCase[0].Automated == nil || *f.PerCase[0].Automated.Score != 1.5 {
		t.Errorf("recorded %+v, %v; want the score 1.5 as the run has it", f, err)
	}
}
