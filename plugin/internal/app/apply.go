package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/record"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/safefile"
	"agentv-review/prompts"
)

func applyCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "record many judgments from a JSON or JSONL file (scripts, agents)",
		ArgsUsage: "[run]",
		Description: "--from FILE (or - for stdin) holds a feedback file (run_id, reviewer, overall_notes, per_case), a JSON\n" +
			"array of answers, or JSON Lines, one answer per line: {test_id, suite?, target?, variant?, verdict, signals?,\n" +
			"notes?, evaluator_overrides?, workspace_notes?, test_defect?}. Every answer is checked first and every problem\n" +
			"reported; if any is invalid nothing is written. An answer marked reviewer_kind agent is recorded only with --agent.",
		Flags: append(scriptedFlags(),
			&cli.StringFlag{Name: "from", Usage: "answers `FILE`, or - for standard input", TakesFile: true}),
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			if err := requireFlag(c, "from"); err != nil {
				return err
			}
			return runApply(s, applyOptions{write: writeOptionsOf(c, args), From: c.String("from")})
		}, 0, 1, "[run]"),
	}
}

// scriptedFlags are the flags set and apply share.
func scriptedFlags() []cli.Flag {
	return []cli.Flag{
		jsonFlag,
		outFlag,
		&cli.StringFlag{Name: "reviewer", Usage: "reviewer `NAME` (default: $AGENTV_REVIEWER; with --agent \"agent\"; else git config user.name, login name)"},
		&cli.BoolFlag{Name: "agent", Usage: "record the judgments as an agent's proposals (reviewer_kind agent): they count as proposed, not reviewed, until a human confirms them"},
	}
}

// writeOptions are the options set and apply share.
type writeOptions struct {
	Target, Out string
	JSON        bool
	Reviewer    string // --reviewer
	Agent       bool   // --agent
}

func writeOptionsOf(c *cli.Context, args []string) writeOptions {
	return writeOptions{Target: argOr(args, 0), Out: c.String("out"), JSON: c.Bool("json"), Reviewer: c.String("reviewer"), Agent: c.Bool("agent")}
}

type applyOptions struct {
	write writeOptions
	From  string // a file, or - for s.In
}

// writeReport is the --json document of set and apply.
type writeReport struct {
	Path         string  `json:"path"`
	RunID        string  `json:"run_id"`
	Entries      int     `json:"entries"` // judgments written by this command
	Reviewer     string  `json:"reviewer"`
	ReviewerKind string  `json:"reviewer_kind"`
	Archived     *string `json:"archived"` // the previous version's path, null when there was none
}

// runApply checks every answer of o.From against the run and records them
// all, or nothing when any is invalid.
func runApply(s *Streams, o applyOptions) error {
	data, name, err := readInput(s, o.From)
	if err != nil {
		return err
	}
	// The answers are parsed while the run is opened.
	var in input
	var problems []*clierr.Error
	var parsing sync.WaitGroup
	parsing.Go(func() { in, problems = parseAnswers(name, data) })
	defer parsing.Wait() // an early return waits for it too
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, err := openState(s, o.write.Target, o.write.Out)
	if err != nil {
		return err
	}
	parsing.Wait()
	who := scriptedReviewer(s, o.write)
	if in.top != nil && in.top.RunID != "" && in.top.RunID != st.run.ID {
		problems = append(problems, clierr.Input(name, in.top.line, "run_id",
			fmt.Sprintf("the answers are for run %s, not %s", in.top.RunID, st.run.ID), "apply them to their own run, or remove run_id"))
	}
	// The answers are bound to their cases on every core, a chunk at a
	// time, each judgment made in its place in list (list[i] is answer
	// i's), and the chunks taken in answer order: a case judged twice is
	// reported at its later answers. An answer that names no case is a
	// problem (record.Finder.Find): list is whole when there is none, and
	// unused when there is one.
	list := make([]feedback.Bound, len(in.answers))
	latest := make([]int32, st.run.Len()) // by case position: 1 + the index of the case's latest answer, 0 for none
	check := record.NewChecker(cat)
	inOrder(len(in.answers), func(lo, hi int, b *binding) error {
		b.lo, b.found = lo, b.found[:0]
		if b.find == nil {
			b.find = record.NewFinder(st.run)
		}
		for i := lo; i < hi; i++ {
			cs, ps := b.find.Find(in.answers[i].Case)
			b.found = append(b.found, found{cs, append(ps, check.Check(cs, in.answers[i].Case)...)})
			if cs != nil {
				list[i] = judgedCase(cs, in.answers[i].Case)
			}
		}
		return nil
	}, func(b *binding) error {
		for k, f := range b.found {
			i, a, cs, ps := b.lo+k, &in.answers[b.lo+k], f.cs, f.problems
			if cs != nil && latest[cs.Index] != 0 {
				ps = append(ps, record.Problem{Field: "test_id", Msg: "the same case is judged " + in.answers[latest[cs.Index]-1].where(), Hint: "give one answer per case"})
			}
			if a.ReviewerKind == feedback.Agent && who.Kind != feedback.Agent {
				ps = append(ps, record.Problem{Field: "reviewer_kind", Msg: "this answer is an agent's proposal",
					Hint: "record it as a proposal with --agent; a human confirms it with the guided review or set"})
			}
			for _, p := range ps {
				problems = append(problems, clierr.Input(name, a.line, a.path(p.Field), p.Msg, p.Hint))
			}
			if cs != nil {
				latest[cs.Index] = int32(i + 1)
			}
		}
		return nil
	})
	in.answers = nil // the entries hold what is recorded of them
	if err := inputProblems(s, o.write.JSON, name, problems); err != nil {
		return err
	}
	var notes *string
	if in.top != nil && in.top.OverallNotes != nil {
		notes = in.top.OverallNotes
	}
	return recordJudgments(s, o.write, st, list, notes)
}

