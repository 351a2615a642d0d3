package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	pt "agentv-review/plugin/internal/prompt/prompttest"
	"agentv-review/plugin/internal/record"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

var update = flag.Bool("update", false, "rewrite golden files")

const corpus = "../../../testdata/agentv-4.42.4/runs"

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// fixture copies a corpus run into a temporary folder and returns a
// session config for it: reviewer "ana" (not asked), every case in scope.
func fixture(t *testing.T, name string) Config {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, name))); err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Run: r, Paths: feedback.PathsFor(dir, ""), Reviewer: "ana", ReviewerFixed: true, Scope: triage.ScopeAll,
		Out: &bytes.Buffer{}, Width: 100, Height: 40, Now: func() time.Time { return now }, Catalog: cat,
		Tool: feedback.Tool{Name: "agentv-review", Version: "test"},
	}
}

// clean answers one case with Enter three times: default verdict, no
// signals, no notes.
func clean() []pt.Step {
	return []pt.Step{pt.Enter("Verdict"), pt.MultiStep("notice"), pt.InputStep("Notes", "")}
}

func judged(verdict string, notes string, signals ...string) []pt.Step {
	return []pt.Step{pt.SelectByLabel("Verdict", verdict), pt.MultiStep("notice", signals...), pt.InputStep("Notes", notes)}
}

// fine answers "Is the test itself defective?" with No (Enter).
func fine() []pt.Step { return []pt.Step{pt.SelectByLabel("defective", "No")} }

// noGrader answers "Which grader got it wrong?" with none.
func noGrader() []pt.Step { return []pt.Step{pt.MultiStep("grader")} }

func closing(overall string, write bool) []pt.Step {
	return []pt.Step{pt.InputStep("Overall notes", overall), pt.ConfirmStep("Write feedback.json", write)}
}

func steps(groups ...[]pt.Step) []pt.Step {
	var out []pt.Step
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// golden compares got with testdata/golden/<name>, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "..", "testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// written reads and validates the feedback file the session wrote.
func written(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := feedback.Validate(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("written file is invalid: %v %v", err, problems)
	}
	return data
}

func TestEveryVerdictAndSkip(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	// Review order: it-fixed, it-stable-fail (failed), then the passes.
	p := pt.New(t, steps(
		judged("Needs improvement", "fixed soon", "Score-behaviour mismatch"), noGrader(), fine(),
		judged("Incorrect", "still wrong"),
		clean(),
		judged("Flaky", "flips", "Flaky results"),
		[]pt.Step{pt.SelectByLabel("Verdict", "Skip")},
		judged("Acceptable", ""),
		closing("iteration 1 looks fine", true),
	)...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 5 || res.Skipped != 1 || res.Written != cfg.Paths.Feedback {
		t.Errorf("result %+v", res)
	}
	golden(t, "review-every-verdict.json", written(t, cfg.Paths.Feedback))
	if _, err := os.Stat(cfg.Paths.Draft); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("draft should be gone after writing, stat: %v", err)
	}
}

// TestCleanCaseInThreeKeys: a passing case is judged acceptable with
// Enter, Enter, Enter, and nothing else is asked.
func TestCleanCaseInThreeKeys(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	cfg.Filter, _ = triage.ParseFilter("it-stable-pass")
	cfg.Scope = triage.ScopeFilter
	p := pt.New(t, steps(clean(), closing("", true))...)
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	if err := json.Unmarshal(written(t, cfg.Paths.Feedback), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.PerCase) != 1 || f.PerCase[0].Verdict != feedback.Acceptable || f.PerCase[0].TestID != "it-stable-pass" {
		t.Errorf("per_case %+v, want it-stable-pass acceptable", f.PerCase)
	}
}

func TestQuitAndInterruptKeepDraft(t *testing.T) {
	for _, tt := range []struct {
		name string
		stop pt.Step
		err  error
	}{
		{"save and quit", pt.SelectByLabel("Verdict", "Save and quit"), nil},
		{"ctrl-c", pt.Interrupt("Verdict"), clierr.ErrInterrupted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fixture(t, "iterations-1")
			res, err := Run(cfg, pt.New(t, steps(judged("Incorrect", "n1"), []pt.Step{tt.stop})...))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err == nil && !res.Quit {
				t.Error("result should say quit")
			}
			if clierr.Code(err) != map[bool]int{true: 130, false: 0}[tt.err != nil] {
				t.Errorf("exit code %d", clierr.Code(err))
			}
			draft, err := feedback.LoadDraft(cfg.Paths)
			if err != nil || draft == nil || len(draft.PerCase) != 1 || draft.PerCase[0].TestID != "it-fixed" {
				t.Fatalf("draft %+v, err %v: want the one answered case", draft, err)
			}
			if _, err := os.Stat(cfg.Paths.Feedback); !errors.Is(err, os.ErrNotExist) {
				t.Error("feedback.json must not be written by an unfinished review")
			}
			if !strings.Contains(cfg.Out.(*bytes.Buffer).String(), "resume with: agentv review") {
				t.Error("the session should say how to resume")
			}
		})
	}
}

