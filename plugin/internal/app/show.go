package app

import (
	"errors"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
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
		Flags: []cli.Flag{jsonFlag, outFlag},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			o := showOptions{Ref: args[len(args)-1], Out: c.String("out"), JSON: c.Bool("json")}
			if len(args) == 2 {
				o.Target = args[0]
			}
			return runShow(s, o)
		}, 1, 2, "[run] <case>"),
	}
}

type showReport struct {
	RunID string `json:"run_id"`
	caseSummary
	// Evidence is everything the case screen shows, whole: the test's
	// definition, every grader with its configuration and checks, the
	// trajectory, the workspace diff, the answer and input, and what is
	// missing or unreadable.
	Evidence *evidence.Evidence `json:"evidence"`
	Feedback *feedback.Case     `json:"feedback"` // null when unreviewed
	State    string             `json:"state"`    // reviewed, proposed, stale or unreviewed, fingerprint checked
}

type showOptions struct {
	Target, Ref, Out string
	JSON             bool
}

func runShow(s *Streams, o showOptions) error {
	// The feedback first, whole (the entry is printed), then the run
	// keeping only the cases that the reference or an entry names (the
	// others are counted, a few bytes each: see run.Read): the case is
	// read whole through Detail.
	st, err := locateRun(o.Target, o.Out, run.Options{Outline: true, CheckKeptOnly: true})
	if err != nil {
		return err
	}
	if err := st.readFeedback(); err != nil {
		return err
	}
	cs, err := st.find(s, o.Ref)
	if err != nil {
		return err
	}
	if err := st.bindFeedback(s); err != nil {
		return err
	}
	d, err := st.run.Detail(cs)
	if err != nil {
		return err
	}
	item := triage.Classify(cs)
	ev, err := evidence.Collect(st.run, d, item, evidence.CollectOptions{Whole: true})
	if err != nil {
		return err
	}
	seen, err := record.SeeWith(d, ev.Task) // the task bundle Collect read
	if err != nil {
		return clierr.Failure(err, err.Error(), "")
	}
	state, j, err := st.verified(d, seen)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(s.Out, showReport{RunID: st.run.ID, caseSummary: st.summary(item), Evidence: ev, Feedback: j, State: state})
	}
	ev.Render(s.Out, evidence.Options{Width: s.width(), Whole: true, Color: evidence.ColorAllowed(s.TTYOut != nil, s.Getenv("NO_COLOR"))})
	if j != nil {
		evidence.RenderJudgment(s.Out, j, s.width())
		if state != stateReviewed {
			printf(s.Out, "state     %s\n", state)
		}
	}
	return nil
}

// find reads the run keeping the cases named like ref or judged by the
// feedback, and finds ref's case. A position (#N) names no test id: the
// run is read keeping the feedback's, then, when the case at N was not
// kept, again keeping its test id too.
func (st *runState) find(s *Streams, ref string) (*run.Case, error) {
	ids := st.reviewedIDs()
	if r, err := caseid.Parse(ref); err == nil && r.Pos == 0 {
		ids[r.ID.TestID], ids[r.Literal] = true, true // Resolve also tries the reference as a literal test id
	}
	keep := func(id string) bool { return ids[id] }
	if err := st.run.Read(keep); err != nil {
		return nil, err
	}
	c, err := st.run.Find(ref)
	if nk, ok := errors.AsType[*run.NotKeptError](err); ok {
		id, ierr := st.run.TestIDAt(nk.Pos)
		if ierr != nil {
			return nil, ierr
		}
		ids[id] = true
		if rerr := st.run.Read(keep); rerr != nil {
			return nil, rerr
		}
		c, err = st.run.Find(ref)
	}
	st.printRunWarnings(s)
	return c, err
}
