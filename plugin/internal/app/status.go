package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/calibrate"
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
		Description: "reviewed counts cases with a human verdict of what the case shows now; proposed, cases with only an\n" +
			"agent's proposal; stale, cases whose entry judged another output, grader result or test; unreviewed, the rest.\n" +
			"Staleness is checked from the recorded machine verdict; --verify (implied by --require-complete) also\n" +
			"compares each fingerprint with the answer and test on disk.",
		Flags: []cli.Flag{
			jsonFlag,
			outFlag,
			&cli.BoolFlag{Name: "require-complete", Usage: "exit 1 unless every case has a current human verdict (proposals, stale verdicts and another run's feedback fail)"},
			&cli.BoolFlag{Name: "accept-proposals", Usage: "with --require-complete, count agents' proposals as verdicts (agent-only pipelines)"},
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 when any case has one of these `VERDICTS` (comma-separated, e.g. incorrect,flaky)"},
			&cli.BoolFlag{Name: "verify", Usage: "check every verdict's fingerprint against the answer and test on disk (reads each reviewed case)"},
			&cli.BoolFlag{Name: "require-calibrated", Usage: "exit 1 unless every grader that decides a case has a judge certificate (calibrate --write) for its current configuration, at --band or better"},
			&cli.StringFlag{Name: "band", Value: "trend", Usage: "the `BAND` --require-calibrated requires: trend or gating"},
		},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			return runStatus(s, statusOptions{
				Target: argOr(args, 0), Out: c.String("out"), JSON: c.Bool("json"),
				RequireComplete: c.Bool("require-complete"), AcceptProposals: c.Bool("accept-proposals"),
				FailOn: c.String("fail-on"), Verify: c.Bool("verify"),
				RequireCalibrated: c.Bool("require-calibrated"), Band: c.String("band"),
			})
		}, 0, 1, "[run]"),
	}
}

type statusOptions struct {
	Target, Out     string
	JSON            bool
	RequireComplete bool
	AcceptProposals bool
	FailOn          string // comma-separated verdicts
	Verify          bool
	// RequireCalibrated gates on the judge certificate at Band.
	RequireCalibrated bool
	Band              string
}

// statusReport is the --json document of status. Scripts depend on these
// names: add fields, never rename them.
type statusReport struct {
	RunID    string     `json:"run_id"`
	RunDir   string     `json:"run_dir"`
	Layout   run.Layout `json:"layout"`
	Manifest string     `json:"manifest"`
	Rows     int        `json:"rows"`
	Cases    int        `json:"cases"`
	Passed   int        `json:"passed"`
	Failed   int        `json:"failed"`
	Errored  int        `json:"errored"`
	// Reviewed + Proposed + Stale + Unreviewed = Cases.
	Reviewed   int `json:"reviewed"`   // a current human verdict
	Proposed   int `json:"proposed"`   // only an agent's proposal
	Stale      int `json:"stale"`      // the entry judged another output, grader result or test
	Unreviewed int `json:"unreviewed"` // no entry
	// Verdicts counts the current human verdicts; ProposedVerdicts the
	// proposals'.
	Verdicts         map[string]int `json:"verdicts"`
	ProposedVerdicts map[string]int `json:"proposed_verdicts"`
	Verified         bool           `json:"verified"` // fingerprints were checked against the files (--verify)
	Feedback         *string        `json:"feedback"` // path, null when none yet
	FeedbackRunID    *string        `json:"feedback_run_id"`
	Reviewer         string         `json:"reviewer,omitempty"`
	Draft            *draftInfo     `json:"draft"` // null when none
	Warnings         []string       `json:"warnings"`
	Gate             *gateResult    `json:"gate,omitempty"`
	// Calibration is present when a judge certificate applies to the run
	// (calibrate --write) or --require-calibrated asks for one: the
	// corrected pass rate and each deciding grader's gate result.
	Calibration *statusCalibration `json:"calibration,omitempty"`
}

