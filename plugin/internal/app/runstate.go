package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
)

// runState is a run with its review state: the feedback file and draft
// beside it, both optional.
type runState struct {
	run      *run.Run
	paths    feedback.Paths
	feedback *feedback.File  // nil when the run has no feedback yet
	index    *feedback.Index // finds feedback entries by case; nil without a feedback file
	// view, for status and list (run.Options.Outline), replaces feedback's
	// entries and index: feedback then holds the top-level fields only.
	view  *feedback.View
	draft *feedback.File // nil when there is no draft
	// legacy holds the notes of a feedback.json in an older shape (AgentV
	// dashboard, skill-creator); such a file is archived, never overwritten.
	legacy []feedback.LegacyNote
}

var outFlag = &cli.StringFlag{Name: "out", Usage: "feedback `FILE` to use instead of <run>/feedback.json (e.g. for a read-only run directory)", TakesFile: true}

// openState opens the run named by target and loads its feedback and draft.
// Run warnings go to stderr.
func openState(s *Streams, target, out string) (*runState, error) {
	return openStateWith(s, target, out, run.Options{}, nil)
}

// openStateWith is openState with run options (status and list open with
// run.Options.Outline, as they rank cases but show no grader details) and
// which cases to keep: keep, when set, is asked once the run is found,
// and its answer is given to run.Read (nil: every case).
func openStateWith(s *Streams, target, out string, opts run.Options, keep func(*runState) func(testID string) bool) (*runState, error) {
	st, err := locateRun(target, out, opts)
	if err != nil {
		return nil, err
	}
	var kept func(string) bool
	if keep != nil {
		kept = keep(st)
	}
	// status and list read a feedback file that is there as a View,
	// bound to the cases with the index the read keeps.
	_, lerr := os.Lstat(st.paths.Feedback)
	asView := opts.Outline && !errors.Is(lerr, fs.ErrNotExist)
	if asView {
		st.run.KeepIndex()
	}
	if err := st.read(s, kept); err != nil {
		return nil, err
	}
	if asView {
		return st, st.loadView(s)
	}
	return st, st.loadReview(s)
}

// loadView is loadReview for status and list when the feedback file is
// there: it is read as a feedback.View, its entries bound to the cases as
// they are decoded. A legacy-shaped file is read by loadReview.
func (st *runState) loadView(s *Streams) error {
	v, err := feedback.LoadView(st.paths.Feedback, st.run.ID, st.run.CaseIDs())
	if _, legacy := errors.AsType[*feedback.LegacyError](err); legacy {
		return st.loadReview(s)
	}
	if err != nil {
		return err
	}
	st.view, st.feedback = v, v.File // the view binds the entries: no index
	return st.loaded(s)
}

// openRun opens the run and works out its feedback paths, without reading
// the feedback: the guided review reads it once it holds the lock
// (loadReview). set and apply read it first too, to fail before reading
// answers, and again under the lock.
func openRun(s *Streams, target, out string, opts run.Options) (*runState, error) {
	st, err := locateRun(target, out, opts)
	if err != nil {
		return nil, err
	}
	return st, st.read(s, nil)
}

// locateRun finds the run and its feedback paths, reading neither its
// manifest (run.Read) nor its feedback (readFeedback).
func locateRun(target, out string, opts run.Options) (*runState, error) {
	r, err := run.Locate(target, opts)
	if err != nil {
		return nil, err
	}
	where := r.Dir
	if r.Layout == run.LayoutFlat {
		where = r.Manifest // each flat results file has its own feedback file
	}
	return &runState{run: r, paths: feedback.PathsFor(where, out)}, nil
}

// read reads the run's manifest keeping the cases keep accepts (nil: all;
// see run.Read) and prints the run's warnings on stderr.
func (st *runState) read(s *Streams, keep func(testID string) bool) error {
	if err := st.run.Read(keep); err != nil {
		return err
	}
	st.printRunWarnings(s)
	return nil
}

// printRunWarnings prints the run's warnings on stderr.
func (st *runState) printRunWarnings(s *Streams) {
	for _, w := range st.run.Warnings {
		loc := w.File
		if w.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, w.Line)
		}
		fmt.Fprintf(s.Err, "%s: warning: %s: %s\n", prog, termtext.SanitizeLine(loc), termtext.SanitizeLine(w.Msg))
	}
}

