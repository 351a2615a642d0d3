// Package review is the guided review: a state machine that walks a
// reviewer through a run's cases, most suspicious first, and builds
// feedback.json. It talks to the person only through the Asker interface
// and an io.Writer, so every path is testable without a terminal.
//
// Work is never lost: each answered case is written to the draft at once
// (atomically); a later session resumes from it; an existing feedback.json
// is amended with its answers pre-filled and is archived, never overwritten
// in place.
package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

// Asker asks the reviewer questions. It speaks in values; the survey
// adapter (package prompt) implements it, and tests script it.
type Asker interface {
	Select(msg string, options []string, def int, help string) (int, error)
	MultiSelect(msg string, options []string, defaults []int, help string) ([]int, error)
	Input(msg, def, help string) (string, error)
	Confirm(msg string, def bool, help string) (bool, error)
	Editor(msg, def, help string) (string, error)
}

// Config is everything a session needs.
type Config struct {
	Run      *run.Run
	Paths    feedback.Paths
	Existing *feedback.File        // the current feedback.json, nil when none
	Legacy   []feedback.LegacyNote // notes of an older-shaped feedback.json
	Draft    *feedback.File        // the draft of an unfinished session, nil when none
	Prior    map[int]PriorVerdict  // earlier runs' judgments by case index (carry-forward); may be nil

	Reviewer      string // proposed reviewer name
	ReviewerFixed bool   // given by flag or environment: not asked
	Scope         string // "" asks the reviewer
	Filter        triage.Filter

	Out    io.Writer               // the evidence screens
	Width  int                     // display cells
	Height int                     // lines; sizes the answer excerpt
	Pager  func(text string) error // shows sanitised text whole; nil when unavailable
	Color  bool                    // the terminal may show colour (diffs)
	// Blind is a blind-first review: the machine's verdict stays hidden
	// until the reviewer commits one; both are recorded (blind_verdict).
	Blind bool
	// Previous opens the same case in the previous run (the newest earlier
	// run), nil with no error when that run lacks it; nil when there is no
	// earlier run. The case screen shows its outcome, its verdict (from
	// Prior, when Prior's judgment is of that run) and its answer diffed
	// against this one.
	Previous func(c *run.Case) (*PreviousCase, error)
	// History gives a case's outcomes in the earlier runs, oldest first
	// (triage.WithHistory): a case that regressed, errored before or flips
	// across runs ranks as suspicious. nil when there are no earlier runs.
	History func(c *run.Case) []run.Outcome
	// The spot check (scope spot) samples SpotSample passed cases (0:
	// DefaultSpotSample) with SpotSeed (nil: a random seed; both are
	// recorded in the scope), and says when the false-pass interval is no
	// wider than SpotWidth (0: DefaultSpotWidth).
	SpotSample int
	SpotSeed   *uint64
	SpotWidth  float64

	Now     func() time.Time
	Catalog *prompts.Catalog
	Tool    feedback.Tool
}

// PreviousCase is a case of the previous run.
type PreviousCase struct {
	RunID  string
	Detail *run.Detail
}

// Result says how a session ended.
type Result struct {
	Written  string // path of the feedback file written, "" when none
	Archived string // where the previous version went, "" when none
	Answered int    // cases judged in this session (including resumed ones)
	Skipped  int
	Quit     bool // saved to the draft and stopped early
}

// session is one run of the state machine.
type session struct {
	Config
	ask      Asker
	existing *feedback.Index // the entries of Existing, by case
	work     *feedback.File  // answers of this session: what the draft holds
	workIx   *feedback.Index // the entries of work, by case
	items    []triage.Item
	skipped  map[int]bool // cases skipped, by index (a case skipped twice counts once)
	spot     *spotCheck   // scope spot, nil otherwise
	res      Result
}

// Run performs a guided review. It returns clierr.ErrInterrupted (wrapped)
// when the reviewer pressed Ctrl-C; the draft then holds every answer.
func Run(cfg Config, ask Asker) (Result, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &session{Config: cfg, ask: ask, existing: feedback.Bind(cfg.Existing, cfg.Run.CaseIDs()), skipped: map[int]bool{}}
	err := s.run()
	if errors.Is(err, clierr.ErrInterrupted) {
		s.say("\ninterrupted: %d answer(s) kept in %s\nresume with: agentv review %s\n",
			s.kept(), s.Paths.Draft, s.Run.Dir)
	}
	return s.res, err
}

