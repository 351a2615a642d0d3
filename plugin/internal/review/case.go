package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// PriorVerdict is a judgment of the same case in an earlier run.
type PriorVerdict struct {
	RunID string
	Case  feedback.Case
}

// graderSignals are the signals that point at a grader: for each, the
// reviewer is offered a note per grader (evaluator_overrides).
var graderSignals = []string{"score_behavior_mismatch", "false_positive", "false_negative", "grader_miscalibration"}

// reviewCase shows the case at pos and records the reviewer's judgment.
// It returns where the walk goes next: the next case, or where the
// reviewer moved (back, a jump), or stop.
//
// Defaults never decide for the reviewer: on a suspicious case (the triage
// marks it, or an earlier verdict of it is stale or no longer applies) no
// verdict is pre-selected and Enter alone records nothing; on a clean pass
// Enter accepts the machine's outcome (or the verdict recorded for the
// same output). A stale verdict is shown, never pre-selected. The
// reviewer's own answer of this session (a case visited again, or one
// interrupted by Ctrl-C and resumed) is pre-selected: it is their
// judgment, not the machine's.
func (s *session) reviewCase(pos int) (move, error) {
	it := s.items[pos]
	c := it.Case
	d, err := s.Run.Detail(c)
	if err != nil {
		return move{}, err
	}
	ev, err := evidence.Collect(s.Run, d, it, evidence.CollectOptions{})
	if err != nil {
		return move{}, err
	}
	seen, err := record.SeeWith(d, ev.Task) // the task bundle the screen read
	if err != nil {
		return move{}, err
	}
	mine := s.workIx.Entry(int(c.Index)) // this session's own answer, when visited again
	blind := s.Blind && mine == nil      // a case answered before has been revealed
	recorded := s.existing.Entry(int(c.Index))
	recordedFresh := record.Unknown
	if recorded != nil {
		if recordedFresh, err = record.Verify(s.Run, d, seen, recorded); err != nil {
			return move{}, err
		}
	}
	prior, hasPrior := s.prior(c)
	priorFresh := record.Unknown
	if hasPrior {
		if priorFresh, err = record.Verify(s.Run, d, seen, &prior.Case); err != nil {
			return move{}, err
		}
	}
	previous, err := s.previous(c, d)
	if err != nil {
		return move{}, err
	}
	suspicious := it.Suspicious() || recordedFresh == record.Stale || (hasPrior && priorFresh != record.Current)

	s.say("\n")
	pagerHint := ""
	if s.Pager != nil {
		pagerHint = "choose 'Open in the pager'"
	}
	opt := evidence.Options{
		Width: s.Width, AnswerLines: max(6, s.Height/3), InputLines: 4,
		Heading:   fmt.Sprintf("case %d of %d", pos+1, len(s.items)),
		PagerHint: pagerHint, Color: s.Color, Blind: blind,
	}
	ev.Render(s.Out, opt)
	var runs string
	if s.History != nil {
		if runs = runsPattern(s.History(c), c.Outcome); strings.Contains(runs, " ") && !blind {
			s.say("runs      %s (oldest first, this run last)\n", runs)
		}
	}
	if previous != nil {
		evidence.RenderPrevious(s.Out, previous, evidence.Options{Width: s.Width, AnswerLines: 4, Blind: blind}, pagerHint)
	}
	if hasPrior && !blind {
		state := "same output and test"
		if priorFresh != record.Current {
			state = "output or test changed since: stale"
		}
		s.say("earlier   run %s: %s (%s)\n", termtext.SanitizeLine(prior.RunID), termtext.SanitizeLine(prior.Case.Verdict), state)
		if prior.Case.Notes != "" {
			s.say("          %s\n", termtext.SanitizeLine(prior.Case.Notes))
		}
	}
	if recorded != nil && !blind {
		who := termtext.SanitizeLine(recorded.Reviewer)
		if recorded.ReviewerKind == feedback.Agent {
			who += " (an agent's proposal: confirm or correct it)"
		}
		state := "pre-filled below"
		if recordedFresh == record.Stale {
			state = "STALE: the output or the test changed since; judge it again"
		}
		s.say("recorded  %s by %s, %s\n", termtext.SanitizeLine(recorded.Verdict), who, state)
	}
	if mine != nil {
		state := "your answer in this session"
		if unfinished(mine) {
			state = "your answer before the interruption, not finished"
		}
		s.say("yours     %s (%s; pre-selected below)\n", termtext.SanitizeLine(mine.Verdict), state)
	}
	for _, n := range s.Legacy {
		if n.TestID == c.TestID {
			s.say("note      %s\n", termtext.SanitizeLine(n.Note))
		}
	}

	// The judgment to pre-fill: the reviewer's own answer, else this run's
	// recorded one, else an earlier run's — never a stale one.
	var earlier *feedback.Case
	switch {
	case mine != nil:
		earlier = mine
	case recorded != nil && recordedFresh != record.Stale:
		earlier = recorded
	case recorded == nil && hasPrior && priorFresh == record.Current:
		earlier = &prior.Case
	}

	if !blind && mine == nil {
		if recorded != nil && recorded.ReviewerKind == feedback.Agent && recordedFresh != record.Stale {
			q := s.Catalog.Q("confirm_proposal")
			ok, err := s.ask.Confirm(fmt.Sprintf(q.Message, termtext.SanitizeLine(recorded.Verdict)), !suspicious, q.Help)
			if err != nil {
				return move{}, err
			}
			if ok { // the agent's answer, now a human's
				return s.next(pos), s.record(c, seen, record.Answer(*recorded))
			}
		} else if recorded == nil && hasPrior && priorFresh == record.Current {
			q := s.Catalog.Q("carry_forward")
			keep, err := s.ask.Confirm(fmt.Sprintf(q.Message, termtext.SanitizeLine(prior.RunID))+" ("+termtext.SanitizeLine(prior.Case.Verdict)+")", !suspicious, q.Help)
			if err != nil {
				return move{}, err
			}
			if keep { // this run's case and snapshot, the earlier judgment
				p := prior.Case
				entry := record.Answer(p)
				entry.FlakyEvidence = p.FlakyEvidence
				entry.CarriedFrom = &feedback.CarriedFrom{RunID: prior.RunID, ReviewedAt: p.ReviewedAt, Reviewer: p.Reviewer}
				return s.next(pos), s.record(c, seen, entry)
			}
		}
	}
	var entry feedback.Case
	entry.Stale = hasPrior && priorFresh == record.Stale || recordedFresh == record.Stale

	def := -1 // suspicious: nothing pre-selected
	switch {
	case mine != nil:
		def = indexOf(s.Catalog.Verdicts, mine.Verdict)
	case !suspicious && !blind:
		def = indexOf(s.Catalog.Verdicts, feedback.Acceptable)
		if earlier != nil {
			if i := indexOf(s.Catalog.Verdicts, earlier.Verdict); i >= 0 {
				def = i
			}
		}
	}
	view := caseView{pos: pos, d: d, it: it, ev: ev, previous: previous}
	verdict, mv, err := s.askVerdict(view, def)
	if err != nil {
		return move{}, err
	}
	if mv != nil {
		return *mv, nil
	}
	// From here on, Ctrl-C keeps what was answered of this case in the
	// draft, marked unfinished: the resumed session asks it again with the
	// answers pre-filled.
	var reached stage
	keepPartial := func(err error) (move, error) {
		if errors.Is(err, clierr.ErrInterrupted) && entry.Verdict != "" {
			entry = unanswered(entry, earlier, reached)
			markUnfinished(&entry)
			if serr := s.record(c, seen, entry); serr != nil {
				return move{}, errors.Join(err, serr)
			}
		}
		return move{}, err
	}
	entry.Verdict = verdict
	if mine != nil {
		entry.BlindVerdict = mine.BlindVerdict
	}
	if blind {
		entry.BlindVerdict = verdict
		if entry.Verdict, err = s.reveal(ev, opt, verdict); err != nil {
			return keepPartial(err)
		}
	}
	if err := s.askDetails(&entry, c, earlier, &reached); err != nil {
		return keepPartial(err)
	}
	if ev := (feedback.FlakyEvidence{Samples: triage.SamplePattern(c.Samples), Runs: runs}); entry.Verdict == feedback.Flaky && (ev.Samples != "" || ev.Runs != "") {
		entry.FlakyEvidence = &ev
	}
	if err := s.record(c, seen, entry); err != nil {
		return move{}, err
	}
	return s.afterVerdict(pos)
}