// loadReview reads the feedback file and the draft, and notes on stderr a
// feedback file in an older shape.
func (st *runState) loadReview(s *Streams) (err error) {
	if err := st.readFeedback(); err != nil {
		return err
	}
	return st.bindFeedback(s)
}

// readFeedback reads the feedback file, if any (loadReview's first half).
func (st *runState) readFeedback() (err error) {
	st.feedback, st.legacy, err = loadIfExists(st.paths.Feedback)
	return err
}

// reviewedIDs are the test ids the feedback file judges for this run:
// none for another run's file.
func (st *runState) reviewedIDs() map[string]bool {
	ids := map[string]bool{}
	if f := st.own(); f != nil {
		for _, e := range f.PerCase {
			ids[e.TestID] = true
		}
	}
	return ids
}

// bindFeedback binds the feedback read by readFeedback to the run's cases
// and reads the draft (loadReview's second half).
func (st *runState) bindFeedback(s *Streams) error {
	switch f := st.feedback; {
	case f == nil:
		// No file: no case has an entry (judgment), and the run's test ids
		// need no index (16 bytes a case, for list of a million cases).
	case f.RunID != st.run.ID:
		// Another run's file: its verdicts are not this run's (status and
		// the gate say so); a write replaces it, keeping it in the history.
		st.index = feedback.Bind(nil, st.run.CaseIDs())
	default:
		st.index = feedback.Bind(f, st.run.CaseIDs())
	}
	if st.legacy != nil {
		fmt.Fprintf(s.Err, "%s: note: %s holds %d note(s) in an older feedback shape; they are shown as earlier notes and the file is kept in %s when new feedback is written\n",
			prog, termtext.SanitizeLine(st.paths.Feedback), len(st.legacy), termtext.SanitizeLine(st.paths.HistoryDir))
	}
	return st.loaded(s)
}

// loaded ends loadReview and loadView: it warns about the feedback file
// and reads the draft.
func (st *runState) loaded(s *Streams) (err error) {
	for _, w := range st.feedbackWarnings() {
		fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, termtext.SanitizeLine(w))
	}
	st.draft, err = feedback.LoadDraft(st.paths)
	return err
}

// judgment returns the recorded feedback entry for c, nil when unreviewed.
func (st *runState) judgment(c *run.Case) *feedback.Case {
	switch {
	case st.view != nil:
		return st.view.Entry(int(c.Index))
	case st.index != nil:
		return st.index.Entry(int(c.Index))
	}
	return nil // no feedback file
}

// Review states of a case, as status, list and show report them.
const (
	stateUnreviewed = "unreviewed" // no entry
	stateReviewed   = "reviewed"   // a human verdict of what the case shows now
	stateProposed   = "proposed"   // only an agent's proposal: no human has confirmed it
	stateStale      = "stale"      // the entry judged another output, grader result or test
)

// state is c's review state and its entry. Without verify it compares the
// entry's recorded machine verdict only (no sidecar is read, for status
// and list of large runs); with verify it also compares the fingerprint
// of the answer and the test.
func (st *runState) state(c *run.Case, verify bool) (string, *feedback.Case, error) {
	return st.stateOf(c, st.judgment(c), verify)
}

// quickState is state without verify for a loop over every case, the
// entry made in scratch (valid until its next use): it is not allocated
// per case, and loops on several goroutines each have their own.
func (st *runState) quickState(c *run.Case, scratch *feedback.Scratch) (string, *feedback.Case) {
	var j *feedback.Case
	if st.view != nil {
		j = st.view.EntryIn(int(c.Index), scratch)
	} else {
		j = st.judgment(c)
	}
	state, j, _ := st.stateOf(c, j, false) // reads no file: cannot fail
	return state, j
}

