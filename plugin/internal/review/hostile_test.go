package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	pt "agentv-review/plugin/internal/prompt/prompttest"
	"agentv-review/plugin/internal/triage"
)

// removing is an Asker that deletes the run directory when it is asked
// its n-th question, then lets the script answer.
type removing struct {
	*pt.Prompter
	dir   string
	n     int
	asked int
}

func (r *removing) Select(msg string, options []string, def int, help string) (int, error) {
	if r.asked++; r.asked == r.n {
		if err := os.RemoveAll(r.dir); err != nil {
			return 0, err
		}
	}
	return r.Prompter.Select(msg, options, def, help)
}

// TestRunDirDeletedMidReview: the run directory disappears while the
// reviewer judges the third case. The draft lived in it, so the two
// earlier answers are gone with it, and the third, held in memory, cannot
// be saved. The session does not panic and does not recreate the folder:
// it stops at the failed draft save with one line naming the draft
// ("<run>/feedback.draft.json: cannot write: no such file or directory",
// exit 1), whose hint names a rescue file in the temporary folder that
// holds all three answers.
func TestRunDirDeletedMidReview(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	p := &removing{Prompter: pt.New(t, steps(judged("Incorrect", ""), judged("Incorrect", ""), clean())...), dir: cfg.Run.Dir, n: 3}
	res, err := Run(cfg, p)
	if err == nil {
		t.Fatal("the session succeeded without its run directory")
	}
	if clierr.Code(err) != clierr.CodeFailure || !strings.Contains(err.Error(), cfg.Paths.Draft+": cannot write") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q (exit %d), want one line naming %s, exit 1", err, clierr.Code(err), cfg.Paths.Draft)
	}
	hint := clierr.HintOf(err)
	rescue := strings.Fields(strings.SplitAfter(hint, " are saved in ")[len(strings.SplitAfter(hint, " are saved in "))-1])[0]
	rescue = strings.TrimSuffix(rescue, ";")
	t.Cleanup(func() { os.Remove(rescue) })
	if saved, lerr := feedback.Load(rescue); lerr != nil || len(saved.PerCase) != 3 {
		t.Errorf("hint %q: the rescue file should hold all three answers (%v)", hint, lerr)
	}
	if res.Answered != 3 {
		t.Errorf("answered %d, want 3 (two saved before the deletion, one held in memory)", res.Answered)
	}
	if _, err := os.Stat(cfg.Run.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session recreated the run directory: %v", err)
	}
}

// TestSymlinkedFeedbackRefused: feedback.json is a symbolic link to a file
// elsewhere. The session judges every case, then refuses to write through
// or over the link (one line naming it, exit 1); the file it points to is
// untouched and every answer stays in the draft for a later --out.
func TestSymlinkedFeedbackRefused(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	cfg.Filter, _ = triage.ParseFilter("it-stable-*")
	cfg.Scope = triage.ScopeFilter
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(target, []byte("not ours\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, cfg.Paths.Feedback); err != nil {
		t.Fatal(err)
	}
	_, err := Run(cfg, pt.New(t, steps(judged("Incorrect", ""), clean(), closing("", true))...))
	if clierr.Code(err) != clierr.CodeFailure || !strings.Contains(err.Error(), "feedback.json: cannot read: points outside the run directory; not followed") {
		t.Fatalf("error %v (exit %d), want the symbolic link refused with exit 1", err, clierr.Code(err))
	}
	if data, _ := os.ReadFile(target); string(data) != "not ours\n" {
		t.Errorf("the link's target changed: %q", data)
	}
	if fi, err := os.Lstat(cfg.Paths.Feedback); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	draft, err := feedback.LoadDraft(cfg.Paths)
	if err != nil || draft == nil || len(draft.PerCase) != 2 {
		t.Errorf("draft %+v, %v: want both answers kept", draft, err)
	}
}