// reveal shows the machine's verdict after a blind-first verdict and asks
// whether the reviewer keeps it; the committed verdict is the default.
func (s *session) reveal(ev *evidence.Evidence, opt evidence.Options, first string) (string, error) {
	ev.RenderVerdicts(s.Out, opt)
	q := s.Catalog.Q("blind_keep")
	i, err := s.ask.Select(fmt.Sprintf(q.Message, first), s.verdictOptions(), indexOf(s.Catalog.Verdicts, first), q.Help)
	if err != nil {
		return "", err
	}
	return s.Catalog.Verdicts[i].ID, nil
}

// verdictOptions are the verdicts as choices. They come first, so the
// prompt's numbers 1–4 are the verdicts: typing the number picks one.
func (s *session) verdictOptions() []string {
	opts := make([]string, len(s.Catalog.Verdicts))
	for i, v := range s.Catalog.Verdicts {
		opts[i] = v.Label + " — " + v.Meaning
	}
	return opts
}

// prior finds an earlier run's judgment of c.
func (s *session) prior(c *run.Case) (PriorVerdict, bool) {
	p, ok := s.Prior[int(c.Index)]
	return p, ok
}

// record stamps the reviewer's answer about case c (what they saw of it)
// as this reviewer's, now, and saves it to the draft.
func (s *session) record(c *run.Case, seen record.Seen, answer feedback.Case) error {
	entry := record.Stamp(seen, answer, record.Who{Reviewer: s.work.Reviewer, Kind: feedback.Human}, s.Now())
	s.workIx.Put(int(c.Index), entry)
	if !unfinished(&entry) {
		delete(s.skipped, int(c.Index))
	}
	s.res.Answered, s.res.Skipped = s.answered(), len(s.skipped)
	return s.saveDraft()
}

