package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/prompt"
	"agentv-review/plugin/internal/review"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
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
		&cli.IntFlag{Name: "sample", Usage: "with --scope spot: how many passed cases to sample (default 29: enough to claim a false-pass rate ≤ 10 % when none is wrong)"},
		&cli.Uint64Flag{Name: "seed", Usage: "with --scope spot: the sampler's `SEED` (default: random; recorded in feedback.json either way)"},
		&cli.Float64Flag{Name: "spot-width", Usage: "with --scope spot: say you may stop once the false-pass interval is no wider than this (default 0.10)"},
		&cli.BoolFlag{Name: "blind", Usage: "blind-first: hide the score, outcome and graders until you commit a verdict, then show them and let you keep or change it (both are recorded)"},
	}
}

func guidedAction(s *Streams, c *cli.Context, args []string) error {
	target := argOr(args, 0)
	if err := notACommand(c.App, target); err != nil {
		return err
	}
	return guided(s, c, target)
}

// notACommand catches a mistyped command, which the root command would
// take for a run to review: a bare word that names no file and is close to
// a command's name gets "did you mean".
func notACommand(app *cli.App, target string) error {
	if target == "" || strings.ContainsAny(target, `/\.`) {
		return nil
	}
	if _, err := os.Lstat(target); err == nil {
		return nil
	}
	var names []string
	for _, cmd := range app.Commands {
		names = append(names, cmd.Names()...)
	}
	best, ok := closest(target, names)
	if !ok {
		return nil // a run that is not there: opening it says so
	}
	return clierr.Usage(fmt.Sprintf("unknown command %q (and no run of that name here); did you mean %q?", target, best),
		"see '"+prog+" --help' for the commands")
}

// guided runs the interactive review of the run named by target.
func guided(s *Streams, c *cli.Context, target string) error {
	if err := needTerminal(s); err != nil {
		return err
	}
	scope, filter, err := scopeOf(c.String("scope"), c.String("filter"), "")
	if err != nil {
		return err
	}
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, err := openRun(s, target, c.String("out"), run.Options{})
	if err != nil {
		return err
	}
	release, err := feedback.Lock(st.paths)
	if err != nil {
		return err
	}
	defer release()
	if err := st.loadReview(s); err != nil { // read under the lock: no writer can change it now
		return err
	}
	earlier, err := earlierRuns(st, c.String("previous"), c.Bool("no-carry-forward"))
	if err != nil {
		return err
	}
	name, fixed := s.reviewerName(c.String("reviewer"))
	history := earlierOutcomes(earlier)
	var seed *uint64
	if c.IsSet("seed") {
		v := c.Uint64("seed")
		seed = &v
	}
	width, height := 100, 40
	if w, h, err := term.GetSize(int(s.TTYOut.Fd())); err == nil {
		width, height = max(w, 40), max(h, 20)
	}
	screen := io.Writer(s.TTYOut)
	var promptOut interface {
		io.Writer
		Fd() uintptr
	} = s.TTYOut
	if s.ASCII { // a terminal whose locale is not UTF-8: prompts and screens in ASCII
		t := termtext.NewASCIITerminal(s.TTYOut)
		screen, promptOut = t, t
	}
	res, err := review.Run(review.Config{
		Run: st.run, Paths: st.paths, Existing: st.own(), Legacy: st.legacy, Draft: st.draft,
		Prior: priorVerdicts(earlier, st.run), History: history,
		Previous: previousCase(earlier), SpotSample: c.Int("sample"), SpotWidth: c.Float64("spot-width"), SpotSeed: seed,
		Reviewer: name, ReviewerFixed: fixed, Scope: scope, Filter: filter,
		Out: screen, Width: width, Height: height, Pager: s.pager, Now: s.now, Catalog: cat,
		Blind: c.Bool("blind"), Color: evidence.ColorAllowed(true, s.Getenv("NO_COLOR")),
		Tool: feedback.Tool{Name: "agentv-review", Version: Version},
	}, prompt.New(s.TTYIn, promptOut, s.Err))
	if err != nil {
		return err
	}
	if res.Written == "" && res.Quit {
		printf(s.Err, "%s: draft kept: %s\n", prog, st.paths.Draft)
	}
	return nil
}

// needTerminal fails fast, pointing at the scriptable commands, when the
// guided review cannot prompt.
func needTerminal(s *Streams) error {
	if s.TTYIn == nil || s.TTYOut == nil || !prompt.CanPrompt(s.TTYIn, s.TTYOut) {
		return clierr.Usage("the guided review needs a terminal",
			"in scripts and CI use the non-interactive commands: status, list, show, set, apply (see '"+prog+" --help')")
	}
	return nil
}

