package review

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/evidence"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

// Moving around. The verdict question carries, after the four verdicts
// (numbers 1–4), the session's moves as options — Skip, Save and quit,
// Back, Go to case #N, Open in the pager, Keys and help — and, on a
// suspicious case, a last option that records nothing, where the cursor
// starts. Every label starts with a word to type: survey filters the
// options by what is typed ("back", "go", "open", "keys"), and by number.
//
// Go to case takes #N as 'agentv review list' prints it (the case's
// position in the run, c.Index+1, the same in every command and session)
// or any case reference; a case outside this session's scope is added
// right after the current one.

// move is where the walk goes after a case.
type move struct {
	to   int  // position in s.items; past the end: the cases passed over, then finish; stop, finishNow
	show bool // show the case at to even when it is already answered
}

// noVerdict is the last option of a suspicious case's verdict question,
// where the cursor starts: choosing it records nothing.
const noVerdict = "(choose a verdict — this case is suspicious, so Enter alone records nothing)"

// The moves that end the walk: Save and quit, and finishing now (the
// spot check's stop) without going back to cases passed over.
const (
	stop      = -1
	finishNow = -2
)

func (s *session) next(pos int) move { return move{to: pos + 1} }

// caseView is what the verdict question can open or move from.
type caseView struct {
	pos      int
	d        *run.Detail
	it       triage.Item
	ev       *evidence.Evidence // as on the case screen
	previous *evidence.Previous // nil when no earlier run has the case
}

// option is one answer to the verdict question: a verdict, or something
// to do (which may ask the question again).
type option struct {
	label string
	do    func() (verdict string, mv *move, again bool, err error)
}

// askVerdict asks for the verdict, with def pre-selected (-1: none, so
// Enter alone records nothing). It returns the chosen verdict, or the move
// the reviewer chose instead.
func (s *session) askVerdict(v caseView, def int) (string, *move, error) {
	opts := s.verdictQuestion(v)
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = o.label
	}
	q := s.Catalog.Q("verdict")
	help := q.Help + " Keys: " + s.keyLine(labels)
	if def < 0 { // the cursor starts on an option that records nothing
		def = len(opts)
		opts = append(opts, option{noVerdict, func() (string, *move, bool, error) {
			s.say("No verdict recorded: this case needs your judgment. Type its number (1–%d) or pick Skip.\n", len(s.Catalog.Verdicts))
			return "", nil, true, nil
		}})
		labels = append(labels, noVerdict)
	}
	for {
		i, err := s.ask.Select(q.Message, labels, def, help)
		if err != nil {
			return "", nil, err
		}
		verdict, mv, again, err := opts[i].do()
		if err != nil || !again {
			return verdict, mv, err
		}
	}
}

// verdictQuestion is the options of the verdict question, without the
// last "no verdict" one.
func (s *session) verdictQuestion(v caseView) []option {
	var opts []option
	for _, vd := range s.Catalog.Verdicts {
		opts = append(opts, option{vd.Label + " — " + vd.Meaning, func() (string, *move, bool, error) { return vd.ID, nil, false, nil }})
	}
	for _, a := range s.Catalog.Actions {
		var do func() (string, *move, bool, error)
		switch a.ID {
		case "skip":
			do = func() (string, *move, bool, error) {
				if e := s.workIx.Entry(int(v.it.Case.Index)); e == nil || unfinished(e) { // skipping a judged case keeps its answer
					s.skipped[int(v.it.Case.Index)] = true
					s.res.Skipped = len(s.skipped)
				}
				mv := s.next(v.pos)
				return "", &mv, false, nil
			}
		case "quit":
			do = func() (string, *move, bool, error) {
				s.res.Quit = true
				mv := move{to: stop}
				if err := s.saveDraft(); err != nil { // also keeps reviewer and scope when nothing was answered yet
					return "", &mv, false, err
				}
				s.say("Saved %d answer(s) in %s\nresume with: agentv review %s\n", s.answered(), s.Paths.Draft, s.Run.Dir)
				return "", &mv, false, nil
			}
		case "back":
			do = func() (string, *move, bool, error) {
				if v.pos == 0 {
					s.say("This is the first case of the review.\n")
					return "", nil, true, nil
				}
				return "", &move{to: v.pos - 1, show: true}, false, nil
			}
		case "goto":
			do = func() (string, *move, bool, error) { return s.jump(v.pos) }
		case "open":
			if s.Pager == nil {
				continue
			}
			do = func() (string, *move, bool, error) { return "", nil, true, s.open(v) }
		case "keys":
			do = func() (string, *move, bool, error) { s.keys(); return "", nil, true, nil }
		default:
			continue
		}
		opts = append(opts, option{a.Label + " — " + a.Meaning, do})
	}
	return opts
}

// keyLine is the verdict question's options by number, in one line: the
// survey help shown when the reviewer types ?.
func (s *session) keyLine(labels []string) string {
	n := len(s.Catalog.Verdicts)
	parts := []string{fmt.Sprintf("1–%d a verdict", n)}
	for i, l := range labels[n:] {
		word, _, _ := strings.Cut(l, " — ")
		parts = append(parts, fmt.Sprintf("%d %s", n+i+1, strings.ToLower(word)))
	}
	return strings.Join(parts, " · ") + " · ↑↓ move, type to filter, Enter chooses."
}