// stage is how far the details of a case got: each question answered
// moves it on.
type stage int

const (
	stageVerdict stage = iota
	stageSignals
	stageNotes
	stageOverrides
	stageWorkspace
	stageTestDefect
)

// askDetails asks for signals, notes, grader notes, workspace notes and
// whether the test is defective. Each answer is set on entry once given,
// and reached says how far it got (for an interruption).
func (s *session) askDetails(entry *feedback.Case, c *run.Case, earlier *feedback.Case, reached *stage) error {
	var prev feedback.Case
	if earlier != nil {
		prev = *earlier
	}
	opts := make([]string, len(s.Catalog.Signals))
	var defs []int
	for i, sig := range s.Catalog.Signals {
		opts[i] = sig.Label + " — " + sig.Meaning
		if slices.Contains(prev.Signals, sig.ID) {
			defs = append(defs, i)
		}
	}
	q := s.Catalog.Q("signals")
	picked, err := s.ask.MultiSelect(q.Message, opts, defs, q.Help)
	if err != nil {
		return err
	}
	for _, i := range picked {
		entry.Signals = append(entry.Signals, s.Catalog.Signals[i].ID)
	}
	*reached = stageSignals
	notes, err := s.notes(s.Catalog.Q("notes"), prev.Notes)
	if err != nil {
		return err
	}
	entry.Notes, *reached = notes, stageNotes
	if pointsAtGrader(entry.Signals) && len(c.Graders) > 0 {
		overrides, err := s.askOverrides(c, prev.EvaluatorOverrides)
		if err != nil {
			return err
		}
		entry.EvaluatorOverrides, *reached = overrides, stageOverrides
	}
	if c.HasWorkspace {
		notes, err := s.notes(s.Catalog.Q("workspace_notes"), prev.WorkspaceNotes)
		if err != nil {
			return err
		}
		entry.WorkspaceNotes, *reached = notes, stageWorkspace
	}
	// The test may be what is wrong when the reviewer contradicts the
	// machine (a failure judged acceptable, a pass judged incorrect), or
	// doubts a grader: ask then (Enter: no).
	passed := c.Outcome == run.Passed
	disagrees := entry.Verdict == feedback.Acceptable && !passed || entry.Verdict == feedback.Incorrect && passed
	if disagrees || pointsAtGrader(entry.Signals) || prev.TestDefect != "" {
		opts := []string{"No — the test is fine"}
		def := 0
		for i, td := range s.Catalog.TestDefects {
			opts = append(opts, td.Label+" — "+td.Meaning)
			if td.ID == prev.TestDefect {
				def = i + 1
			}
		}
		q := s.Catalog.Q("test_defect")
		i, err := s.ask.Select(q.Message, opts, def, q.Help)
		if err != nil {
			return err
		}
		if i > 0 {
			entry.TestDefect = s.Catalog.TestDefects[i-1].ID
		}
		*reached = stageTestDefect
	}
	return nil
}

