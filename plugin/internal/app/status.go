package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

func statusCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "run id, counts and review progress (a CI gate with --require-complete / --fail-on)",
		ArgsUsage: "[run]",
		Flags: []cli.Flag{
			jsonFlag,
			outFlag,
			&cli.BoolFlag{Name: "require-complete", Usage: "exit 1 when any case is unreviewed"},
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 when any case has one of these `VERDICTS` (comma-separated, e.g. incorrect,flaky)"},
		},
		Action: act(s, statusAction, 0, 1, "[run]"),
	}
}

// statusReport is the --json document of status. Scripts depend on these
// names: add fields, never rename them.
type statusReport struct {
	RunID      string         `json:"run_id"`
	RunDir     string         `json:"run_dir"`
	Layout     run.Layout     `json:"layout"`
	Manifest   string         `json:"manifest"`
	Rows       int            `json:"rows"`
	Cases      int            `json:"cases"`
	Passed     int            `json:"passed"`
	Failed     int            `json:"failed"`
	Errored    int            `json:"errored"`
	Reviewed   int            `json:"reviewed"`
	Unreviewed int            `json:"unreviewed"`
	Verdicts   map[string]int `json:"verdicts"`
	Feedback   *string        `json:"feedback"` // path, null when none yet
	Reviewer   string         `json:"reviewer,omitempty"`
	Draft      *draftInfo     `json:"draft"` // null when none
	Warnings   []string       `json:"warnings"`
	Gate       *gateResult    `json:"gate,omitempty"`
}

type draftInfo struct {
	Path     string `json:"path"`
	Answered int    `json:"answered"`
}

type gateResult struct {
	Passed   bool          `json:"passed"`
	Problems []gateProblem `json:"problems"`
}

type gateProblem struct {
	caseRef
	Problem string `json:"problem"` // "unreviewed" or the offending verdict
}

func statusAction(s *Streams, c *cli.Context, args []string) error {
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	failOn, err := parseVerdictList(cat, c.String("fail-on"))
	if err != nil {
		return err
	}
	st, err := openStateWith(s, argOr(args, 0), c.String("out"), run.Options{Outline: true})
	if err != nil {
		return err
	}
	r := st.run
	rep := statusReport{
		RunID: r.ID, RunDir: r.Dir, Layout: r.Layout, Manifest: r.Manifest,
		Rows: r.Rows, Cases: len(r.Cases), Verdicts: map[string]int{}, Warnings: []string{},
	}
	rep.Passed, rep.Failed, rep.Errored = r.Counts()
	for _, v := range cat.Verdicts {
		rep.Verdicts[v.ID] = 0
	}
	for _, w := range r.Warnings {
		rep.Warnings = append(rep.Warnings, w.Msg)
	}
	gate := c.Bool("require-complete") || len(failOn) > 0
	problem := func(j *feedback.Case) string {
		switch {
		case j == nil && c.Bool("require-complete"):
			return "unreviewed"
		case j != nil && slices.Contains(failOn, j.Verdict):
			return j.Verdict
		}
		return ""
	}
	var offending []*run.Case
	for _, rc := range r.Cases {
		j := st.judgment(rc)
		if j == nil {
			rep.Unreviewed++
		} else {
			rep.Reviewed++
			rep.Verdicts[j.Verdict]++
		}
		if problem(j) != "" {
			offending = append(offending, rc)
		}
	}
	// Problems are listed in review order; ranking only the offending
	// cases gives their order among all.
	var problems []gateProblem
	for _, item := range triage.Rank(offending) {
		problems = append(problems, gateProblem{st.refOf(item.Case), problem(st.judgment(item.Case))})
	}
	if st.feedback != nil {
		rep.Feedback = &st.paths.Feedback
		rep.Reviewer = st.feedback.Reviewer
	}
	if st.draft != nil {
		rep.Draft = &draftInfo{Path: st.paths.Draft, Answered: len(st.draft.PerCase)}
	}
	if gate {
		rep.Gate = &gateResult{Passed: len(problems) == 0, Problems: problems}
		if rep.Gate.Problems == nil {
			rep.Gate.Problems = []gateProblem{}
		}
	}
	if c.Bool("json") {
		if err := writeJSON(s.Out, rep); err != nil {
			return err
		}
	} else {
		printStatus(s, cat, rep)
	}
	if gate && len(problems) > 0 {
		return &clierr.Error{Code: clierr.CodeFailure,
			Msg:  fmt.Sprintf("review gate failed: %d case(s) %s", len(problems), gateWhat(c.Bool("require-complete"), failOn)),
			Hint: "review them with '" + prog + " " + r.Dir + "' or 'agentv review set'"}
	}
	return nil
}

func gateWhat(complete bool, failOn []string) string {
	var parts []string
	if complete {
		parts = append(parts, "unreviewed")
	}
	if len(failOn) > 0 {
		parts = append(parts, "judged "+strings.Join(failOn, " or "))
	}
	return strings.Join(parts, " or ")
}

func printStatus(s *Streams, cat *prompts.Catalog, rep statusReport) {
	w := s.Out
	san := termtext.SanitizeLine
	fmt.Fprintf(w, "run       %s  (%s, %d cases from %d rows)\n", san(rep.RunID), rep.Layout, rep.Cases, rep.Rows)
	fmt.Fprintf(w, "results   %d passed · %d failed · %d errored\n", rep.Passed, rep.Failed, rep.Errored)
	var vs []string
	for _, v := range cat.Verdicts {
		if n := rep.Verdicts[v.ID]; n > 0 {
			vs = append(vs, fmt.Sprintf("%d %s", n, v.ID))
		}
	}
	line := fmt.Sprintf("review    %d of %d reviewed, %d unreviewed", rep.Reviewed, rep.Cases, rep.Unreviewed)
	if len(vs) > 0 {
		line += ": " + strings.Join(vs, ", ")
	}
	fmt.Fprintln(w, line)
	if rep.Feedback != nil {
		fmt.Fprintf(w, "feedback  %s (reviewer %s)\n", san(*rep.Feedback), san(rep.Reviewer))
	} else {
		fmt.Fprintf(w, "feedback  none yet: start with '%s %s'\n", prog, san(rep.RunDir))
	}
	if rep.Draft != nil {
		fmt.Fprintf(w, "draft     %s (%d answered): resume with '%s %s'\n", san(rep.Draft.Path), rep.Draft.Answered, prog, san(rep.RunDir))
	}
	if rep.Gate != nil {
		verdict := "passed"
		if !rep.Gate.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "gate      %s\n", verdict)
		for _, p := range rep.Gate.Problems {
			fmt.Fprintf(w, "  %-40s %s\n", san(p.Ref), p.Problem)
		}
	}
}

// parseVerdictList parses a comma-separated list of verdict ids.
func parseVerdictList(cat *prompts.Catalog, list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	known := prompts.IDs(cat.Verdicts)
	var out []string
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(known, v) {
			return nil, clierr.Usage(fmt.Sprintf("unknown verdict %q", v), "verdicts: "+strings.Join(known, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}
