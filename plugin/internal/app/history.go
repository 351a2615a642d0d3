package app

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/history"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

func historyCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "per-case verdict trail across runs, graders reviewers disagreed with, automated vs human-adjusted pass rate per run",
		ArgsUsage: "[results-dir]",
		Description: "[results-dir] is a folder of runs (e.g. .agentv/results/runs/default); default: the folder of the\n" +
			"last run in .agentv/cache.json, else ./.agentv/results. Human-adjusted pass rate: a reviewed case passes\n" +
			"when its verdict is acceptable; an unreviewed case keeps its automated outcome.",
		Flags: []cli.Flag{jsonFlag},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			return runHistory(s, historyOptions{Target: argOr(args, 0), JSON: c.Bool("json")})
		}, 0, 1, "[results-dir]"),
	}
}

// historyReport is the --json document of history. Scripts depend on these
// names: add fields, never rename them.
type historyReport struct {
	Root string `json:"root"`
	history.Report
	// Corrected is, when a judge certificate applies (calibrate --write),
	// each run's automated, human-adjusted and corrected (Rogan–Gladen)
	// pass rate, oldest first; absent without a certificate.
	Corrected []calibrate.RunRate `json:"corrected,omitempty"`
	// Certificate is the judge certificate used, "" when none.
	Certificate string `json:"certificate,omitempty"`
}

type historyOptions struct {
	Target string // a folder of runs, or one run
	JSON   bool
}

func runHistory(s *Streams, o historyOptions) error {
	root, runs, err := loadRuns(s, o.Target)
	if err != nil {
		return err
	}
	rep := historyReport{Root: root, Report: history.Build(runs)}
	if path, found := certificateFor(runs[len(runs)-1].Run.Dir); found {
		cert, err := loadCertificate(path)
		if err != nil {
			return err
		}
		rep.Certificate = path
		for _, r := range runs {
			rep.Corrected = append(rep.Corrected, calibrate.CorrectedRate(calibrate.ReadGraders(r.Run), r.Feedback, cert))
		}
	}
	if o.JSON {
		return writeJSON(s.Out, rep)
	}
	printHistory(s.Out, rep)
	return nil
}

const runsHint = "pass a folder of runs, e.g. .agentv/results/runs/default"

// resultsRoot is the folder of runs history and export read: target, else
// the folder of the last run in .agentv/cache.json, else ./.agentv/results.
func resultsRoot(target string) (string, error) {
	if target != "" {
		return filepath.Abs(target)
	}
	if r, err := run.Open("", run.Options{}); err == nil {
		if r.Layout == run.LayoutFlat {
			return r.Dir, nil
		}
		return filepath.Dir(r.Dir), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", clierr.Failure(err, "cannot determine the current directory", runsHint)
	}
	results := filepath.Join(wd, ".agentv", "results")
	if _, err := os.Stat(results); err != nil {
		return "", clierr.Usage("no results folder given, no .agentv/cache.json and no ./.agentv/results", runsHint)
	}
	return results, nil
}

// loadRuns opens every run under target (a folder of runs, or one run),
// oldest first, with its feedback and older-shaped notes. A run that
// cannot be read is skipped with a warning.
func loadRuns(s *Streams, target string) (string, []history.Run, error) {
	root, err := resultsRoot(target)
	if err != nil {
		return "", nil, err
	}
	info, err := os.Stat(root)
	if err != nil {
		return "", nil, clierr.Input(root, 0, "", "cannot read: "+clierr.Cause(err), runsHint)
	}
	dirs := []string{root}
	if info.IsDir() {
		if dirs, err = run.Candidates(root); err != nil {
			return "", nil, err
		}
	}
	var runs []history.Run
	for _, dir := range dirs {
		st, err := openState(s, dir, "")
		if err != nil {
			fmt.Fprintf(s.Err, "%s: warning: skipping %s\n", prog, termtext.SanitizeLine(err.Error()))
			continue
		}
		archived, err := history.ArchivedNotes(st.paths.HistoryDir)
		if err != nil {
			fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, termtext.SanitizeLine(err.Error()))
		}
		runs = append(runs, history.Run{Run: st.run, Feedback: st.own(), Notes: append(archived, st.legacy...)})
	}
	if len(runs) == 0 {
		return "", nil, clierr.Input(root, 0, "", "no readable AgentV run found here", runsHint)
	}
	if dirs[0] != root {
		// AgentV's dashboard kept one notes file per project, beside the runs.
		notes, err := history.LegacyNotes(projectNotesFile(root))
		if err != nil {
			fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, termtext.SanitizeLine(err.Error()))
		}
		last := &runs[len(runs)-1]
		last.Notes = append(last.Notes, notes...)
	}
	return root, runs, nil
}