// stateOf is state with c's entry j.
func (st *runState) stateOf(c *run.Case, j *feedback.Case, verify bool) (string, *feedback.Case, error) {
	if j == nil {
		return stateUnreviewed, nil, nil
	}
	if fresh := record.Quick(c, j); !verify || fresh == record.Stale {
		return stateNamed(fresh, j), j, nil
	}
	d, err := st.run.Detail(c)
	if err != nil {
		return "", j, err
	}
	seen, err := record.See(st.run, d)
	if err != nil {
		return "", j, clierr.Failure(err, err.Error(), "")
	}
	return st.verified(d, seen)
}

// verified is c's state with its fingerprint checked against what d, the
// case's Detail, shows (seen).
func (st *runState) verified(d *run.Detail, seen record.Seen) (string, *feedback.Case, error) {
	j := st.judgment(d.Case)
	if j == nil {
		return stateUnreviewed, nil, nil
	}
	fresh, err := record.Verify(st.run, d, seen, j)
	if err != nil {
		return "", j, clierr.Failure(err, err.Error(), "")
	}
	return stateNamed(fresh, j), j, nil
}

// stateNamed names an entry's state from its freshness.
func stateNamed(fresh record.Freshness, j *feedback.Case) string {
	switch {
	case fresh == record.Stale:
		return stateStale
	case j.ReviewerKind == feedback.Agent:
		return stateProposed
	}
	return stateReviewed
}

// feedbackWarnings are what is wrong with the feedback file as this run's
// review: another run's file, entries that match no case or several.
func (st *runState) feedbackWarnings() []string {
	f := st.feedback
	if f == nil {
		return nil
	}
	var ws []string
	if f.RunID != st.run.ID {
		ws = append(ws, fmt.Sprintf("%s reviews run %q, not %q: it was copied from another run, so its verdicts are not taken as this run's", st.paths.Feedback, f.RunID, st.run.ID))
	}
	unmatched, ambiguous := st.strays()
	if n := unmatched.Count; n > 0 {
		ws = append(ws, fmt.Sprintf("%d feedback entr(ies) name no case of this run (first: %s)", n, caseid.Full(unmatched.First)))
	}
	if n := ambiguous.Count; n > 0 {
		ws = append(ws, fmt.Sprintf("%d feedback entr(ies) could be several cases and count for none (first: %s); judge those cases again to name them exactly", n, caseid.Full(ambiguous.First)))
	}
	return ws
}

// strays are the feedback entries that name no case of the run, and those
// that could be several.
func (st *runState) strays() (unmatched, ambiguous feedback.Strays) {
	if st.view != nil {
		return st.view.Unmatched, st.view.Ambiguous
	}
	of := func(pos []int) feedback.Strays {
		if len(pos) == 0 {
			return feedback.Strays{}
		}
		return feedback.Strays{Count: len(pos), First: st.feedback.PerCase[pos[0]].ID()}
	}
	return of(st.index.Unmatched), of(st.index.Ambiguous)
}

// own is the feedback file when it reviews this run, else nil.
func (st *runState) own() *feedback.File {
	if st.feedback != nil && st.feedback.RunID != st.run.ID {
		return nil
	}
	return st.feedback
}

// caseRef is how a case is named in output: its position (#N, the same
// in every listing and accepted by show and set), its shortest reference
// and its identity.
type caseRef struct {
	Pos     int    `json:"pos"`
	Ref     string `json:"ref"`
	TestID  string `json:"test_id"`
	Target  string `json:"target,omitempty"`
	Variant string `json:"variant,omitempty"`
	Suite   string `json:"suite,omitempty"`
}

func (st *runState) refOf(c *run.Case) caseRef {
	return caseRef{Pos: int(c.Index) + 1, Ref: st.run.RefAt(int(c.Index)), TestID: c.TestID, Target: c.Target, Variant: c.Variant, Suite: c.Suite}
}

func argOr(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

// loadIfExists loads a feedback file: nil, nil when there is none; the
// notes of a legacy-shaped file instead of a *feedback.File.
func loadIfExists(path string) (*feedback.File, []feedback.LegacyNote, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	f, err := feedback.Load(path)
	var legacy *feedback.LegacyError
	if errors.As(err, &legacy) {
		notes, _, err := feedback.LoadLegacy(path)
		if notes == nil {
			notes = []feedback.LegacyNote{}
		}
		return nil, notes, err
	}
	return f, nil, err
}
