package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/prompt"
	"agentv-review/plugin/internal/review"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

func guidedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reviewer", Usage: "your `NAME` in feedback.json (default: $AGENTV_REVIEWER, git config user.name, login name)", EnvVars: []string{"AGENTV_REVIEWER"}},
		scopeFlag,
		filterFlag,
		outFlag,
		&cli.StringFlag{Name: "previous", Usage: "an earlier `RUN` whose feedback is carried forward (default: the sibling runs)"},
		&cli.BoolFlag{Name: "no-carry-forward", Usage: "do not offer earlier runs' verdicts"},
	}
}

func guidedAction(s *Streams, c *cli.Context, args []string) error {
	return guided(s, c, argOr(args, 0))
}

// guided runs the interactive review of the run named by target.
func guided(s *Streams, c *cli.Context, target string) error {
	if !s.CanPrompt() {
		return clierr.Usage("the guided review needs a terminal",
			"in scripts and CI use the non-interactive commands: status, list, show, set, apply (see '"+prog+" --help')")
	}
	scope, filter, err := scopeOf(c, "")
	if err != nil {
		return err
	}
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, err := openState(s, target, c.String("out"))
	if err != nil {
		return err
	}
	release, err := feedback.Lock(st.paths)
	if err != nil {
		return err
	}
	defer release()
	prior, err := priorVerdicts(st, c.String("previous"), c.Bool("no-carry-forward"))
	if err != nil {
		return err
	}
	name, fixed := reviewerName(c)
	width, height := 100, 40
	if w, h, err := term.GetSize(int(s.TTYOut.Fd())); err == nil {
		width, height = max(w, 40), max(h, 20)
	}
	res, err := review.Run(review.Config{
		Run: st.run, Paths: st.paths, Existing: st.feedback, Legacy: st.legacy, Draft: st.draft, Prior: prior,
		Reviewer: name, ReviewerFixed: fixed, Scope: scope, Filter: filter,
		Out: s.TTYOut, Width: width, Height: height, Pager: s.pager, Now: time.Now, Catalog: cat,
		Tool: feedback.Tool{Name: "agentv-review", Version: Version},
	}, prompt.New(s.In, s.TTYOut, s.Err))
	if err != nil {
		return err
	}
	if res.Written == "" && res.Quit {
		fmt.Fprintf(s.Err, "%s: draft kept: %s\n", prog, st.paths.Draft)
	}
	return nil
}

// reviewerName resolves the reviewer: --reviewer / $AGENTV_REVIEWER (fixed,
// not asked), else git's user.name, else the login name (confirmed once).
func reviewerName(c *cli.Context) (name string, fixed bool) {
	if n := strings.TrimSpace(c.String("reviewer")); n != "" {
		return n, true
	}
	if out, err := exec.Command("git", "config", "user.name").Output(); err == nil {
		if n := strings.TrimSpace(string(out)); n != "" {
			return n, false
		}
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username, false
	}
	return os.Getenv("USER"), false
}

// pager shows sanitised text in $PAGER (default less), with the terminal
// as its output.
func (s *Streams) pager(text string) error {
	cmdline := s.Getenv("PAGER")
	if cmdline == "" {
		cmdline = "less"
	}
	fields := strings.Fields(cmdline)
	if len(fields) == 0 {
		return errors.New("PAGER is blank")
	}
	cmd := exec.Command(fields[0], fields[1:]...)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = s.TTYOut, s.Err
	return cmd.Run()
}

// priorVerdicts collects earlier runs' judgments for carry-forward: from
// --previous, else from every sibling run older than this one (a newer
// judgment of a case replaces an older one).
func priorVerdicts(st *runState, previous string, off bool) (map[string]review.PriorVerdict, error) {
	if off {
		return nil, nil
	}
	var dirs []string
	if previous != "" {
		r, err := run.Open(previous, run.Options{})
		if err != nil {
			return nil, err
		}
		dirs = []string{r.Dir}
	} else {
		siblings, err := run.Candidates(filepath.Dir(st.run.Dir))
		if err != nil {
			return nil, nil // no readable siblings: nothing to carry forward
		}
		if i := slices.Index(siblings, st.run.Dir); i >= 0 {
			dirs = siblings[:i]
		}
	}
	prior := map[string]review.PriorVerdict{}
	for _, dir := range dirs {
		f, _, err := loadIfExists(feedback.PathsFor(dir, "").Feedback)
		if err != nil || f == nil {
			continue // an unreadable earlier file is not this review's problem
		}
		for _, c := range f.PerCase {
			prior[review.Key(c.TestID, c.Target, c.Variant)] = review.PriorVerdict{RunID: f.RunID, Case: c}
		}
	}
	return prior, nil
}