// binding is a chunk of answers bound to their cases: the case each names
// (nil when none) and its problems, from answer lo on.
type binding struct {
	lo    int
	found []found
	find  *record.Finder // a binding is bound by one worker at a time
}

type found struct {
	cs       *run.Case
	problems []record.Problem
}

// readInput reads --from: a file, or stdin for "-".
func readInput(s *Streams, from string) ([]byte, string, error) {
	if from != "-" {
		data, err := safefile.ReadRegular(from)
		if err != nil {
			return nil, "", clierr.Input(from, 0, "", "cannot read: "+clierr.Cause(err), "pass a JSON or JSONL file of answers, or - for standard input")
		}
		return data, from, nil
	}
	if s.In == nil {
		return nil, "", clierr.Usage("--from - needs standard input", "pass a file instead")
	}
	data, err := io.ReadAll(s.In)
	if err != nil {
		return nil, "", clierr.Failure(err, "cannot read standard input: "+err.Error(), "")
	}
	return data, "<stdin>", nil
}

// problemsReport is the --json document of a set or apply that found
// invalid answers: the error, and every problem with its place.
type problemsReport struct {
	Error    jsonErrorBody `json:"error"`
	Problems []jsonProblem `json:"problems"`
}

type jsonProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// inputProblems reports every problem of an input: nil when none; else
// each on stderr (and all in the --json document) and one error that says
// nothing was written.
func inputProblems(s *Streams, asJSON bool, name string, problems []*clierr.Error) error {
	if len(problems) == 0 {
		return nil
	}
	var err *clierr.Error
	if len(problems) == 1 {
		err = &clierr.Error{Code: problems[0].Code, File: problems[0].File, Line: problems[0].Line, Field: problems[0].Field,
			Msg: problems[0].Msg + "; nothing was written", Hint: problems[0].Hint}
	} else {
		for _, p := range problems {
			report(s.Err, p)
		}
		err = clierr.Input(name, 0, "", fmt.Sprintf("%d invalid answers; nothing was written", len(problems)), "fix them and apply the file again")
	}
	if asJSON {
		rep := problemsReport{Error: jsonErrorOf(err), Problems: make([]jsonProblem, len(problems))}
		for i, p := range problems {
			rep.Problems[i] = jsonProblem{File: p.File, Line: p.Line, Field: p.Field, Message: p.Msg, Hint: p.Hint}
		}
		writeJSON(s.Out, rep)
	}
	return err
}

// answer is one judgment read from an input, with where it was.
type answer struct {
	feedback.Case
	line   int    // 1-based line of the answer in the input
	prefix string // JSON path of the answer in the input ("per_case.2", "3"), "" for a JSONL line
}

func (a answer) path(field string) string {
	if a.prefix == "" {
		return field
	}
	return a.prefix + "." + field
}

