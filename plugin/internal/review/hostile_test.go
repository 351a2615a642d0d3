package review

import (
	"errors"
	"os"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	pt "agentv-review/plugin/internal/prompt/prompttest"
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
// hint "use --out FILE ...", exit 1), and its Result still counts the three
// answers.
func TestRunDirDeletedMidReview(t *testing.T) {
	cfg := fixture(t, "iterations-1")
	p := &removing{Prompter: pt.New(t, steps(clean(), clean(), clean())...), dir: cfg.Run.Dir, n: 3}
	res, err := Run(cfg, p)
	if err == nil {
		t.Fatal("the session succeeded without its run directory")
	}
	if clierr.Code(err) != clierr.CodeFailure || !strings.Contains(err.Error(), cfg.Paths.Draft+": cannot write") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q (exit %d), want one line naming %s, exit 1", err, clierr.Code(err), cfg.Paths.Draft)
	}
	if res.Answered != 3 {
		t.Errorf("answered %d, want 3 (two saved before the deletion, one held in memory)", res.Answered)
	}
	if _, err := os.Stat(cfg.Run.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session recreated the run directory: %v", err)
	}
}
