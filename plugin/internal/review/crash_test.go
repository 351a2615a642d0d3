package review

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

// Crash safety: a child process (this test binary, re-executed with
// AGENTV_REVIEW_CRASH_CHILD=1) reviews every case of a copied run whose
// feedback.json already holds an earlier valid version, and prints
// "answered N" once N answers are in the draft. The parent kills it with
// SIGKILL after a random (seeded) delay and checks what a crash can leave:
//
//   - feedback.json is the earlier version byte for byte, or the new
//     version, valid and complete; never partial or invalid;
//   - the draft, when present, is valid and holds at least the N answers
//     the child reported; it is absent only before the first answer or
//     after the new feedback.json is in place;
//   - feedback.history holds only copies of the earlier version;
//   - the only other leftovers are the durable writer's temp files,
//     ".<name>.tmp-<digits>" beside feedback.json, the draft or the
//     history copy (feedback's writeDurable: a SIGKILL between CreateTemp
//     and Rename/Remove leaves one). They never replace the real file and
//     no reader looks at them: the run still opens, the feedback and the
//     draft still load.
//
// The delays are reproducible from the seed; where in the session each
// delay lands depends on the machine's speed, so the test log counts the
// kill points actually reached.
const (
	crashChildEnv = "AGENTV_REVIEW_CRASH_CHILD"
	crashDirEnv   = "AGENTV_REVIEW_CRASH_DIR"
	crashRun      = "core-pass-fail-error" // 15 cases
	crashCases    = 15
	crashSeed     = 20261130
	crashTrials   = 100
)

// leftoverTemp matches the temp files a killed durable write can leave.
var leftoverTemp = regexp.MustCompile(`^\.feedback(\.draft|\.[0-9TZ.-]+)?\.json\.tmp-[0-9]+$`)

func TestCrashSafety(t *testing.T) {
	if os.Getenv(crashChildEnv) == "1" {
		crashChild(t, os.Getenv(crashDirEnv))
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary 100 times")
	}
	template := filepath.Join(t.TempDir(), "template")
	if err := os.CopyFS(template, os.DirFS(filepath.Join(corpus, crashRun))); err != nil {
		t.Fatal(err)
	}

	// Uninterrupted sessions size the delays: kills land anywhere from
	// process start to a little after the end of the fastest of three.
	span := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		if n, done, _ := crashTrial(t, template, -1); n != crashCases || !done {
			t.Fatalf("an uninterrupted child answered %d and done=%v, want %d and true", n, done, crashCases)
		}
		span = min(span, time.Since(start)*11/10)
	}

	rng := rand.New(rand.NewSource(crashSeed))
	delays := make([]time.Duration, crashTrials)
	for i := range delays {
		delays[i] = time.Duration(rng.Int63n(int64(span)))
	}
	var mu sync.Mutex
	reached := map[string]int{}
	leftovers := map[string]int{}
	t.Run("kill", func(t *testing.T) {
		for i, delay := range delays {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				n, done, temps := crashTrial(t, template, delay)
				if t.Failed() {
					t.Logf("seed %d, delay %v", crashSeed, delay)
				}
				point := fmt.Sprintf("answered %02d", n)
				if done {
					point = "finished"
				}
				mu.Lock()
				reached[point]++
				for _, name := range temps {
					leftovers[name[:strings.LastIndexByte(name, '-')+1]+"N"]++
				}
				mu.Unlock()
			})
		}
	})
	t.Logf("seed %d, %d trials, delays in [0, %v): kill points reached %v; temp files left: %v", crashSeed, crashTrials, span, reached, leftovers)
}

// crashTrial copies the run, starts a child on it, kills it after delay
// (never when delay < 0), checks what is left and returns the last count
// the child reported, whether it finished and the temp files left.
func crashTrial(t *testing.T, template string, delay time.Duration) (answered int, done bool, temps []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), crashRun)
	if err := os.CopyFS(dir, os.DirFS(template)); err != nil {
		t.Fatal(err)
	}
	p := feedback.PathsFor(dir, "")
	previous := &feedback.File{
		RunID: crashRun, Reviewer: "earlier", Timestamp: "2026-01-01T00:00:00.000Z",
		PerCase: []feedback.Case{{TestID: "capital-france", Target: "canned", Verdict: feedback.Flaky, Notes: "earlier version"}},
	}
	if err := feedback.Write(p.Feedback, previous); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(p.Feedback)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
	cmd.Env = append(os.Environ(), crashChildEnv+"=1", crashDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if delay >= 0 {
		timer := time.AfterFunc(delay, func() { cmd.Process.Kill() })
		defer timer.Stop()
	} else {
		timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // never hang
		defer timer.Stop()
	}
	sc := bufio.NewScanner(out) // lines written before the kill are still in the pipe
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "answered "); ok {
			answered, _ = strconv.Atoi(v)
		}
		done = done || sc.Text() == "written"
	}
	waitErr := cmd.Wait()
	if delay < 0 && waitErr != nil {
		t.Fatalf("uninterrupted child: %v", waitErr)
	}

	return answered, done, checkCrashLeftovers(t, dir, old, answered, done)
}