func (a answer) where() string {
	if a.prefix != "" {
		return fmt.Sprintf("at %s (line %d)", a.prefix, a.line)
	}
	return fmt.Sprintf("on line %d", a.line)
}

// answerFields are the fields an answer may hold. The other fields of a
// feedback entry (automated, fingerprint, reviewed_at, reviewer, ...) are
// recorded with every judgment: an answer may carry them, as a feedback
// file does, but they are computed again, never taken from the input.
var (
	answerFields = "test_id, suite, target, variant, eval_path, verdict, signals, notes, evaluator_overrides, workspace_notes, test_defect"
	// topFields are the top-level fields of a feedback file apply takes:
	// run_id must be this run's, overall_notes is recorded, the others are
	// written anew by every write.
	topFields = []string{"run_id", "reviewer", "timestamp", "overall_notes", "per_case", "schema_version", "tool", "reviewer_kind", "scope", "run_path", "previous", "summary"}
)

const inputHint = "one answer object per line (JSONL), a JSON array of answers, or a feedback file with per_case"

// input is what --from holds: the answers, and the top-level fields of a
// feedback file (nil for an array or JSON Lines).
type input struct {
	top     *topLevel
	answers []answer
}

type topLevel struct {
	RunID        string  `json:"run_id"`
	OverallNotes *string `json:"overall_notes"`
	line         int
}

// parseAnswers reads JSON (a feedback-shaped object with per_case, an
// array of answers, or one answer) or JSON Lines, and returns every
// problem it finds, not only the first.
func parseAnswers(name string, data []byte) (input, []*clierr.Error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return input{}, []*clierr.Error{clierr.Input(name, 0, "", "no answers", inputHint)}
	}
	if !json.Valid(data) {
		return parseLines(name, data)
	}
	switch trimmed[0] {
	case '[':
		return parseArray(name, data, "")
	case '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return input{}, []*clierr.Error{clierr.Input(name, 1, "", err.Error(), inputHint)}
		}
		if _, ok := top["per_case"]; !ok {
			a := answer{line: lineAt(data, 0)}
			err := decodeAnswer(&a, name, trimmed)
			return input{answers: []answer{a}}, nonNil(err)
		}
		in, problems := parseArray(name, data, "per_case")
		in.top = &topLevel{line: lineAt(data, 0)}
		for _, k := range slices.Sorted(maps.Keys(top)) {
			if !slices.Contains(topFields, k) {
				problems = append(problems, clierr.Input(name, lineOfKey(data, k), k, "unknown top-level field: apply would drop it", "top-level fields: "+strings.Join(topFields, ", ")))
			}
		}
		if err := json.Unmarshal(data, in.top); err != nil {
			problems = append(problems, clierr.Input(name, in.top.line, "", "run_id and overall_notes must be strings", inputHint))
		}
		return in, problems
	}
	return input{}, []*clierr.Error{clierr.Input(name, 1, "", "expected an object or an array", inputHint)}
}

func nonNil(err *clierr.Error) []*clierr.Error {
	if err == nil {
		return nil
	}
	return []*clierr.Error{err}
}

// lineOfKey is the line of the first occurrence of a top-level key.
func lineOfKey(data []byte, key string) int {
	q, _ := json.Marshal(key)
	if i := bytes.Index(data, q); i >= 0 {
		return lineAt(data, int64(i))
	}
	return 0
}

// parseLines reads JSON Lines; blank lines are skipped. The lines are
// decoded on every core, in parts of whole lines, and kept in order.
func parseLines(name string, data []byte) (input, []*clierr.Error) {
	return parseLinesIn(name, data, runtime.GOMAXPROCS(0))
}

