package review

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// PriorVerdict is a judgment of the same case in an earlier run.
type PriorVerdict struct {
	RunID string
	Case  feedback.Case
}

// Key is how prior verdicts are matched to cases: test id, target, variant.
func Key(testID, target, variant string) string {
	return testID + "\x00" + target + "\x00" + variant
}

// graderSignals are the signals that point at a grader.
var graderSignals = []string{"false_positive", "false_negative", "grader_miscalibration"}

// reviewCase shows one case and records the reviewer's judgment. done is
// true when the reviewer chose to save and quit.
func (s *session) reviewCase(it triage.Item, pos int) (done bool, err error) {
	c := it.Case
	d, err := s.Run.Detail(c)
	if err != nil {
		return false, err
	}
	entry := feedback.Case{
		TestID: c.TestID, Target: c.Target, Variant: c.Variant, Suite: c.Suite,
		Automated: Snapshot(c),
	}
	if entry.Fingerprint, err = Fingerprint(d, entry.Automated.Graders); err != nil {
		return false, err
	}
	earlier := s.earlier(c)
	prior, hasPrior := s.prior(c)
	same := hasPrior && prior.Case.Fingerprint != "" && prior.Case.Fingerprint == entry.Fingerprint

	s.say("\n")
	cut := evidence.Render(s.Out, d, it, evidence.Options{
		Width: s.Width, AnswerLines: max(6, s.Height/3), InputLines: 4,
		Heading:   fmt.Sprintf("case %d of %d", pos+1, len(s.items)),
		PagerHint: "choose 'Read the whole answer'",
	})
	var runs string
	if s.RunsPattern != nil {
		if runs = s.RunsPattern(c); strings.Contains(runs, " ") {
			s.say("runs      %s (oldest first, this run last)\n", runs)
		}
	}
	if hasPrior {
		state := "same output"
		if !same {
			state = "output changed since: stale"
		}
		s.say("earlier   run %s: %s (%s)\n", termtext.SanitizeLine(prior.RunID), prior.Case.Verdict, state)
		if prior.Case.Notes != "" {
			s.say("          %s\n", termtext.SanitizeLine(prior.Case.Notes))
		}
	}
	if j := s.existing.Lookup(c.TestID, c.Target, c.Variant); j != nil {
		who := termtext.SanitizeLine(j.Reviewer)
		if j.ReviewerKind == feedback.Agent {
			who += " (agent: confirm or correct it)"
		}
		s.say("recorded  %s by %s, pre-filled below\n", termtext.SanitizeLine(j.Verdict), who)
	}
	for _, n := range s.Legacy {
		if n.TestID == c.TestID {
			s.say("note      %s\n", termtext.SanitizeLine(n.Note))
		}
	}

	if same {
		q := s.Catalog.Q("carry_forward")
		keep, err := s.ask.Confirm(fmt.Sprintf(q.Message, prior.RunID)+" ("+prior.Case.Verdict+")", true, q.Help)
		if err != nil {
			return false, err
		}
		if keep { // this run's case and snapshot, the earlier judgment
			p := prior.Case
			entry.Verdict, entry.Notes, entry.Signals = p.Verdict, p.Notes, p.Signals
			entry.EvaluatorOverrides, entry.WorkspaceNotes, entry.FlakyEvidence = p.EvaluatorOverrides, p.WorkspaceNotes, p.FlakyEvidence
			entry.CarriedFrom = &feedback.CarriedFrom{RunID: prior.RunID, ReviewedAt: p.ReviewedAt, Reviewer: p.Reviewer}
			return false, s.record(entry)
		}
	}
	entry.Stale = hasPrior && !same

	verdict, action, err := s.askVerdict(c, d, earlier, cut)
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
	entry.Verdict = verdict
	if err := s.askDetails(&entry, c, d, earlier); err != nil {
		return false, err
	}
	if ev := (feedback.FlakyEvidence{Samples: triage.SamplePattern(c.Samples), Runs: runs}); verdict == feedback.Flaky && (ev.Samples != "" || ev.Runs != "") {
		entry.FlakyEvidence = &ev
	}
	return false, s.record(entry)
}

// earlier is the judgment to pre-fill: from the feedback being amended,
// else from an earlier run.
func (s *session) earlier(c *run.Case) *feedback.Case {
	if j := s.existing.Lookup(c.TestID, c.Target, c.Variant); j != nil {
		return j
	}
	if p, ok := s.prior(c); ok {
		return &p.Case
	}
	return nil
}

// prior finds an earlier run's judgment of c: for its exact target and
// variant, else one recorded without them (AgentV's documented files carry
// test_id only).
func (s *session) prior(c *run.Case) (PriorVerdict, bool) {
	if p, ok := s.Prior[Key(c.TestID, c.Target, c.Variant)]; ok {
		return p, true
	}
	p, ok := s.Prior[Key(c.TestID, "", "")]
	return p, ok
}

// record stamps the judgment as this reviewer's, now, and saves it.
func (s *session) record(entry feedback.Case) error {
	entry.ReviewedAt, entry.Reviewer, entry.ReviewerKind = feedback.FormatTime(s.Now()), s.work.Reviewer, feedback.Human
	feedback.Upsert(s.work, entry)
	s.res.Answered++
	return s.saveDraft()
}

// askVerdict asks for the verdict. action is "skip" or "quit" when the
// reviewer chose one of those instead.
func (s *session) askVerdict(c *run.Case, d *run.Detail, earlier *feedback.Case, answerCut bool) (verdict, action string, err error) {
	var opts []string
	for _, v := range s.Catalog.Verdicts {
		opts = append(opts, v.Label+" — "+v.Meaning)
	}
	canPage := s.Pager != nil && answerCut
	if canPage {
		opts = append(opts, "Read the whole answer — open it in the pager")
	}
	for _, a := range s.Catalog.Actions {
		opts = append(opts, a.Label+" — "+a.Meaning)
	}
	def := indexOf(s.Catalog.Verdicts, feedback.Acceptable)
	if c.Outcome != run.Passed {
		def = indexOf(s.Catalog.Verdicts, feedback.Incorrect)
	}
	if earlier != nil {
		if i := indexOf(s.Catalog.Verdicts, earlier.Verdict); i >= 0 {
			def = i
		}
	}
	q := s.Catalog.Q("verdict")
	for {
		i, err := s.ask.Select(q.Message, opts, def, q.Help)
		if err != nil {
			return "", "", err
		}
		n := len(s.Catalog.Verdicts)
		switch {
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

// Snapshot is the machine verdict the reviewer sees, kept beside theirs.
func Snapshot(c *run.Case) *feedback.Automated {
	score := c.Score
	a := &feedback.Automated{Score: &score, Outcome: string(c.Outcome), ExecutionStatus: c.ExecutionStatus, Samples: triage.SamplePattern(c.Samples)}
	for _, g := range c.Graders {
		a.Graders = append(a.Graders, feedback.GraderResult{Key: g.Key(), Score: g.Score, Pass: g.Pass})
	}
	return a
}

// Fingerprint binds a judgment to the exact output and grader results.
func Fingerprint(d *run.Detail, graders []feedback.GraderResult) (string, error) {
	var answer io.Reader = strings.NewReader(d.Answer.Content)
	if d.Answer.Path != "" && !d.Answer.Missing {
		f, err := os.Open(d.Answer.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		answer = f
	}
	return feedback.Fingerprint(answer, graders)
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