// projectNotesFile is where AgentV's dashboard kept its project-wide notes
// for a folder of runs: .agentv/results/feedback.json of the enclosing
// project, or root/feedback.json.
func projectNotesFile(root string) string {
	sep := string(filepath.Separator)
	marker := sep + ".agentv" + sep + "results"
	if i := strings.LastIndex(root+sep, marker+sep); i >= 0 {
		return filepath.Join(root[:i+len(marker)], "feedback.json")
	}
	if p := filepath.Join(root, ".agentv", "results", "feedback.json"); exists(p) {
		return p
	}
	return filepath.Join(root, "feedback.json")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func printHistory(w io.Writer, rep historyReport) {
	san := termtext.SanitizeLine
	fmt.Fprintf(w, "%d run(s) in %s, oldest first\n\n", len(rep.Runs), san(rep.Root))
	idWidth := len("run")
	for _, r := range rep.Runs {
		idWidth = max(idWidth, termtext.Width(san(r.RunID)))
	}
	fmt.Fprintf(w, "%s  cases  reviewed  proposed  automated   human-adjusted\n", pad("run", idWidth))
	for _, r := range rep.Runs {
		fmt.Fprintf(w, "%s  %5d  %8d  %8d  %-11s %s\n", pad(san(r.RunID), idWidth), r.Cases, r.Reviewed, r.Proposed,
			rate(r.AutomatedPassed, r.Cases, r.AutomatedRate), rate(r.HumanPassed, r.Cases, r.HumanRate))
	}

	for _, r := range rep.Runs {
		var debt []string
		for _, k := range slices.Sorted(maps.Keys(r.TestDebt)) {
			debt = append(debt, fmt.Sprintf("%d %s", r.TestDebt[k], k))
		}
		if len(debt) > 0 {
			fmt.Fprintf(w, "  %s test debt: %s\n", san(r.RunID), strings.Join(debt, ", "))
		}
		if r.Blind > 0 {
			fmt.Fprintf(w, "  %s anchoring: %d of %d blind-first verdict(s) changed once the machine's was shown (%.0f%%)\n", san(r.RunID), r.Anchored, r.Blind, 100*float64(r.Anchored)/float64(r.Blind))
		}
	}
	for _, c := range rep.Corrected {
		corrected := c.CorrectedNA
		if c.Corrected != nil {
			corrected = fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*c.Corrected.Value, 100*c.Corrected.Low, 100*c.Corrected.High)
		}
		fmt.Fprintf(w, "  %s corrected pass rate (Rogan–Gladen, certificate %s): %s\n", san(c.RunID), san(rep.Certificate), san(corrected))
	}
	fmt.Fprintf(w, "(reviewed: cases with a human verdict; proposed: an agent's verdict no human has confirmed yet, which\n changes no rate; human-adjusted: a human-reviewed case passes when judged acceptable, any other keeps its automated outcome)\n")
	fmt.Fprintf(w, "\ngraders reviewers disagreed with (fix these first)\n")
	if len(rep.Graders) == 0 {
		fmt.Fprintln(w, "  none: no judgment names a grader in evaluator_overrides")
	} else {
		keyWidth := len("grader")
		for _, g := range rep.Graders {
			keyWidth = max(keyWidth, min(40, termtext.Width(san(g.Key))))
		}
		fmt.Fprintf(w, "%s  disagreed  judged  false+  false-  miscalibrated  other\n", pad("grader", keyWidth))
		for _, g := range rep.Graders {
			fmt.Fprintf(w, "%s  %9d  %6d  %6d  %6d  %13d  %5d\n", pad(termtext.Truncate(san(g.Key), keyWidth, "…"), keyWidth),
				g.Disagreements, g.Judged, g.FalsePositive, g.FalseNegative, g.Miscalibration, g.Other)
		}
	}
	if rep.Unattributed > 0 {
		fmt.Fprintf(w, "%d judgment(s) signal a grader problem without naming the grader in evaluator_overrides\n", rep.Unattributed)
	}

	fmt.Fprintf(w, "\nverdict trail per case, oldest run first\n")
	trails := map[string]int{} // per test id: a target is named only when several share it
	for _, t := range rep.Cases {
		trails[t.TestID]++
	}
	for _, t := range rep.Cases {
		name := t.TestID
		if trails[t.TestID] > 1 {
			name = caseid.Full(caseid.ID{Suite: t.Suite, TestID: t.TestID, Target: t.Target, Variant: t.Variant})
		}
		fmt.Fprintln(w, san(name))
		for _, st := range t.Steps {
			score := ""
			if st.Outcome != "" {
				score = triage.FormatScore(st.Score)
			}
			line := fmt.Sprintf("  %s  %-8s %5s  %-17s", pad(san(st.RunID), idWidth), st.Outcome, score, st.Verdict)
			var extra []string
			if st.Reviewer != "" {
				extra = append(extra, fmt.Sprintf("%s (%s)", san(st.Reviewer), cmp.Or(st.ReviewerKind, "human")))
			}
			switch st.Output {
			case history.OutputChanged:
				extra = append(extra, "output changed")
			case history.OutputSame:
				extra = append(extra, "same output")
			}
			if st.CarriedFrom != "" {
				extra = append(extra, "carried from "+san(st.CarriedFrom))
			}
			if st.Verdict == history.Note {
				extra = append(extra, termtext.Truncate(san(st.Notes), 60, "…"))
			}
			fmt.Fprintln(w, strings.TrimRight(line+"  "+strings.Join(extra, ", "), " "))
		}
	}
}

// rate formats "4/6  67%".
func rate(n, d int, r float64) string {
	return fmt.Sprintf("%d/%d %4.0f%%", n, d, 100*r)
}

// pad left-aligns s in cells display cells.
func pad(s string, cells int) string {
	return s + strings.Repeat(" ", max(0, cells-termtext.Width(s)))
}