// parseLinesIn is parseLines in n parts, each decoded on its own
// goroutine: the same answers and problems, in the same order, for any n.
// Each part decodes its answers into its own stretch of one slice, room
// for an answer on every line, and the stretches are then closed up.
func parseLinesIn(name string, data []byte, n int) (input, []*clierr.Error) {
	type part struct {
		data     []byte
		at, room int // data starts on line at+1; its answers go to all[at : at+room], one a line at most
		decoded  int
		problems []*clierr.Error
	}
	parts := make([]part, n)
	start, lines := 0, 0
	for k := range parts {
		end := len(data)
		if k < n-1 {
			end = max(start, len(data)*(k+1)/n)
			if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(data)
			}
		}
		chunk := data[start:end]
		breaks := bytes.Count(chunk, []byte("\n"))
		parts[k] = part{data: chunk, at: lines} // every part but the last ends with a line break
		lines, start = lines+breaks, end
		if len(chunk) > 0 && chunk[len(chunk)-1] != '\n' {
			lines++ // a last line without a line break
		}
		parts[k].room = lines - parts[k].at
	}
	all := make([]answer, lines)
	var wg sync.WaitGroup
	for k := range parts {
		p := &parts[k]
		wg.Go(func() { p.decoded, p.problems = linesFrom(name, p.data, p.at+1, all[p.at:p.at+p.room]) })
	}
	wg.Wait()
	count := 0
	var problems []*clierr.Error
	for _, p := range parts {
		if count != p.at {
			copy(all[count:], all[p.at:p.at+p.decoded])
		}
		count += p.decoded
		problems = append(problems, p.problems...)
	}
	clear(all[count:]) // what was moved down
	return input{answers: all[:count]}, problems
}

// notObject is the problem of a JSON Lines line that is not a JSON object.
func notObject(name string, line int) *clierr.Error {
	return clierr.Input(name, line, "", "not a JSON object", inputHint)
}

// linesFrom decodes the JSON Lines of data, the first on line first, into
// answers, zero answers with room for one on each line; n is how many it
// decoded.
func linesFrom(name string, data []byte, first int, answers []answer) (n int, problems []*clierr.Error) {
	for i := 0; len(data) > 0; i++ {
		line := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line, data = data[:j], data[j+1:]
		} else {
			data = nil
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			problems = append(problems, notObject(name, first+i))
			continue
		}
		a := &answers[n]
		a.line = first + i
		if err := decodeAnswer(a, name, line); err != nil {
			problems = append(problems, err)
			continue // the next line's decode sets all of *a
		}
		n++
	}
	return n, problems
}

// parseArray reads the answers of a JSON array: the document itself, or
// the array under the top-level key field.
func parseArray(name string, data []byte, field string) (input, []*clierr.Error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if field != "" {
		dec.Token() // {
		for {
			key, _ := dec.Token() // the document is valid JSON: keys are strings
			if key == field {
				break
			}
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
	if tok, _ := dec.Token(); tok != json.Delim('[') {
		return input{}, []*clierr.Error{clierr.Input(name, lineAt(data, dec.InputOffset()), field, "expected an array of answers", inputHint)}
	}
	var in input
	var problems []*clierr.Error
	lines := lineCounter{data: data}
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		dec.Decode(&raw)
		prefix := fmt.Sprint(i)
		if field != "" {
			prefix = field + "." + prefix
		}
		a := answer{line: lines.at(start), prefix: prefix}
		if err := decodeAnswer(&a, name, raw); err != nil {
			problems = append(problems, err)
			continue
		}
		in.answers = append(in.answers, a)
	}
	return in, problems
}

// lineAt is the 1-based line of the first value at or after off (skipping
// blanks and a comma).
func lineAt(data []byte, off int64) int { return (&lineCounter{data: data}).at(off) }

// lineCounter is lineAt for increasing offsets: it counts the newlines
// since the previous offset only, so the lines of all answers cost one pass.
type lineCounter struct {
	data     []byte
	off      int64 // newlines before off are counted in lines
	newlines int
}

func (l *lineCounter) at(off int64) int {
	for off < int64(len(l.data)) && bytes.IndexByte([]byte(" \t\r\n,"), l.data[off]) >= 0 {
		off++
	}
	if off < l.off {
		l.off, l.newlines = 0, 0
	}
	l.newlines += bytes.Count(l.data[l.off:off], []byte("\n"))
	l.off = off
	return l.newlines + 1
}

// decodeAnswer decodes the answer raw into a, whose line and prefix say
// where it is in name. Raw is the bytes of one value, which may not be
// JSON: a Case's UnmarshalJSON checks them first, as json.Unmarshal would,
// and is what it would call.
func decodeAnswer(a *answer, name string, raw []byte) *clierr.Error {
	line, prefix := a.line, a.prefix
	if raw[0] != '{' {
		return clierr.Input(name, line, prefix, "an answer must be a JSON object", inputHint)
	}
	if err := a.Case.UnmarshalJSON(raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return clierr.Input(name, line, a.path(te.Field), "expected "+te.Type.String()+", found "+te.Value, "fields: "+answerFields)
		}
		if errors.As(err, new(*json.SyntaxError)) {
			return notObject(name, line)
		}
		return clierr.Input(name, line, prefix, err.Error(), inputHint)
	}
	if len(a.Extra) > 0 {
		k := slices.Sorted(maps.Keys(a.Extra))[0]
		return clierr.Input(name, line, a.path(k), "unknown field: apply would drop it", "fields: "+answerFields)
	}
	if a.BlindVerdict != "" {
		return clierr.Input(name, line, a.path("blind_verdict"), "only a blind-first guided review records blind_verdict", "remove it")
	}
	return nil
}

