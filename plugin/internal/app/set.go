package app

import (
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

func setCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "record one judgment without prompting (scripts, agents)",
		ArgsUsage: "[run] <case>",
		Description: "<case> is TEST_ID, TEST_ID@TARGET, SUITE::TEST_ID[@TARGET][#VARIANT] or #N (the first column of list).\n" +
			"--signal and --override\n" +
			"may be repeated; an override is TYPE:NAME=TEXT for one of the case's graders.",
		Flags: append(scriptedFlags(),
			&cli.StringFlag{Name: "verdict", Usage: "`VERDICT`: acceptable, needs_improvement, incorrect or flaky"},
			&cli.GenericFlag{Name: "signal", Usage: "a `SIGNAL` id; repeat for several", Value: &repeated{}},
			&cli.StringFlag{Name: "note", Usage: "the case's notes (`TEXT`)"},
			&cli.GenericFlag{Name: "override", Usage: "a note on one grader, `TYPE:NAME=TEXT`; repeatable", Value: &repeated{}},
			&cli.StringFlag{Name: "workspace-note", Usage: "the case's workspace notes (`TEXT`)"},
		),
		Action: act(s, setAction, 1, 2, "[run] <case>"),
	}
}

// repeated is a flag that may be given several times; unlike
// cli.StringSliceFlag it never splits a value at commas, so notes keep them.
type repeated []string

func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
func (r *repeated) String() string     { return strings.Join(*r, ", ") }

func setAction(s *Streams, c *cli.Context, args []string) error {
	if err := requireFlag(c, "verdict"); err != nil {
		return err
	}
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, cs, err := openCase(s, args, c.String("out"))
	if err != nil {
		return err
	}
	a := feedback.Case{
		TestID: cs.TestID, Verdict: c.String("verdict"), Signals: *c.Generic("signal").(*repeated),
		Notes: c.String("note"), WorkspaceNotes: c.String("workspace-note"),
	}
	a.EvaluatorOverrides = parseOverrides(cs, *c.Generic("override").(*repeated))
	if ps := checkJudgment(cat, cs, a); len(ps) > 0 {
		return clierr.Usage(ps[0].flag+": "+ps[0].msg, ps[0].hint)
	}
	return record(s, c, st, []judged{judgedCase(cs, a)})
}

// parseOverrides reads TYPE:NAME=TEXT values. The key is the longest of
// the case's grader keys the value starts with (a name may hold "="), else
// the text before the first "=" (reported as unknown by checkJudgment).
func parseOverrides(cs *run.Case, values []string) map[string]string {
	if len(values) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, v := range values {
		key, text, _ := strings.Cut(v, "=")
		for _, k := range graderKeys(cs) {
			if strings.HasPrefix(v, k+"=") && len(k) > len(key) {
				key, text = k, v[len(k)+1:]
			}
		}
		out[key] = text
	}
	return out
}
