package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

var (
	scopeFlag  = &cli.StringFlag{Name: "scope", Usage: "which cases (`SCOPE`): suspicious, failures or all"}
	filterFlag = &cli.StringFlag{Name: "filter", Usage: "only cases matching `EXPR`: a test id glob, target=NAME or grader=TYPE"}
)

func listCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "the cases in review order, with why each sits where it does",
		ArgsUsage: "[run]",
		Flags:     []cli.Flag{jsonFlag, scopeFlag, filterFlag, outFlag},
		Action:    act(s, listAction, 0, 1, "[run]"),
	}
}

type listEntry struct {
	Rank int `json:"rank"`
	caseRef
	Outcome run.Outcome     `json:"outcome"`
	Score   float64         `json:"score"`
	Tier    string          `json:"tier"`
	Reasons []triage.Reason `json:"reasons"`
	Samples string          `json:"samples,omitempty"`
	Verdict *string         `json:"verdict"` // null when unreviewed
}

type listReport struct {
	RunID string      `json:"run_id"`
	Scope string      `json:"scope"`
	Total int         `json:"total"` // cases in the run
	Cases []listEntry `json:"cases"`
}

// scopeOf reads --scope and --filter: a filter implies scope "filter";
// default is def.
func scopeOf(c *cli.Context, def string) (string, triage.Filter, error) {
	scope := c.String("scope")
	var f triage.Filter
	if expr := c.String("filter"); expr != "" {
		var err error
		if f, err = triage.ParseFilter(expr); err != nil {
			return "", f, err
		}
		if scope != "" && scope != triage.ScopeFilter {
			return "", f, usageConflict("--scope", "--filter")
		}
		scope = triage.ScopeFilter
	}
	if scope == "" {
		scope = def
	}
	return scope, f, nil
}

func listAction(s *Streams, c *cli.Context, args []string) error {
	scope, filter, err := scopeOf(c, triage.ScopeAll)
	if err != nil {
		return err
	}
	st, err := openState(s, argOr(args, 0), c.String("out"))
	if err != nil {
		return err
	}
	items, err := triage.Select(st.ranked(), scope, filter)
	if err != nil {
		return err
	}
	rep := listReport{RunID: st.run.ID, Scope: scope, Total: len(st.run.Cases), Cases: make([]listEntry, len(items))}
	for i, it := range items {
		e := listEntry{
			Rank: i + 1, caseRef: st.refOf(it.Case), Outcome: it.Case.Outcome, Score: it.Case.Score,
			Tier: it.Tier.String(), Reasons: it.Reasons, Samples: triage.SamplePattern(it.Case.Samples),
		}
		if e.Reasons == nil {
			e.Reasons = []triage.Reason{}
		}
		if j := st.judgment(it.Case); j != nil {
			e.Verdict = &j.Verdict
		}
		rep.Cases[i] = e
	}
	if c.Bool("json") {
		return writeJSON(s.Out, rep)
	}
	printList(s, rep)
	return nil
}

func printList(s *Streams, rep listReport) {
	refWidth := 8
	for _, e := range rep.Cases {
		refWidth = max(refWidth, min(40, termtext.Width(termtext.SanitizeLine(e.Ref))))
	}
	for _, e := range rep.Cases {
		verdict := "-"
		if e.Verdict != nil {
			verdict = *e.Verdict
		}
		ref := termtext.Truncate(termtext.SanitizeLine(e.Ref), refWidth, "…")
		reasons := make([]string, len(e.Reasons))
		for i, r := range e.Reasons {
			reasons[i] = r.Text
		}
		fmt.Fprintf(s.Out, "%3d  %s%s  %-8s %5s  %-17s %s\n", e.Rank, ref,
			strings.Repeat(" ", refWidth-termtext.Width(ref)), e.Outcome, triage.FormatScore(e.Score),
			verdict, termtext.SanitizeLine(strings.Join(reasons, "; ")))
	}
	fmt.Fprintf(s.Out, "%d of %d cases (scope %s)\n", len(rep.Cases), rep.Total, rep.Scope)
}