type statusCalibration struct {
	Certificate string                 `json:"certificate"`
	Band        string                 `json:"band,omitempty"` // with --require-calibrated
	Passed      *bool                  `json:"passed,omitempty"`
	Graders     []calibrate.GateResult `json:"graders,omitempty"`
	Rates       *calibrate.RunRate     `json:"rates,omitempty"`
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
	Problem string `json:"problem"` // "unreviewed", "proposed", "stale" or the offending verdict
}

// keep is which cases status reads (see run.Read): every one when
// something may judge them or must name them — a feedback file, a
// calibration certificate, --verify (which --require-complete implies:
// its problems list every unreviewed case); else none, and the cases are
// only counted, a few bytes each, so the status of a million-case run
// stays small. Without --verify a run every case of which is read is read
// compact (run.Options.Compact, nil keep), its cases made one at a time
// as the count needs them, unless a certificate applies: calibration
// reads r.Cases, so then every case is kept as a Case (keepAll).
// certified tells whether a judge certificate covers the run.
func (o statusOptions) keep(st *runState, certified bool) func(testID string) bool {
	if o.Verify {
		return nil
	}
	if certified || o.RequireCalibrated {
		return keepAll
	}
	if _, err := os.Lstat(st.paths.Feedback); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return func(string) bool { return false }
}

// keepAll keeps every case of a read as a Case (a keep makes a read
// ignore run.Options.Compact).
func keepAll(string) bool { return true }

func runStatus(s *Streams, o statusOptions) error {
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	failOn, err := parseVerdictList(cat, o.FailOn)
	if err != nil {
		return err
	}
	o.Verify = o.Verify || o.RequireComplete // its problems name every case that is not reviewed
	// The certificate is looked for once: what the read keeps and the
	// calibration reported depend on it alike.
	var cert string
	var certified bool
	st, err := openStateWith(s, o.Target, o.Out, run.Options{Outline: !o.Verify, Compact: !o.Verify}, func(st *runState) func(string) bool {
		cert, certified = certificateFor(st.run.Dir)
		return o.keep(st, certified)
	})
	if err != nil {
		return err
	}
	r := st.run
	compact := r.Compact() // no Case kept: the loop below makes each in turn
	rep := st.newStatusReport(cat, o.Verify)
	gate := o.RequireComplete || len(failOn) > 0
	problem := func(state string, j *feedback.Case) string {
		switch {
		case o.RequireComplete && state == stateProposed && !o.AcceptProposals:
			return stateProposed
		case o.RequireComplete && (state == stateUnreviewed || state == stateStale):
			return state
		case j != nil && state != stateStale && slices.Contains(failOn, j.Verdict):
			return j.Verdict
		}
		return ""
	}
	var offending []*run.Case
	problems := map[*run.Case]string{}
	n := len(r.Cases)
	if compact {
		n = r.Len()
	}
	rep.Unreviewed = r.Len() - n // not kept: nothing judges them (see keep)
	// A quick state reads no file: the cases are counted in chunks on
	// every core, each chunk with its own room. --verify reads each
	// judged case's files, one case after the other.
	type part struct {
		rep       statusReport // the chunk's counts
		offending []*run.Case
		problems  []string
		made      run.Case // the case at i of a compact read
		scratch   feedback.Scratch
	}
	work := func(lo, hi int, p *part) error {
		if p.rep.Verdicts == nil {
			p.rep.Verdicts, p.rep.ProposedVerdicts = map[string]int{}, map[string]int{}
		}
		clear(p.rep.Verdicts)
		clear(p.rep.ProposedVerdicts)
		p.rep = statusReport{Verdicts: p.rep.Verdicts, ProposedVerdicts: p.rep.ProposedVerdicts}
		p.offending, p.problems = p.offending[:0], p.problems[:0]
		for i := lo; i < hi; i++ {
			rc := &p.made
			if compact {
				r.CaseViewAt(i, rc) // a view: a case kept past this step is r.At's
			} else {
				rc = r.Cases[i]
			}
			var state string
			var j *feedback.Case
			if o.Verify {
				var err error
				if state, j, err = st.state(rc, true); err != nil {
					return err
				}
			} else {
				state, j = st.quickState(rc, &p.scratch)
			}
			p.rep.count(state, j)
			if pr := problem(state, j); pr != "" {
				if compact {
					rc = r.At(i) // a Case of its own
				}
				p.offending, p.problems = append(p.offending, rc), append(p.problems, pr)
			}
		}
		return nil
	}
	use := func(p *part) error {
		rep.add(&p.rep)
		for k, rc := range p.offending {
			offending = append(offending, rc)
			problems[rc] = p.problems[k]
		}
		return nil
	}
	if o.Verify {
		var p part
		err = work(0, n, &p)
		if err == nil {
			err = use(&p)
		}
	} else {
		err = inOrder(n, work, use)
	}
	if err != nil {
		return err
	}
	if rep.Stale > 0 {
		w := fmt.Sprintf("%d verdict(s) no longer match what the run shows (the output, a grader result or the test changed since): they count as stale, not reviewed", rep.Stale)
		rep.Warnings = append(rep.Warnings, w)
		fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, w)
	}
	// Problems are listed in review order; ranking only the offending
	// cases gives their order among all.
	var gps []gateProblem
	for _, item := range triage.Rank(offending) {
		gps = append(gps, gateProblem{st.refOf(item.Case), problems[item.Case]})
	}
	if st.draft != nil {
		rep.Draft = &draftInfo{Path: st.paths.Draft, Answered: len(st.draft.PerCase)}
	}
	foreign := st.feedback != nil && st.own() == nil
	if gate {
		rep.Gate = &gateResult{Passed: len(gps) == 0 && !(foreign && o.RequireComplete), Problems: gps}
		if rep.Gate.Problems == nil {
			rep.Gate.Problems = []gateProblem{}
		}
	}
	calErr := st.calibration(&rep, o, cert, certified)
	if calErr != nil && rep.Calibration == nil {
		return calErr // no certificate to report on
	}
	if o.JSON {
		if err := writeJSON(s.Out, rep); err != nil {
			return err
		}
	} else {
		printStatus(s, cat, rep)
	}
	if calErr != nil {
		return calErr
	}
	if gate && !rep.Gate.Passed {
		what := fmt.Sprintf("%d case(s) %s", len(gps), gateWhat(o.RequireComplete, failOn))
		if foreign && o.RequireComplete {
			what = "the feedback file reviews another run (" + st.feedback.RunID + "); " + what
		}
		return &clierr.Error{Code: clierr.CodeFailure, Msg: "review gate failed: " + what,
			Hint: "review them with '" + prog + " " + r.Dir + "' (a person confirms agents' proposals there or with 'agentv review set')"}
	}
	return nil
}