func (s *session) run() error {
	if err := s.start(); err != nil {
		return err
	}
	s.opening()
	if !s.ReviewerFixed {
		name, err := s.input(s.Catalog.Q("reviewer").Message, s.work.Reviewer, s.Catalog.Q("reviewer").Help)
		if err != nil {
			return err
		}
		if name = strings.TrimSpace(name); name != "" {
			s.work.Reviewer = name
		}
	}
	if err := s.chooseScope(); err != nil {
		return err
	}
	for mv := (move{}); mv.to != stop; {
		if mv.to == finishNow {
			return s.finish()
		}
		if mv.to >= len(s.items) {
			mv = s.leftBehind()
			continue
		}
		if e := s.workIx.Entry(int(s.items[mv.to].Case.Index)); e != nil && !unfinished(e) && !mv.show {
			mv = s.next(mv.to) // answered already (before a resume, or before moving back)
			continue
		}
		var err error
		if mv, err = s.reviewCase(mv.to); err != nil {
			return err
		}
	}
	return nil
}

// leftBehind is the move at the end of the walk: to the first case a jump
// passed over (neither judged nor skipped), else to finishing.
func (s *session) leftBehind() move {
	for i, it := range s.items {
		idx := int(it.Case.Index)
		if e := s.workIx.Entry(idx); (e == nil || unfinished(e)) && !s.skipped[idx] {
			s.say("\nCase %d of %d is not judged yet (a jump passed over it): back to it.\n", i+1, len(s.items))
			return move{to: i, show: true}
		}
	}
	return move{to: finishNow}
}

// start picks the working file: the draft (when the reviewer resumes it)
// or a fresh one.
func (s *session) start() error {
	if s.Draft != nil {
		q := s.Catalog.Q("resume")
		resume, err := s.ask.Confirm(fmt.Sprintf("%s (%d answered)", q.Message, len(s.Draft.PerCase)), true, q.Help)
		if err != nil {
			return err
		}
		if resume {
			s.work = s.Draft
			if s.work.Scope != nil && s.Scope == "" {
				s.Scope = s.work.Scope.Mode
				if s.Scope == triage.ScopeFilter {
					f, err := triage.ParseFilter(s.work.Scope.Filter)
					if err != nil {
						return err
					}
					s.Filter = f
				}
			}
			if s.work.Scope != nil && s.work.Scope.Mode == ScopeSpot {
				s.SpotSeed, s.SpotSample = s.work.Scope.Seed, s.work.Scope.Sample
			}
			s.workIx = feedback.Bind(s.work, s.Run.CaseIDs())
			s.res.Answered = s.answered()
			return nil
		}
		kept, err := setDraftAside(s.Paths)
		if err != nil {
			return err
		}
		s.say("The earlier draft is kept as %s\n", kept)
	}
	s.work = &feedback.File{
		RunID: s.Run.ID, Reviewer: s.Reviewer, SchemaVersion: feedback.SchemaVersion,
		Tool: &s.Tool, ReviewerKind: feedback.Human,
	}
	if s.Existing != nil {
		s.work.OverallNotes = s.Existing.OverallNotes
	}
	s.workIx = feedback.Bind(s.work, s.Run.CaseIDs())
	return nil
}

// say writes a message; everything in it is sanitised, paths included (a
// run copied from elsewhere can have any folder name).
func (s *session) say(format string, args ...any) {
	fmt.Fprint(s.Out, termtext.Sanitize(fmt.Sprintf(format, args...)))
}

func (s *session) opening() {
	r := s.Run
	passed, failed, errored := r.Counts()
	s.say("agentv review · run %s\n", termtext.SanitizeLine(r.ID))
	s.say("%d cases: %d passed · %d failed · %d errored", len(r.Cases), passed, failed, errored)
	if s.Existing != nil {
		s.say(" · %d already reviewed (amending %s; the current file is kept in %s)",
			len(s.Existing.PerCase), filepath.Base(s.Paths.Feedback), filepath.Base(s.Paths.HistoryDir))
	}
	if len(s.Legacy) > 0 {
		s.say(" · %d earlier note(s) from an older feedback file", len(s.Legacy))
	}
	s.say("\n\nScores can be wrong. For each case, look for:\n")
	for _, sig := range s.Catalog.Signals {
		s.say("  • %-26s %s\n", sig.Label, sig.Meaning)
	}
	s.say("\n")
}