func TestResumeCompletesDraft(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	if _, err := Run(cfg, pt.New(t, steps(judged("Incorrect", "n1"), []pt.Step{pt.Interrupt("Verdict")})...)); !errors.Is(err, clierr.ErrInterrupted) {
		t.Fatal(err)
	}
	draft, err := feedback.LoadDraft(cfg.Paths)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Draft = draft
	cfg.Scope = "" // taken from the draft
	p := pt.New(t, steps(
		[]pt.Step{pt.ConfirmStep("Resume", true)},
		judged("Incorrect", "n2"), clean(), clean(), clean(), clean(),
		closing("", true),
	)...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	if err := json.Unmarshal(written(t, res.Written), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.PerCase) != 6 || f.PerCase[0].Notes != "n1" || f.PerCase[1].Notes != "n2" {
		t.Errorf("per_case has %d entries, first notes %q", len(f.PerCase), f.PerCase[0].Notes)
	}
}

func TestDeclinedResumeKeepsBackup(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	Run(cfg, pt.New(t, steps(judged("Incorrect", "n1"), []pt.Step{pt.SelectByLabel("Verdict", "Save and quit")})...))
	draft, _ := feedback.LoadDraft(cfg.Paths)
	cfg.Draft = draft
	p := pt.New(t, pt.ConfirmStep("Resume", false), pt.SelectByLabel("Verdict", "Save and quit"))
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Paths.Draft + ".bak"); err != nil {
		t.Errorf("declined draft should be kept as .bak: %v", err)
	}
}

// TestAmendPrefillsAndArchives: an existing feedback.json pre-fills the
// answers, keeps entries not judged again, and is archived.
func TestAmendPrefillsAndArchives(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	old := &feedback.File{RunID: "iterations-1", Reviewer: "bo", Timestamp: "2026-11-29T09:00:00.000Z", PerCase: []feedback.Case{
		{TestID: "it-fixed", Verdict: feedback.Flaky, Notes: "old note", Signals: []string{"flaky_results"}},
		{TestID: "it-stable-pass", Verdict: feedback.NeedsImprovement},
	}}
	if err := feedback.Write(cfg.Paths.Feedback, old); err != nil {
		t.Fatal(err)
	}
	cfg.Existing = old
	cfg.Filter, _ = triage.ParseFilter("it-fixed")
	cfg.Scope = triage.ScopeFilter
	var gotDefaultNotes string
	// it-fixed failed: a suspicious case, so its recorded verdict is shown
	// and its notes and signals pre-filled, but the verdict is chosen.
	p := pt.New(t,
		pt.SelectByLabel("Verdict", "Flaky"), pt.Enter("notice"), pt.Enter("Notes"),
		pt.Enter("Overall notes"), pt.ConfirmStep("Write", true))
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	if err := json.Unmarshal(written(t, res.Written), &f); err != nil {
		t.Fatal(err)
	}
	fixed := entryOf(t, &f, cfg.Run, "it-fixed")
	gotDefaultNotes = fixed.Notes
	if fixed.Verdict != feedback.Flaky || gotDefaultNotes != "old note" || len(fixed.Signals) != 1 {
		t.Errorf("pre-filled answers not kept: %+v", fixed)
	}
	if kept := entryOf(t, &f, cfg.Run, "it-stable-pass"); kept == nil || kept.Verdict != feedback.NeedsImprovement {
		t.Errorf("entry not judged again must be kept: %+v", kept)
	}
	if res.Archived == "" || f.Previous != res.Archived {
		t.Fatalf("previous %q, archived %q", f.Previous, res.Archived)
	}
	arch, err := feedback.Load(filepath.Join(filepath.Dir(cfg.Paths.Feedback), res.Archived))
	if err != nil || arch.Reviewer != "bo" {
		t.Errorf("archived version %+v, %v", arch, err)
	}
}

