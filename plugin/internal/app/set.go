package app

import (
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
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
			&cli.StringFlag{Name: "test-defect", Usage: "the test itself is defective (`KIND`): " + strings.Join(testDefectIDs(), ", ")},
		),
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			if err := requireFlag(c, "verdict"); err != nil {
				return err
			}
			o := setOptions{write: writeOptionsOf(c, nil), Ref: args[len(args)-1], Answer: feedback.Case{
				Verdict: c.String("verdict"), Signals: *c.Generic("signal").(*repeated),
				Notes: c.String("note"), WorkspaceNotes: c.String("workspace-note"), TestDefect: c.String("test-defect"),
			}, Overrides: *c.Generic("override").(*repeated)}
			if len(args) == 2 {
				o.write.Target = args[0]
			}
			return runSet(s, o)
		}, 1, 2, "[run] <case>"),
	}
}

// repeated is a flag that may be given several times; unlike
// cli.StringSliceFlag it never splits a value at commas, so notes keep them.
type repeated []string

func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
func (r *repeated) String() string     { return strings.Join(*r, ", ") }

// setOptions is one judgment given on the command line.
type setOptions struct {
	write     writeOptions
	Ref       string        // the case
	Answer    feedback.Case // verdict, signals, notes, workspace notes, test defect
	Overrides []string      // TYPE:NAME=TEXT
}

func runSet(s *Streams, o setOptions) error {
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, err := openState(s, o.write.Target, o.write.Out)
	if err != nil {
		return err
	}
	cs, err := st.run.Find(o.Ref)
	if err != nil {
		return err
	}
	a := o.Answer
	a.EvaluatorOverrides = parseOverrides(cs, o.Overrides)
	if ps := record.Check(cat, cs, a); len(ps) > 0 {
		return clierr.Usage(ps[0].Flag+": "+ps[0].Msg, ps[0].Hint)
	}
	return recordJudgments(s, o.write, st, []feedback.Bound{judgedCase(cs, a)}, nil)
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
		for _, k := range record.GraderKeys(cs) {
			if strings.HasPrefix(v, k+"=") && len(k) > len(key) {
				key, text = k, v[len(k)+1:]
			}
		}
		out[key] = text
	}
	return out
}

// testDefectIDs are the test_defect kinds of the catalog.
func testDefectIDs() []string {
	cat, err := prompts.Load()
	if err != nil {
		return nil // a broken build; the tests of package prompts fail
	}
	return prompts.IDs(cat.TestDefects)
}
