package app

import (
	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

func showCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "one case's full evidence: answer, graders with reasons and checks, samples, error, input",
		ArgsUsage: "[run] <case>",
		Description: "<case> is TEST_ID, TEST_ID@TARGET or SUITE::TEST_ID[@TARGET][#VARIANT] (list prints the shortest that works),\n" +
			"or #N, the case's position in the run: the first column of 'agentv review list', filtered or not.\n" +
			"Run text is sanitised: escape sequences are shown, never executed.",
		Flags:  []cli.Flag{jsonFlag, outFlag},
		Action: act(s, showAction, 1, 2, "[run] <case>"),
	}
}

type showReport struct {
	RunID string `json:"run_id"`
	caseSummary
	Detail   *run.Detail    `json:"detail"`
	Feedback *feedback.Case `json:"feedback"` // null when unreviewed
}

func showAction(s *Streams, c *cli.Context, args []string) error {
	st, cs, err := openCase(s, args, c.String("out"))
	if err != nil {
		return err
	}
	d, err := st.run.Detail(cs)
	if err != nil {
		return err
	}
	item := triage.Classify(cs)
	if c.Bool("json") {
		return writeJSON(s.Out, showReport{RunID: st.run.ID, caseSummary: st.summary(item), Detail: d, Feedback: st.judgment(cs)})
	}
	evidence.Render(s.Out, d, item, evidence.Options{Width: s.width()})
	if j := st.judgment(cs); j != nil {
		evidence.RenderJudgment(s.Out, j, s.width())
	}
	return nil
}
