package review

import (
	"fmt"
	"os"
	"slices"
	"strings"

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

// reviewCase shows one case and records the reviewer's judgment. done is
// true when the reviewer chose to save and quit.
//
// Defaults never decide for the reviewer: on a suspicious case (the triage
// marks it, or an earlier verdict of it is stale or no longer applies) no
// verdict is pre-selected and Enter alone records nothing; on a clean pass
// Enter accepts the machine's outcome (or the verdict recorded for the
// same output). A stale verdict is shown, never pre-selected.
func (s *session) reviewCase(it triage.Item, pos int) (done bool, err error) {
	c := it.Case
	d, err := s.Run.Detail(c)
	if err != nil {
		return false, err
	}
	ev, err := evidence.Collect(s.Run, d, it, evidence.CollectOptions{})
	if err != nil {
		return false, err
	}
	seen, err := record.See(s.Run, d)
	if err != nil {
		return false, err
	}
	recorded := s.existing.Entry(int(c.Index))
	recordedFresh := record.Unknown
	if recorded != nil {
		if recordedFresh, err = record.Verify(s.Run, d, seen, recorded); err != nil {
			return false, err
		}
	}
	prior, hasPrior := s.prior(c)
	priorFresh := record.Unknown
	if hasPrior {
		if priorFresh, err = record.Verify(s.Run, d, seen, &prior.Case); err != nil {
			return false, err
		}
	}
	suspicious := it.Suspicious() || recordedFresh == record.Stale || (hasPrior && priorFresh != record.Current)

	s.say("\n")
	opt := evidence.Options{
		Width: s.Width, AnswerLines: max(6, s.Height/3), InputLines: 4,
		Heading:   fmt.Sprintf("case %d of %d", pos+1, len(s.items)),
		PagerHint: "choose 'Read the whole answer'", Color: s.Color, Blind: s.Blind,
	}
	cut := ev.Render(s.Out, opt)
	var runs string
	if s.RunsPattern != nil {
		if runs = s.RunsPattern(c); strings.Contains(runs, " ") && !s.Blind {
			s.say("runs      %s (oldest first, this run last)\n", runs)
		}
	}
	if hasPrior && !s.Blind {
		state := "same output and test"
		if priorFresh != record.Current {
			state = "output or test changed since: stale"
		}
		s.say("earlier   run %s: %s (%s)\n", termtext.SanitizeLine(prior.RunID), termtext.SanitizeLine(prior.Case.Verdict), state)
		if prior.Case.Notes != "" {
			s.say("          %s\n", termtext.SanitizeLine(prior.Case.Notes))
		}
	}
	if recorded != nil && !s.Blind {
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
	for _, n := range s.Legacy {
		if n.TestID == c.TestID {
			s.say("note      %s\n", termtext.SanitizeLine(n.Note))
		}
	}

	// The judgment to pre-fill: this run's recorded one, else an earlier
	// run's — never a stale one.
	var earlier *feedback.Case
	switch {
	case recorded != nil && recordedFresh != record.Stale:
		earlier = recorded
	case recorded == nil && hasPrior && priorFresh == record.Current:
		earlier = &prior.Case
	}

	if !s.Blind {
		if recorded != nil && recorded.ReviewerKind == feedback.Agent && recordedFresh != record.Stale {
			q := s.Catalog.Q("confirm_proposal")
			ok, err := s.ask.Confirm(fmt.Sprintf(q.Message, termtext.SanitizeLine(recorded.Verdict)), !suspicious, q.Help)
			if err != nil {
				return false, err
			}
			if ok { // the agent's answer, now a human's
				return false, s.record(c, seen, answerOf(*recorded))
			}
		} else if recorded == nil && hasPrior && priorFresh == record.Current {
			q := s.Catalog.Q("carry_forward")
			keep, err := s.ask.Confirm(fmt.Sprintf(q.Message, termtext.SanitizeLine(prior.RunID))+" ("+termtext.SanitizeLine(prior.Case.Verdict)+")", !suspicious, q.Help)
			if err != nil {
				return false, err
			}
			if keep { // this run's case and snapshot, the earlier judgment
				p := prior.Case
				entry := answerOf(p)
				entry.FlakyEvidence = p.FlakyEvidence
				entry.CarriedFrom = &feedback.CarriedFrom{RunID: prior.RunID, ReviewedAt: p.ReviewedAt, Reviewer: p.Reviewer}
				return false, s.record(c, seen, entry)
			}
		}
	}
	var entry feedback.Case
	entry.Stale = hasPrior && priorFresh == record.Stale || recordedFresh == record.Stale

	def := -1 // suspicious: nothing pre-selected
	if !suspicious && !s.Blind {
		def = indexOf(s.Catalog.Verdicts, feedback.Acceptable)
		if earlier != nil {
			if i := indexOf(s.Catalog.Verdicts, earlier.Verdict); i >= 0 {
				def = i
			}
		}
	}
	verdict, action, err := s.askVerdict(d, def, cut)
	if err != nil || action != "" {
		if action == "skip" {
			s.res.Skipped++
		}
		if action == "quit" {
			s.res.Quit = true
			if err := s.saveDraft(); err != nil { // also keeps reviewer and scope when nothing was answered yet
				return true, err
			}
			s.say("Saved %d answer(s) in %s\nresume with: agentv review %s\n", len(s.work.PerCase), s.Paths.Draft, s.Run.Dir)
		}
		return action == "quit", err
	}
	if s.Blind {
		first := verdict
		if verdict, err = s.reveal(ev, opt, first); err != nil {
			return false, err
		}
		entry.BlindVerdict = first
	}
	entry.Verdict = verdict
	if err := s.askDetails(&entry, c, d, earlier); err != nil {
		return false, err
	}
	if ev := (feedback.FlakyEvidence{Samples: triage.SamplePattern(c.Samples), Runs: runs}); verdict == feedback.Flaky && (ev.Samples != "" || ev.Runs != "") {
		entry.FlakyEvidence = &ev
	}
	return false, s.record(c, seen, entry)
}

// answerOf is the part of a recorded entry a reviewer answered (what
// record.Stamp completes again).
func answerOf(e feedback.Case) feedback.Case {
	return feedback.Case{Verdict: e.Verdict, Notes: e.Notes, Signals: e.Signals, EvaluatorOverrides: e.EvaluatorOverrides,
		WorkspaceNotes: e.WorkspaceNotes, TestDefect: e.TestDefect}
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
	entry.CarriedFrom, entry.Stale, entry.FlakyEvidence, entry.BlindVerdict = answer.CarriedFrom, answer.Stale, answer.FlakyEvidence, answer.BlindVerdict
	s.workIx.Put(int(c.Index), entry)
	s.res.Answered++
	return s.saveDraft()
}

// askVerdict asks for the verdict, with def pre-selected (-1: none, so
// Enter alone records nothing). action is "skip" or "quit" when the
// reviewer chose one of those instead.
func (s *session) askVerdict(d *run.Detail, def int, answerCut bool) (verdict, action string, err error) {
	opts := s.verdictOptions()
	canPage := s.Pager != nil && answerCut
	if canPage {
		opts = append(opts, "Read the whole answer — open it in the pager")
	}
	for _, a := range s.Catalog.Actions {
		opts = append(opts, a.Label+" — "+a.Meaning)
	}
	if def < 0 { // the cursor starts on an option that records nothing
		def = len(opts)
		opts = append(opts, noVerdict)
	}
	q := s.Catalog.Q("verdict")
	for {
		i, err := s.ask.Select(q.Message, opts, def, q.Help)
		if err != nil {
			return "", "", err
		}
		n := len(s.Catalog.Verdicts)
		switch {
		case opts[i] == noVerdict:
			s.say("No verdict recorded: this case needs your judgment. Type its number (1–%d) or pick Skip.\n", n)
			continue
		case i < n:
			return s.Catalog.Verdicts[i].ID, "", nil
		case canPage && i == n:
			if err := s.page(d.Answer); err != nil {
				s.say("cannot open the pager: %v\n", err)
			}
			continue
		case canPage:
			return "", s.Catalog.Actions[i-n-1].ID, nil
		default:
			return "", s.Catalog.Actions[i-n].ID, nil
		}
	}
}

// noVerdict is the last option of a suspicious case's verdict question,
// where the cursor starts: choosing it records nothing.
const noVerdict = "(choose a verdict — this case is suspicious, so Enter alone records nothing)"

// askDetails asks for signals, notes, grader notes and workspace notes.
func (s *session) askDetails(entry *feedback.Case, c *run.Case, d *run.Detail, earlier *feedback.Case) error {
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
	if entry.Notes, err = s.notes(s.Catalog.Q("notes"), prev.Notes); err != nil {
		return err
	}
	if pointsAtGrader(entry.Signals) && len(c.Graders) > 0 {
		if entry.EvaluatorOverrides, err = s.askOverrides(c, prev.EvaluatorOverrides); err != nil {
			return err
		}
	}
	if c.HasWorkspace {
		q := s.Catalog.Q("workspace_notes")
		if entry.WorkspaceNotes, err = s.notes(q, prev.WorkspaceNotes); err != nil {
			return err
		}
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
	}
	return nil
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

// page shows the whole answer, sanitised, in the pager.
func (s *session) page(t run.Text) error {
	content := t.Content
	if t.Path != "" {
		data, err := os.ReadFile(t.Path)
		if err != nil {
			return err
		}
		content = string(data)
	}
	return s.Pager(termtext.Sanitize(content))
}

func pointsAtGrader(signals []string) bool {
	for _, sig := range signals {
		if slices.Contains(graderSignals, sig) {
			return true
		}
	}
	return false
}

// OutcomeMark is an outcome's letter in a pattern such as "P F E":
// P passed, F failed, E errored, ? unknown.
func OutcomeMark(o run.Outcome) string {
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