// chooseScope settles which cases to review, asking unless given.
func (s *session) chooseScope() error {
	ranked := triage.Rank(s.Run.Cases)
	if s.History != nil {
		ranked = triage.WithHistory(ranked, s.History)
	}
	look := s.toLookAt(ranked)
	s.drawSeed()
	if s.Scope == "" {
		opts := make([]string, len(s.Catalog.Scopes))
		for i, sc := range s.Catalog.Scopes {
			label := sc.Label + " — " + sc.Meaning
			if sc.ID != triage.ScopeFilter {
				sel, _ := s.selectScope(ranked, look, sc.ID)
				label = fmt.Sprintf("%s (%d cases)", label, len(sel))
			}
			opts[i] = label
		}
		q := s.Catalog.Q("scope")
		i, err := s.ask.Select(q.Message, opts, 0, q.Help)
		if err != nil {
			return err
		}
		s.Scope = s.Catalog.Scopes[i].ID
	}
	for s.Scope == triage.ScopeFilter && s.Filter.Expr == "" {
		q := s.Catalog.Q("filter")
		expr, err := s.ask.Input(q.Message, "", q.Help)
		if err != nil {
			return err
		}
		f, err := triage.ParseFilter(expr)
		if err != nil {
			s.say("%s\n", termtext.SanitizeLine(err.Error()))
			continue
		}
		s.Filter = f
	}
	items, err := s.selectScope(ranked, look, s.Scope)
	if err != nil {
		return err
	}
	s.items = items
	s.work.Scope = &feedback.Scope{Mode: s.Scope, Filter: s.Filter.Expr}
	if s.Scope == ScopeSpot {
		s.work.Scope.Seed, s.work.Scope.Sample = &s.spot.seed, s.spot.size
		s.say("Spot check: %d of %d passed cases drawn at random (seed %d); judge them in this order, and stop when the estimate is precise enough.\n",
			len(items), s.spot.population, s.spot.seed)
	}
	s.say("%d case(s) to review.\n", len(items))
	return nil
}

// selectScope keeps the ranked items in scope. The suspicious scope also
// holds every case whose recorded judgment needs a person: an agent's
// proposal not yet confirmed, or a verdict gone stale (look).
func (s *session) selectScope(ranked []triage.Item, look map[int]bool, scope string) ([]triage.Item, error) {
	switch scope {
	case triage.ScopeSuspicious, "":
		var out []triage.Item
		for _, it := range ranked {
			if it.Suspicious() || look[int(it.Case.Index)] {
				out = append(out, it)
			}
		}
		return out, nil
	case ScopeSpot:
		return s.spotSample(ranked), nil
	}
	return triage.Select(ranked, scope, s.Filter)
}

// toLookAt finds the clean cases whose recorded entry in this run's
// feedback needs a person: an agent's proposal (confirm it), or a verdict
// that no longer matches the case (record.Quick, then record.Verify).
func (s *session) toLookAt(ranked []triage.Item) map[int]bool {
	look := map[int]bool{}
	for _, it := range ranked {
		c := it.Case
		e := s.existing.Entry(int(c.Index))
		if e == nil || it.Suspicious() {
			continue
		}
		look[int(c.Index)] = e.ReviewerKind == feedback.Agent || record.Quick(c, e) == record.Stale || s.stale(c, e)
	}
	return look
}

// stale reads case c to verify e's fingerprint; a case that cannot be
// read counts as stale (a person should look at it).
func (s *session) stale(c *run.Case, e *feedback.Case) bool {
	if e.Fingerprint == "" {
		return false
	}
	d, err := s.Run.Detail(c)
	if err != nil {
		return true
	}
	seen, err := record.See(s.Run, d)
	if err != nil {
		return true
	}
	f, err := record.Verify(s.Run, d, seen, e)
	return err != nil || f == record.Stale
}

// finish asks the closing questions and writes feedback.json.
func (s *session) finish() error {
	q := s.Catalog.Q("overall_notes")
	notes, err := s.notes(q, s.work.OverallNotes)
	if err != nil {
		return err
	}
	s.work.OverallNotes = notes
	if err := s.saveDraft(); err != nil {
		return err
	}
	commit := s.commit()
	s.summary(commit.Merged())
	q = s.Catalog.Q("confirm_write")
	ok, err := s.ask.Confirm(q.Message, true, q.Help)
	if err != nil {
		return err
	}
	if !ok {
		s.res.Quit = true
		s.say("Not written. Your answers stay in %s; run agentv review %s to finish.\n", s.Paths.Draft, s.Run.Dir)
		return nil
	}
	if _, s.res.Archived, err = commit.Write(); err != nil {
		return err
	}
	s.res.Written = s.Paths.Feedback
	if err := os.Remove(s.Paths.Draft); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.say("note: could not remove the draft %s: %v\n", s.Paths.Draft, err)
	}
	s.say("\nWrote %s\n", s.Paths.Feedback)
	if s.res.Archived != "" {
		s.say("The previous version is kept as %s\n", s.res.Archived)
	}
	s.say("\nNext steps of the loop:\n" +
		"  1. tune the prompts, graders or tests the verdicts point at (agentv review docs human-review)\n" +
		"  2. re-run the evals:      agentv eval run <eval-file>\n" +
		"  3. compare the runs:      agentv compare <this-run> <new-run>\n" +
		"  4. review the new run:    agentv review <new-run>\n")
	return nil
}