// newStatusReport is the report of st's run before its cases are
// counted: the run's counts, the feedback file and their warnings.
func (st *runState) newStatusReport(cat *prompts.Catalog, verified bool) statusReport {
	r := st.run
	rep := statusReport{
		RunID: r.ID, RunDir: r.Dir, Layout: r.Layout, Manifest: r.Manifest, Verified: verified,
		Rows: r.Rows, Cases: r.Len(), Verdicts: map[string]int{}, ProposedVerdicts: map[string]int{}, Warnings: []string{},
	}
	rep.Passed, rep.Failed, rep.Errored = r.Counts()
	for _, v := range cat.Verdicts {
		rep.Verdicts[v.ID], rep.ProposedVerdicts[v.ID] = 0, 0
	}
	for _, w := range r.Warnings {
		rep.Warnings = append(rep.Warnings, w.Msg)
	}
	rep.Warnings = append(rep.Warnings, st.feedbackWarnings()...)
	if st.feedback != nil {
		rep.Feedback = &st.paths.Feedback
		rep.FeedbackRunID = &st.feedback.RunID
		rep.Reviewer = st.feedback.Reviewer
	}
	return rep
}

// count counts a case in state, j its entry.
func (rep *statusReport) count(state string, j *feedback.Case) {
	switch state {
	case stateUnreviewed:
		rep.Unreviewed++
	case stateStale:
		rep.Stale++
	case stateProposed:
		rep.Proposed++
		rep.ProposedVerdicts[j.Verdict]++
	default:
		rep.Reviewed++
		rep.Verdicts[j.Verdict]++
	}
}