// checkCrashLeftovers asserts the crash-safety properties listed at the
// top of this file.
// It returns the names of the temp files left.
func checkCrashLeftovers(t *testing.T, dir string, old []byte, answered int, done bool) (temps []string) {
	t.Helper()
	p := feedback.PathsFor(dir, "")
	data, err := os.ReadFile(p.Feedback)
	if err != nil {
		t.Fatalf("feedback.json: %v", err)
	}
	replaced := !bytes.Equal(data, old)
	if replaced {
		f, err := feedback.Load(p.Feedback)
		if err != nil {
			t.Fatalf("feedback.json is neither the earlier version nor valid: %v\n%s", err, data)
		}
		if len(f.PerCase) != crashCases || f.Previous == "" {
			t.Errorf("new feedback.json has %d cases and previous %q, want %d and the archived copy", len(f.PerCase), f.Previous, crashCases)
		}
	} else if done {
		t.Error("the child finished but feedback.json is still the earlier version")
	}

	draft, err := feedback.LoadDraft(p)
	switch {
	case err != nil:
		t.Errorf("draft is unreadable after the crash: %v", err)
	case draft == nil && answered > 0 && !replaced:
		t.Errorf("the child reported %d answers, but there is no draft and feedback.json is the earlier version", answered)
	case draft != nil && len(draft.PerCase) < answered:
		t.Errorf("draft holds %d answers, the child reported %d", len(draft.PerCase), answered)
	}

	entries, err := os.ReadDir(p.HistoryDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if leftoverTemp.MatchString(e.Name()) {
			temps = append(temps, e.Name())
			continue
		}
		if got, err := os.ReadFile(filepath.Join(p.HistoryDir, e.Name())); err != nil || !bytes.Equal(got, old) {
			t.Errorf("history file %s is not a copy of the earlier version (err %v)", e.Name(), err)
		}
	}

	ours := map[string]bool{"feedback.json": true, "feedback.draft.json": true, "feedback.history": true}
	entries, err = os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(corpus, crashRun, e.Name())); err == nil || ours[e.Name()] {
			continue
		}
		if !leftoverTemp.MatchString(e.Name()) {
			t.Errorf("unexpected file %s left in the run directory", e.Name())
		}
		temps = append(temps, e.Name())
	}
	if _, err := run.Open(dir, run.Options{}); err != nil {
		t.Errorf("the run does not open after the crash: %v", err)
	}
	return temps
}

// crashChild reviews every case of the run in dir, as the app would with
// the earlier feedback.json loaded, reporting each durable answer.
func crashChild(t *testing.T, dir string) {
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := feedback.PathsFor(dir, "")
	existing, err := feedback.Load(p.Feedback)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Run: r, Paths: p, Existing: existing, Reviewer: "crash", ReviewerFixed: true, Scope: triage.ScopeAll,
		Out: io.Discard, Width: 100, Height: 40, Catalog: cat, Tool: feedback.Tool{Name: "agentv-review", Version: "test"},
	}
	if _, err := Run(cfg, &crashAsker{cat: cat}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("written")
}

// crashAsker answers every case with a verdict (cycling through them), no
// signals and a short note, and writes feedback.json at the end. When it
// is asked for the next verdict or the overall notes, the session has
// already saved the previous answer to the draft, so it reports the count.
type crashAsker struct {
	cat      *prompts.Catalog
	verdicts int
}

func (a *crashAsker) report() { fmt.Printf("answered %d\n", a.verdicts) }

func (a *crashAsker) Select(msg string, _ []string, _ int, _ string) (int, error) {
	if msg == a.cat.Q("test_defect").Message {
		return 0, nil // no
	}
	if msg != a.cat.Q("verdict").Message {
		return 0, fmt.Errorf("crash child: unexpected select %q", msg)
	}
	a.report()
	a.verdicts++
	return a.verdicts % len(a.cat.Verdicts), nil // the verdicts are the first options
}

func (a *crashAsker) MultiSelect(string, []string, []int, string) ([]int, error) { return nil, nil }

func (a *crashAsker) Input(msg, _, _ string) (string, error) {
	if msg == a.cat.Q("overall_notes").Message {
		a.report()
	}
	return "crash trial", nil
}

func (a *crashAsker) Confirm(msg string, _ bool, _ string) (bool, error) {
	if msg != a.cat.Q("confirm_write").Message {
		return false, fmt.Errorf("crash child: unexpected confirm %q", msg)
	}
	return true, nil
}

func (a *crashAsker) Editor(msg, _, _ string) (string, error) {
	return "", fmt.Errorf("crash child: unexpected editor %q", msg)
}
