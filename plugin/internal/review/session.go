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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
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
	// RunsPattern gives a case's outcomes across earlier runs and this one,
	// oldest first ("P P F"); nil when there are no earlier runs.
	RunsPattern func(c *run.Case) string

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
	Blind   bool
	Now     func() time.Time
	Catalog *prompts.Catalog
	Tool    feedback.Tool
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
	res      Result
}

// Run performs a guided review. It returns clierr.ErrInterrupted (wrapped)
// when the reviewer pressed Ctrl-C; the draft then holds every answer.
func Run(cfg Config, ask Asker) (Result, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &session{Config: cfg, ask: ask, existing: feedback.Bind(cfg.Existing, cfg.Run.CaseIDs())}
	err := s.run()
	if errors.Is(err, clierr.ErrInterrupted) {
		s.say("\ninterrupted: %d answer(s) kept in %s\nresume with: agentv review %s\n",
			len(s.workCases()), s.Paths.Draft, s.Run.Dir)
	}
	return s.res, err
}

func (s *session) run() error {
	if err := s.start(); err != nil {
		return err
	}
	s.opening()
	if !s.ReviewerFixed {
		name, err := s.ask.Input(s.Catalog.Q("reviewer").Message, s.work.Reviewer, s.Catalog.Q("reviewer").Help)
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
	for i, it := range s.items {
		if s.workIx.Entry(int(it.Case.Index)) != nil {
			continue // answered before a resume
		}
		done, err := s.reviewCase(it, i)
		if err != nil || done {
			return err
		}
	}
	return s.finish()
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
			s.workIx = feedback.Bind(s.work, s.Run.CaseIDs())
			s.res.Answered = s.workIx.Reviewed()
			return nil
		}
		if err := feedback.DiscardDraft(s.Paths); err != nil {
			return err
		}
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
	if s.Scope == "" {
		opts := make([]string, len(s.Catalog.Scopes))
		for i, sc := range s.Catalog.Scopes {
			label := sc.Label + " — " + sc.Meaning
			if sc.ID != triage.ScopeFilter {
				sel, _ := triage.Select(ranked, sc.ID, triage.Filter{})
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
	items, err := triage.Select(ranked, s.Scope, s.Filter)
	if err != nil {
		return err
	}
	s.items = items
	s.work.Scope = &feedback.Scope{Mode: s.Scope, Filter: s.Filter.Expr}
	s.say("%d case(s) to review.\n", len(items))
	return nil
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
	c.Entries = s.workIx.Bound()
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

func (s *session) workCases() []feedback.Case {
	if s.work == nil {
		return nil
	}
	return s.work.PerCase
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

// notes asks for a free-text answer; ":e" opens the editor.
func (s *session) notes(q prompts.Question, def string) (string, error) {
	text, err := s.ask.Input(q.Message, def, q.Help)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == ":e" {
		text, err = s.ask.Editor(q.Message, def, q.Help)
		if err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(text), nil
}

// indexOf returns the index of id among choices, -1 when absent.
func indexOf(choices []prompts.Choice, id string) int {
	return slices.IndexFunc(choices, func(c prompts.Choice) bool { return c.ID == id })
}