// reviewerName resolves the reviewer: --reviewer / $AGENTV_REVIEWER (fixed,
// not asked), else git's user.name, else the login name (confirmed once).
func (s *Streams) reviewerName(flag string) (name string, fixed bool) {
	if n := strings.TrimSpace(flag); n != "" {
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
	return s.Getenv("USER"), false
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

// earlierRuns lists the runs before st's, oldest first: --previous, else
// the sibling runs that sort before it; none with --no-carry-forward.
func earlierRuns(st *runState, previous string, off bool) ([]string, error) {
	switch {
	case off:
		return nil, nil
	case previous != "":
		r, err := run.Open(previous, run.Options{})
		if err != nil {
			return nil, err
		}
		return []string{r.Dir}, nil
	}
	// A run's siblings are the runs beside its folder; a flat results
	// file's are the other results files of its folder (AgentV v1–v3 wrote
	// them side by side), not every run of the tree above it.
	self, parent := st.run.Dir, filepath.Dir(st.run.Dir)
	if st.run.Layout == run.LayoutFlat {
		self, parent = st.run.Manifest, st.run.Dir
	}
	siblings, err := run.Candidates(parent)
	if err != nil {
		return nil, nil // no readable siblings: nothing to carry forward
	}
	if i := slices.Index(siblings, self); i >= 0 {
		return siblings[:i], nil
	}
	return nil, nil
}

// priorVerdicts collects the judgments of earlier runs (given oldest
// first) of r's cases, for carry-forward; a newer judgment of a case
// replaces an older one.
func priorVerdicts(dirs []string, r *run.Run) map[int]review.PriorVerdict {
	prior := map[int]review.PriorVerdict{}
	for _, dir := range dirs {
		f, _, err := loadIfExists(feedback.PathsFor(dir, "").Feedback)
		if err != nil || f == nil {
			continue // an unreadable earlier file is not this review's problem
		}
		ix := feedback.Bind(f, r.CaseIDs())
		for i := range r.Cases {
			if e := ix.Entry(i); e != nil {
				prior[i] = review.PriorVerdict{RunID: f.RunID, Case: *e}
			}
		}
	}
	return prior
}

// maxPatternRuns bounds how many earlier runs a runs pattern reads.
const maxPatternRuns = 5

// earlierOutcomes returns a function giving a case's outcomes in the last
// few earlier runs that have it, oldest first (nil when there are none).
// The earlier manifests are read once, on first use (see readOutcomes).
func earlierOutcomes(dirs []string) func(c *run.Case) []run.Outcome {
	if len(dirs) == 0 {
		return nil
	}
	var history func(c *run.Case) []run.Outcome
	load := sync.OnceFunc(func() { history = readOutcomes(dirs) })
	return func(c *run.Case) []run.Outcome {
		load()
		return history(c)
	}
}

// readOutcomes is earlierOutcomes with the earlier manifests read now,
// compactly (outcomes and identities only: run.Options.Compact).
func readOutcomes(dirs []string) func(c *run.Case) []run.Outcome {
	if len(dirs) == 0 {
		return nil
	}
	dirs = dirs[max(0, len(dirs)-maxPatternRuns):]
	var outcomes []map[caseid.ID]run.Outcome
	for _, dir := range dirs {
		r, err := run.Open(dir, run.Options{Outline: true, Compact: true})
		if err != nil {
			continue
		}
		m := make(map[caseid.ID]run.Outcome, r.Len())
		var c run.Case
		for i := range r.Len() {
			r.CaseAt(i, &c)
			m[c.ID().AcrossRuns()] = c.Outcome
		}
		outcomes = append(outcomes, m)
	}
	return func(c *run.Case) []run.Outcome {
		var out []run.Outcome
		for _, m := range outcomes {
			if o, ok := m[c.ID().AcrossRuns()]; ok { // runs without the case say nothing
				out = append(out, o)
			}
		}
		return out
	}
}

// previousCase opens the newest earlier run once, on first use, and gives
// the same case in it (nil when it lacks the case or cannot be read).
func previousCase(dirs []string) func(c *run.Case) (*review.PreviousCase, error) {
	if len(dirs) == 0 {
		return nil
	}
	var prev *run.Run
	load := sync.OnceFunc(func() { prev, _ = run.Open(dirs[len(dirs)-1], run.Options{}) })
	return func(c *run.Case) (*review.PreviousCase, error) {
		if load(); prev == nil {
			return nil, nil
		}
		i, _ := caseid.Match(prev.CaseIDs(), c.ID().AcrossRuns())
		if i < 0 {
			return nil, nil
		}
		d, err := prev.Detail(prev.Cases[i])
		if err != nil {
			return nil, nil // an unreadable earlier run is not this review's problem
		}
		return &review.PreviousCase{RunID: prev.ID, Detail: d}, nil
	}
}