func TestFilterAskedAndGraderOverrides(t *testing.T) {
	cfg := fixture(t, "core-pass-fail-error")
	cfg.Scope = ""
	p := pt.New(t,
		pt.SelectByLabel("review", "Filter"),
		pt.InputStep("Filter", "color=red"), // rejected, asked again
		pt.InputStep("Filter", "haiku"),
		pt.SelectByLabel("Verdict", "Acceptable"),
		pt.MultiStep("notice", "False negative"),
		pt.InputStep("Notes", "a fine haiku"),
		pt.MultiStep("grader", "llm-grader:haiku-judge"),
		pt.InputStep("haiku-judge", "syllable count is right"),
		pt.SelectByLabel("defective", "No"),
		pt.InputStep("Overall", ""), pt.ConfirmStep("Write", true))
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "review-overrides.json", written(t, res.Written))
}

func TestWorkspaceNotes(t *testing.T) {
	cfg := fixture(t, "workspace-file-changes")
	p := pt.New(t, steps(
		judged("Needs improvement", "docs thin"), []pt.Step{pt.InputStep("Workspace notes", "README only half updated")},
		clean(), []pt.Step{pt.InputStep("Workspace notes", "")},
		closing("", true))...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	json.Unmarshal(written(t, res.Written), &f)
	if f.PerCase[0].WorkspaceNotes != "README only half updated" {
		t.Errorf("workspace notes %q", f.PerCase[0].WorkspaceNotes)
	}
}

func TestNotWrittenWhenDeclined(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	cfg.Filter, _ = triage.ParseFilter("it-stable-pass")
	cfg.Scope = triage.ScopeFilter
	res, err := Run(cfg, pt.New(t, steps(clean(), closing("", false))...))
	if err != nil || !res.Quit || res.Written != "" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if d, _ := feedback.LoadDraft(cfg.Paths); d == nil || len(d.PerCase) != 1 {
		t.Errorf("draft should keep the answer, got %+v", d)
	}
}

// TestCarryForward: an unchanged output offers the earlier verdict; a
// changed one shows it as stale and asks afresh.
func TestCarryForward(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	cfg.Filter, _ = triage.ParseFilter("it-stable-*")
	cfg.Scope = triage.ScopeFilter
	// Fingerprints as the session computes them.
	fp := map[string]string{}
	for _, c := range cfg.Run.Cases {
		d, err := cfg.Run.Detail(c)
		if err != nil {
			t.Fatal(err)
		}
		fp[c.TestID], _ = record.Fingerprint(cfg.Run, d, 1) // an earlier run written before fingerprint v2
	}
	at := func(ref string) int { return int(find(t, cfg.Run, ref).Index) }
	cfg.Prior = map[int]PriorVerdict{
		at("it-stable-fail"): {RunID: "iterations-0", Case: feedback.Case{TestID: "it-stable-fail", Verdict: feedback.Incorrect, Fingerprint: fp["it-stable-fail"], Reviewer: "bo", ReviewedAt: "2026-11-29T09:00:00.000Z"}},
		at("it-stable-pass"): {RunID: "iterations-0", Case: feedback.Case{TestID: "it-stable-pass", Verdict: feedback.NeedsImprovement, Fingerprint: "sha256:" + strings.Repeat("0", 64)}},
	}
	// it-stable-pass: the earlier verdict is stale, so it is shown but not
	// pre-selected: Enter alone records nothing and the question comes again.
	p := pt.New(t, steps(
		[]pt.Step{pt.ConfirmStep("Keep that verdict", true)},
		[]pt.Step{pt.Enter("Verdict"), pt.SelectByLabel("Verdict", "Acceptable"), pt.Enter("notice"), pt.Enter("Notes")},
		closing("", true))...)
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	json.Unmarshal(written(t, res.Written), &f)
	fail := entryOf(t, &f, cfg.Run, "it-stable-fail")
	if fail.Verdict != feedback.Incorrect || fail.CarriedFrom == nil || fail.CarriedFrom.RunID != "iterations-0" || fail.Reviewer != "ana" {
		t.Errorf("carried entry %+v", fail)
	}
	pass := entryOf(t, &f, cfg.Run, "it-stable-pass")
	if !pass.Stale || pass.CarriedFrom != nil || pass.Verdict != feedback.Acceptable {
		t.Errorf("changed output: want stale, judged afresh, not carried: %+v", pass)
	}
	if out := cfg.Out.(*bytes.Buffer).String(); !strings.Contains(out, "needs_improvement (output or test changed since: stale)") || !strings.Contains(out, "No verdict recorded") {
		t.Errorf("the stale earlier verdict should be shown and Enter alone refused:\n%s", out)
	}
}

// hazardFree is an Asker that fails the test when a prompt carries a
// terminal control character, and otherwise skips every case.
type hazardFree struct{ t *testing.T }

func (h hazardFree) check(parts ...string) {
	for _, p := range parts {
		if i := strings.IndexAny(p, controls); i >= 0 {
			h.t.Fatalf("control character %q in prompt text %q", p[i], p)
		}
	}
}

const controls = "\x1b\x07\x08\r\x7f\u009b\u009d\u0090\u202e\u2066"

func (h hazardFree) Select(msg string, options []string, def int, help string) (int, error) {
	h.check(append(options, msg, help)...)
	if msg == "Verdict" {
		return slices.IndexFunc(options, func(o string) bool { return strings.HasPrefix(o, "Skip") }), nil
	}
	return def, nil
}

func (h hazardFree) MultiSelect(msg string, options []string, defaults []int, help string) ([]int, error) {
	h.check(append(options, msg, help)...)
	return defaults, nil
}

func (h hazardFree) Input(msg, def, help string) (string, error) {
	h.check(msg, def, help)
	return def, nil
}

func (h hazardFree) Confirm(msg string, def bool, help string) (bool, error) {
	h.check(msg, help)
	return false, nil
}

func (h hazardFree) Editor(msg, def, help string) (string, error) {
	h.check(msg, def, help)
	return def, nil
}

// TestHazardsStayInert walks every case of the terminal-hazards run: no
// ESC, CSI, OSC, C1, BEL, BS, CR, DEL or bidi override from the run reaches
// the screen or a prompt.
func TestHazardsStayInert(t *testing.T) {
	cfg := fixture(t, "terminal-hazards")
	if _, err := Run(cfg, hazardFree{t}); err != nil {
		t.Fatal(err)
	}
	out := cfg.Out.(*bytes.Buffer).String()
	if i := strings.IndexAny(out, controls); i >= 0 {
		t.Fatalf("control character %q on screen near %q", out[i], out[max(0, i-60):min(len(out), i+60)])
	}
	// Wide (CJK, emoji) and right-to-left text must not break the layout:
	// every line of the evidence screens fits the width (messages naming
	// the run's path are left to the terminal to wrap).
	for i, line := range strings.Split(out, "\n") {
		if w := termtext.Width(line); w > cfg.Width && !strings.Contains(line, cfg.Run.Dir) {
			t.Errorf("screen line %d is %d cells, over %d: %q", i+1, w, cfg.Width, line)
		}
	}
	for _, want := range []string{"case 7 of 7", "␛[", "ünïcødé-テスト-id"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

// TestAmendDocumentedShape: an entry with only a test id (AgentV's
// documented shape) is the same case when the test id is unique in the
// run: amending replaces it instead of adding a second verdict.
func TestAmendDocumentedShape(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	old := &feedback.File{RunID: "iterations-1", Reviewer: "bo", Timestamp: "2026-11-29T09:00:00.000Z",
		PerCase: []feedback.Case{{TestID: "it-fixed", Verdict: feedback.Flaky}}}
	if err := feedback.Write(cfg.Paths.Feedback, old); err != nil {
		t.Fatal(err)
	}
	cfg.Existing = old
	cfg.Filter, _ = triage.ParseFilter("it-fixed")
	cfg.Scope = triage.ScopeFilter
	res, err := Run(cfg, pt.New(t, steps(judged("Incorrect", ""), closing("", true))...))
	if err != nil {
		t.Fatal(err)
	}
	var f feedback.File
	json.Unmarshal(written(t, res.Written), &f)
	if len(f.PerCase) != 1 || f.PerCase[0].Target != "canned" || f.PerCase[0].Verdict != feedback.Incorrect {
		t.Errorf("per_case %+v: want the one entry replaced", f.PerCase)
	}
}

// TestQuitFirstKeepsScope: quitting before any answer still leaves a draft
// that remembers the reviewer and the scope.
func TestQuitFirstKeepsScope(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	cfg.Scope = triage.ScopeFailures
	if _, err := Run(cfg, pt.New(t, pt.SelectByLabel("Verdict", "Save and quit"))); err != nil {
		t.Fatal(err)
	}
	d, err := feedback.LoadDraft(cfg.Paths)
	if err != nil || d == nil || len(d.PerCase) != 0 || d.Reviewer != "ana" || d.Scope == nil || d.Scope.Mode != triage.ScopeFailures {
		t.Fatalf("draft %+v, %v", d, err)
	}
}

// TestHostileRunDirName: a run folder's name is untrusted too: it reaches
// the screen sanitised in every message that names a path.
func TestHostileRunDirName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evil\x1b]0;pwned\x07\x1b[2Jrun")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus, "iterations-1"))); err != nil {
		t.Fatal(err)
	}
	cfg := fixture(t, "iterations-1")
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run, cfg.Paths = r, feedback.PathsFor(dir, "")
	if _, err := Run(cfg, pt.New(t, steps(judged("Incorrect", ""), []pt.Step{pt.Interrupt("Verdict")})...)); !errors.Is(err, clierr.ErrInterrupted) {
		t.Fatal(err)
	}
	out := cfg.Out.(*bytes.Buffer).String()
	if i := strings.IndexAny(out, controls); i >= 0 {
		t.Fatalf("control character %q on screen near %q", out[i], out[max(0, i-60):min(len(out), i+60)])
	}
	if !strings.Contains(out, "evil␛]0;pwned␇␛[2Jrun") {
		t.Errorf("the folder name should be shown, made visible:\n%s", out)
	}
}

func find(t *testing.T, r *run.Run, ref string) *run.Case {
	t.Helper()
	c, err := r.Find(ref)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// entryOf is the entry of f that judges the case ref names, nil when none.
func entryOf(t *testing.T, f *feedback.File, r *run.Run, ref string) *feedback.Case {
	t.Helper()
	return feedback.Bind(f, r.CaseIDs()).Entry(int(find(t, r, ref).Index))
}