// commit is the write of this session: its answers over the feedback being
// amended, with the session's reviewer, scope and overall notes.
func (s *session) commit() feedback.Commit {
	c := feedback.Commit{
		Paths: s.Paths, Cases: s.Run.CaseIDs(), RunID: s.Run.ID, Base: s.Existing,
		Skipped: s.res.Skipped, Tool: s.Tool, Now: s.Now(),
		Top: func(f *feedback.File) {
			f.Reviewer, f.ReviewerKind, f.Scope, f.OverallNotes = s.work.Reviewer, s.work.ReviewerKind, s.work.Scope, s.work.OverallNotes
			if s.work.Extra != nil && f.Extra == nil {
				f.Extra = s.work.Extra
			}
		},
	}
	for _, b := range s.workIx.Bound() {
		if !unfinished(&b.Entry) {
			c.Entries = append(c.Entries, b)
		}
	}
	return c
}

func (s *session) summary(f *feedback.File) {
	s.say("\nSummary: %d of %d cases judged", f.Summary.Reviewed, len(s.Run.Cases))
	var parts []string
	for _, v := range s.Catalog.Verdicts {
		if n := f.Summary.Verdicts[v.ID]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v.ID))
		}
	}
	if len(parts) > 0 {
		s.say(" (%s)", strings.Join(parts, ", "))
	}
	s.say(", %d skipped this session\n", s.res.Skipped)
}

// answered counts the cases judged in this session and its draft (an
// interrupted, unfinished case not included).
func (s *session) answered() int {
	n := 0
	for _, b := range s.workIx.Bound() {
		if !unfinished(&b.Entry) {
			n++
		}
	}
	return n
}

// kept counts the answers the draft holds, unfinished ones included.
func (s *session) kept() int {
	if s.work == nil {
		return 0
	}
	return len(s.work.PerCase)
}

func (s *session) saveDraft() error {
	s.work.Timestamp = feedback.FormatTime(s.Now())
	err := feedback.SaveDraft(s.Paths, s.work)
	if err == nil {
		return nil
	}
	// The draft cannot be written (run folder gone, disk full): keep the
	// answers in a rescue file in the temporary folder and say where.
	rescue := filepath.Join(os.TempDir(), fmt.Sprintf("agentv-review-rescue-%d.json", s.Now().UnixNano()))
	if feedback.Write(rescue, s.work) != nil {
		return err
	}
	return &clierr.Error{Code: clierr.Code(err), Msg: err.Error(), Err: err,
		Hint: fmt.Sprintf("your %d answer(s) are saved in %s; copy it to %s to resume", len(s.work.PerCase), rescue, s.Paths.Draft)}
}

// notes asks for a free-text answer; ":e" opens the editor. An earlier
// answer offered as the default is kept byte for byte unless edited.
func (s *session) notes(q prompts.Question, def string) (string, error) {
	text, err := s.input(q.Message, def, q.Help)
	if err != nil || text == def {
		return text, err
	}
	if strings.TrimSpace(text) == ":e" {
		shown := termtext.Sanitize(def)
		if text, err = s.ask.Editor(q.Message, shown, q.Help); err != nil {
			return "", err
		}
		if text == shown {
			return def, nil
		}
	}
	return strings.TrimSpace(text), nil
}

// input asks for one line with def as the default. The default is shown
// sanitised (an earlier note or name is untrusted text: escapes and line
// breaks made visible); accepting it unchanged returns def itself.
func (s *session) input(msg, def, help string) (string, error) {
	shown := termtext.SanitizeLine(def)
	text, err := s.ask.Input(msg, shown, help)
	if err != nil {
		return "", err
	}
	if text == shown {
		return def, nil
	}
	return text, nil
}

// setDraftAside keeps a declined draft as <draft>.bak, or .bak.2, .bak.3
// and so on when older backups exist: declining never replaces a backup.
// It returns the backup's path. The session holds the run's feedback
// lock, so no other writer races for the name.
func setDraftAside(p feedback.Paths) (string, error) {
	for n := 1; ; n++ {
		name := p.Draft + ".bak"
		if n > 1 {
			name += "." + strconv.Itoa(n)
		}
		if _, err := os.Lstat(name); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", &clierr.Error{Code: clierr.CodeFailure, File: name, Msg: "cannot check the draft backup: " + clierr.Cause(err), Err: err}
		}
		if err := os.Rename(p.Draft, name); err != nil {
			return "", &clierr.Error{Code: clierr.CodeFailure, File: p.Draft, Msg: "cannot set the draft aside: " + clierr.Cause(err), Err: err,
				Hint: "move it away by hand to start over, or answer yes to resume it"}
		}
		return name, nil
	}
}

// indexOf returns the index of id among choices, -1 when absent.
func indexOf(choices []prompts.Choice, id string) int {
	return slices.IndexFunc(choices, func(c prompts.Choice) bool { return c.ID == id })
}