// unanswered completes an interrupted case's answers with the pre-filled
// ones of the questions not reached, so resuming it loses nothing.
func unanswered(entry feedback.Case, earlier *feedback.Case, reached stage) feedback.Case {
	if earlier == nil {
		return entry
	}
	if reached < stageSignals {
		entry.Signals = earlier.Signals
	}
	if reached < stageNotes {
		entry.Notes = earlier.Notes
	}
	if reached < stageOverrides {
		entry.EvaluatorOverrides = earlier.EvaluatorOverrides
	}
	if reached < stageWorkspace {
		entry.WorkspaceNotes = earlier.WorkspaceNotes
	}
	if reached < stageTestDefect {
		entry.TestDefect = earlier.TestDefect
	}
	return entry
}

// unfinishedKey marks a draft entry whose case was interrupted after its
// verdict was chosen: a resumed session asks that case again, pre-filled.
// feedback.json never holds such an entry.
const unfinishedKey = "unfinished"

func markUnfinished(e *feedback.Case) {
	e.Extra = map[string]json.RawMessage{unfinishedKey: json.RawMessage("true")}
}

func unfinished(e *feedback.Case) bool {
	_, ok := e.Extra[unfinishedKey]
	return ok
}

func (s *session) askOverrides(c *run.Case, prev map[string]string) (map[string]string, error) {
	var keys, opts []string
	var defs []int
	for _, g := range c.Graders {
		key := g.Key()
		if slices.Contains(keys, key) {
			continue // two graders can share type and name; one note covers both
		}
		if _, ok := prev[key]; ok {
			defs = append(defs, len(keys))
		}
		keys = append(keys, key)
		pass := "?"
		if g.Pass != nil {
			pass = map[bool]string{true: "pass", false: "fail"}[*g.Pass]
		}
		score := "-"
		if g.Score != nil {
			score = triage.FormatScore(*g.Score)
		}
		opts = append(opts, fmt.Sprintf("%s  %s %s", termtext.SanitizeLine(key), score, pass))
	}
	q := s.Catalog.Q("overrides")
	picked, err := s.ask.MultiSelect(q.Message, opts, defs, q.Help)
	if err != nil || len(picked) == 0 {
		return nil, err
	}
	out := map[string]string{}
	for _, i := range picked {
		nq := s.Catalog.Q("override_note")
		nq.Message = fmt.Sprintf(nq.Message, termtext.SanitizeLine(keys[i]))
		note, err := s.notes(nq, prev[keys[i]])
		if err != nil {
			return nil, err
		}
		out[keys[i]] = note
	}
	return out, nil
}

func pointsAtGrader(signals []string) bool {
	for _, sig := range signals {
		if slices.Contains(graderSignals, sig) {
			return true
		}
	}
	return false
}

// runsPattern is a case's outcomes in the earlier runs and this one,
// oldest first ("P P F").
func runsPattern(earlier []run.Outcome, now run.Outcome) string {
	marks := make([]string, 0, len(earlier)+1)
	for _, o := range append(earlier, now) {
		marks = append(marks, outcomeMark(o))
	}
	return strings.Join(marks, " ")
}

// outcomeMark is an outcome's letter in a pattern such as "P F E":
// P passed, F failed, E errored, ? unknown.
func outcomeMark(o run.Outcome) string {
	switch o {
	case run.Passed:
		return "P"
	case run.Failed:
		return "F"
	case run.Errored:
		return "E"
	}
	return "?"
}