// keys prints what every option and key of the verdict question does.
func (s *session) keys() {
	s.say("\nKeys at the verdict question:\n" +
		"  1–4, Enter     the verdict with that number (the number filters the list to it)\n" +
		"  ↑ ↓, Enter     move to an option and choose it; typing a word keeps the options containing it\n" +
		"  Enter alone    a clean case: the pre-selected verdict; a suspicious one: nothing (choose a verdict)\n" +
		"  ?              the question's help, with every option's number\n" +
		"  Ctrl-C         stop at once: every answer, this case's too once its verdict is chosen, stays in the draft\n" +
		"Options after the verdicts:\n")
	for _, a := range s.Catalog.Actions {
		if a.ID == "open" && s.Pager == nil {
			continue
		}
		s.say("  %-27s %s\n", a.Label, a.Meaning)
	}
	s.say("At a notes question, :e opens your editor.\n\n")
}

// jump asks which case to go to and moves there.
func (s *session) jump(pos int) (string, *move, bool, error) {
	q := s.Catalog.Q("goto")
	ref, err := s.ask.Input(q.Message, "", q.Help)
	if err != nil {
		return "", nil, false, err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", nil, true, nil
	}
	if _, err := strconv.Atoi(ref); err == nil {
		ref = "#" + ref
	}
	c, err := s.Run.Find(ref)
	if err != nil {
		s.say("%s\n", termtext.SanitizeLine(err.Error()))
		return "", nil, true, nil
	}
	to := slices.IndexFunc(s.items, func(it triage.Item) bool { return it.Case == c })
	if to < 0 { // outside the scope: reviewed next
		it := triage.Classify(c)
		if s.History != nil {
			it = triage.WithHistory([]triage.Item{it}, s.History)[0]
		}
		to = pos + 1
		s.items = slices.Insert(s.items, to, it)
	}
	return "", &move{to: to, show: true}, false, nil
}

// open asks which part of the case to show whole and pages it.
func (s *session) open(v caseView) error {
	whole, err := evidence.Collect(s.Run, v.d, v.it, evidence.CollectOptions{Whole: true})
	if err != nil {
		return err
	}
	if whole.Answer.Text, err = evidence.ReadWhole(whole.Answer.Text); err != nil {
		s.say("cannot read the whole answer: %v\n", err)
	}
	if whole.Input.Text, err = evidence.ReadWhole(whole.Input.Text); err != nil {
		s.say("cannot read the whole input: %v\n", err)
	}
	sections := whole.Sections()
	labels := make([]string, len(sections))
	for i, sec := range sections {
		labels[i] = sectionLabels[sec]
	}
	if v.previous != nil {
		labels = append(labels, "the previous run's answer diff — line by line, against this answer")
	}
	labels = append(labels, "nothing — back to the verdict")
	q := s.Catalog.Q("open")
	i, err := s.ask.Select(q.Message, labels, 0, q.Help)
	if err != nil || i == len(labels)-1 {
		return err
	}
	var b bytes.Buffer
	opt := evidence.Options{Width: s.Width, Blind: s.Blind && s.workIx.Entry(int(v.it.Case.Index)) == nil}
	if i < len(sections) {
		whole.RenderSection(&b, sections[i], opt)
	} else {
		opt.Whole = true
		evidence.RenderPrevious(&b, v.previous, opt, "")
	}
	if err := s.Pager(b.String()); err != nil {
		s.say("cannot open the pager: %v\n", err)
	}
	return nil
}

var sectionLabels = map[evidence.Section]string{
	evidence.SectionAnswer:     "answer — the whole output",
	evidence.SectionInput:      "input — the whole input",
	evidence.SectionTranscript: "transcript — every turn and tool call",
	evidence.SectionDiff:       "diff — the whole workspace diff",
	evidence.SectionTest:       "test — criteria, expected output and every assertion",
}

// previous is the same case in the previous run, with its answer diffed
// against this one; nil when there is no previous run or it lacks the case.
func (s *session) previous(c *run.Case, d *run.Detail) (*evidence.Previous, error) {
	if s.Previous == nil {
		return nil, nil
	}
	pc, err := s.Previous(c)
	if err != nil || pc == nil {
		return nil, err
	}
	was, err := evidence.ReadWhole(pc.Detail.Answer)
	if err != nil {
		return nil, err
	}
	now, err := evidence.ReadWhole(d.Answer)
	if err != nil {
		return nil, err
	}
	prev := &evidence.Previous{RunID: pc.RunID, Outcome: pc.Detail.Case.Outcome, Score: pc.Detail.Case.Score,
		Changes: evidence.LineDiff(was.Content, now.Content)}
	if p, ok := s.prior(c); ok && p.RunID == pc.RunID {
		prev.Verdict = p.Case.Verdict
	}
	return prev, nil
}