// judgedCase is a validated answer bound to its case: it keeps the
// answer's own fields; recording names the case exactly.
func judgedCase(c *run.Case, a feedback.Case) feedback.Bound {
	return feedback.Bound{Case: int(c.Index), Entry: record.Answer(a)}
}

// scriptedReviewer resolves who records the judgments: --reviewer,
// $AGENTV_REVIEWER, "agent" for --agent, else git's user.name or the login.
func scriptedReviewer(s *Streams, o writeOptions) record.Who {
	who := record.Who{Kind: feedback.Human}
	if o.Agent {
		who.Kind = feedback.Agent
	}
	for _, n := range []string{o.Reviewer, s.Getenv("AGENTV_REVIEWER")} {
		if n = strings.TrimSpace(n); n != "" {
			who.Reviewer = n
			return who
		}
	}
	if o.Agent {
		who.Reviewer = "agent"
		return who
	}
	who.Reviewer, _ = s.reviewerName("")
	return who
}

// recordJudgments writes judgments into the run's feedback through the
// one write path (feedback.Commit), as the guided review does: under the
// lock, the current file (of any shape) is archived into the history
// folder and the new version written atomically with previous pointing at
// it. notes, when not nil, replaces the file's overall_notes. Each of
// entries, an answer bound to its case (judgedCase), is stamped where it
// is.
func recordJudgments(s *Streams, o writeOptions, st *runState, entries []feedback.Bound, notes *string) error {
	who := scriptedReviewer(s, o)
	at := s.now()
	stamp := record.NewStamper(who, at)
	cases := make([]*run.Case, len(entries))
	for i, e := range entries {
		cases[i] = st.run.At(e.Case)
	}
	// The rows are read in one pass over the manifest, on every core.
	err := st.run.Bases(cases, func(i int, b *run.Basis) error {
		seen, err := record.SeeBasis(b)
		if err != nil {
			return clierr.Failure(err, err.Error(), "")
		}
		stamp.Stamp(&entries[i].Entry, seen)
		return nil
	})
	if err != nil {
		return err
	}
	release, err := feedback.LockWait(st.paths, s.lockWait())
	if err != nil {
		return err
	}
	defer release()
	// Read again under the lock: another writer may have finished meanwhile.
	base, _, err := loadIfExists(st.paths.Feedback)
	if err != nil {
		return err
	}
	commit := feedback.Commit{
		Paths: st.paths, Cases: st.run.CaseIDs(), RunID: st.run.ID, Base: base, Entries: entries, Skipped: -1,
		Tool: feedback.Tool{Name: "agentv-review", Version: Version}, Now: at,
		Top: func(f *feedback.File) {
			if base == nil {
				f.Reviewer, f.ReviewerKind = who.Reviewer, who.Kind
			}
			if notes != nil {
				f.OverallNotes = *notes
			}
		},
	}
	f, archived, err := commit.Write()
	if err != nil {
		return err
	}
	rep := writeReport{Path: st.paths.Feedback, RunID: f.RunID, Entries: len(entries), Reviewer: who.Reviewer, ReviewerKind: who.Kind}
	if archived != "" {
		rep.Archived = &archived
	}
	if st.draft != nil {
		printf(s.Err, "%s: note: an unfinished guided review (%s) is not changed; its answers win when it is resumed\n", prog, st.paths.Draft)
	}
	if o.JSON {
		return writeJSON(s.Out, rep)
	}
	printf(s.Out, "recorded %d judgment(s) by %s (%s) in %s\n", rep.Entries, who.Reviewer, who.Kind, rep.Path)
	if who.Kind == feedback.Agent {
		printf(s.Out, "they are proposals until a human confirms them: %s %s\n", prog, st.run.Dir)
	}
	if archived != "" {
		printf(s.Out, "the previous version is kept as %s\n", archived)
	}
	return nil
}