// add adds the counts of other, a part of the cases.
func (rep *statusReport) add(other *statusReport) {
	rep.Unreviewed += other.Unreviewed
	rep.Stale += other.Stale
	rep.Proposed += other.Proposed
	rep.Reviewed += other.Reviewed
	for v, n := range other.Verdicts {
		rep.Verdicts[v] += n
	}
	for v, n := range other.ProposedVerdicts {
		rep.ProposedVerdicts[v] += n
	}
}

func gateWhat(complete bool, failOn []string) string {
	var parts []string
	if complete {
		parts = append(parts, "without a current human verdict (unreviewed, proposed or stale)")
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
	line := fmt.Sprintf("review    %d of %d reviewed by a human, %d proposed by an agent, %d stale, %d unreviewed", rep.Reviewed, rep.Cases, rep.Proposed, rep.Stale, rep.Unreviewed)
	if len(vs) > 0 {
		line += ": " + strings.Join(vs, ", ")
	}
	fmt.Fprintln(w, line)
	if rep.Feedback != nil {
		fmt.Fprintf(w, "feedback  %s (reviewer %s)\n", san(*rep.Feedback), san(rep.Reviewer))
	} else {
		fmt.Fprintf(w, "feedback  none yet: start with '%s %s'\n", prog, san(rep.RunDir))
	}
	if !rep.Verified && rep.Reviewed+rep.Proposed > 0 {
		fmt.Fprintf(w, "          (stale from the recorded machine verdicts; --verify also checks answers and tests)\n")
	}
	if rep.Draft != nil {
		fmt.Fprintf(w, "draft     %s (%d answered): resume with '%s %s'\n", san(rep.Draft.Path), rep.Draft.Answered, prog, san(rep.RunDir))
	}
	if cal := rep.Calibration; cal != nil {
		if r := cal.Rates; r != nil {
			corrected := r.CorrectedNA
			if r.Corrected != nil {
				corrected = fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*r.Corrected.Value, 100*r.Corrected.Low, 100*r.Corrected.High)
			}
			fmt.Fprintf(w, "pass rate automated %.1f%% · human-adjusted %.1f%% · corrected %s\n", 100*r.AutomatedRate, 100*r.HumanRate, san(corrected))
		}
		if cal.Passed != nil {
			verdict := "passed"
			if !*cal.Passed {
				verdict = "FAILED"
			}
			fmt.Fprintf(w, "judges    %s (band %s, certificate %s)\n", verdict, cal.Band, san(cal.Certificate))
			for _, g := range cal.Graders {
				if !g.Pass {
					fmt.Fprintf(w, "  %-40s %s\n", san(g.Key), san(g.Reason))
				}
			}
		}
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

// calibration adds the judge certificate's view of the run to rep: the
// corrected pass rate, and with --require-calibrated the gate. It reads
// every case's graders, so it runs only when a certificate applies or is
// required: path and found are certificateFor of the run, looked for
// when the run was read.
func (st *runState) calibration(rep *statusReport, o statusOptions, path string, found bool) error {
	if !found && !o.RequireCalibrated {
		return nil
	}
	if o.RequireCalibrated {
		if _, err := parseBand(o.Band); err != nil {
			return err
		}
	}
	cert, err := loadCertificate(path)
	if err != nil {
		return err
	}
	rg := calibrate.ReadGraders(st.run)
	own := st.own()
	if st.view != nil && own != nil { // status read only a view of the entries: the rates need them whole
		if own, _, err = loadIfExists(st.paths.Feedback); err != nil {
			return err
		}
	}
	rates := calibrate.CorrectedRate(rg, own, cert)
	rep.Calibration = &statusCalibration{Certificate: path, Rates: &rates}
	if !o.RequireCalibrated {
		return nil
	}
	results, err := calibrationGate(rg, cert, o.Band)
	passed := err == nil
	rep.Calibration.Band, rep.Calibration.Passed, rep.Calibration.Graders = o.Band, &passed, results
	return err
}
