package app

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/history"
	"agentv-review/plugin/internal/termtext"
)

func agreeCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "agree",
		Usage:     "two reviewers of one run: per-case agreement, Cohen's kappa on verdicts, conflicting cases",
		ArgsUsage: "<A.json> <B.json>",
		Description: "Entries are matched by test_id, target and variant. Kappa is computed over the cases both judged,\n" +
			"with the four verdicts as categories; when both reviewers gave every case the same single verdict,\n" +
			"chance agreement is 1 and kappa is defined as 1.",
		Flags: []cli.Flag{jsonFlag},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			return runAgree(s, agreeOptions{A: args[0], B: args[1], JSON: c.Bool("json")})
		}, 2, 2, "<A.json> <B.json>"),
	}
}

// agreeReport is the --json document of agree.
type agreeReport struct {
	A reviewerFile `json:"a"`
	B reviewerFile `json:"b"`
	history.Agreement
}

type reviewerFile struct {
	File     string `json:"file"`
	RunID    string `json:"run_id"`
	Reviewer string `json:"reviewer"`
	Cases    int    `json:"cases"`
}

type agreeOptions struct {
	A, B string // the two feedback files
	JSON bool
}

func runAgree(s *Streams, o agreeOptions) error {
	args := []string{o.A, o.B}
	var files [2]*feedback.File
	for i, path := range args {
		f, err := feedback.Load(path)
		if err != nil {
			return err
		}
		files[i] = f
	}
	rep := agreeReport{
		A:         reviewerFile{File: args[0], RunID: files[0].RunID, Reviewer: files[0].Reviewer, Cases: len(files[0].PerCase)},
		B:         reviewerFile{File: args[1], RunID: files[1].RunID, Reviewer: files[1].Reviewer, Cases: len(files[1].PerCase)},
		Agreement: history.Agree(files[0], files[1]),
	}
	if rep.A.RunID != rep.B.RunID {
		fmt.Fprintf(s.Err, "%s: warning: the files review different runs (%s, %s)\n", prog,
			termtext.SanitizeLine(rep.A.RunID), termtext.SanitizeLine(rep.B.RunID))
	}
	if o.JSON {
		return writeJSON(s.Out, rep)
	}
	printAgree(s.Out, rep)
	return nil
}

func printAgree(w io.Writer, rep agreeReport) {
	san := termtext.SanitizeLine
	for _, r := range []struct {
		label string
		f     reviewerFile
	}{{"A", rep.A}, {"B", rep.B}} {
		fmt.Fprintf(w, "%s  %s: %s, run %s, %d case(s)\n", r.label, san(r.f.File), san(r.f.Reviewer), san(r.f.RunID), r.f.Cases)
	}
	fmt.Fprintf(w, "\nboth judged  %d case(s); only A %d, only B %d\n", rep.Both, len(rep.OnlyA), len(rep.OnlyB))
	for _, an := range []struct {
		label string
		a     history.Anchoring
	}{{"A", rep.AnchoringA}, {"B", rep.AnchoringB}} {
		if an.a.Rate != nil {
			fmt.Fprintf(w, "anchoring %s  %d of %d blind-first verdict(s) changed after the machine's was shown (%.0f%%)\n", an.label, an.a.Changed, an.a.Blind, 100**an.a.Rate)
		}
	}
	if rep.Kappa == nil {
		fmt.Fprintln(w, "kappa        n/a: no case was judged by both")
		return
	}
	fmt.Fprintf(w, "agreement    %d of %d (%.0f%%), by chance %.0f%%\n", rep.Agreed, rep.Both, 100*rep.Observed, 100*rep.Expected)
	fmt.Fprintf(w, "kappa        %.3f (%s)\n", *rep.Kappa, kappaLabel(*rep.Kappa))
	if len(rep.Conflicts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nconflicts (A → B)\n")
	for _, cf := range rep.Conflicts {
		fmt.Fprintf(w, "  %s  %s → %s\n", san(caseid.Full(cf.CaseKey)), cf.A, cf.B)
	}
}

// kappaLabel is Landis and Koch's reading of a kappa.
func kappaLabel(k float64) string {
	switch {
	case k < 0:
		return "worse than chance"
	case k <= 0.2:
		return "slight"
	case k <= 0.4:
		return "fair"
	case k <= 0.6:
		return "moderate"
	case k <= 0.8:
		return "substantial"
	}
	return "almost perfect"
}
