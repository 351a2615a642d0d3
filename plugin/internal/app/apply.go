package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/review"
	"agentv-review/plugin/internal/run"
	"agentv-review/prompts"
)

func applyCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "record many judgments from a JSON or JSONL file (scripts, agents)",
		ArgsUsage: "[run]",
		Description: "--from FILE (or - for stdin) holds a feedback-shaped object with per_case, a JSON array of answers,\n" +
			"or JSON Lines, one answer per line: {test_id, suite?, target?, variant?, verdict, signals?, notes?,\n" +
			"evaluator_overrides?, workspace_notes?}. Every answer is checked first; if any is invalid nothing is written.",
		Flags: append(scriptedFlags(),
			&cli.StringFlag{Name: "from", Usage: "answers `FILE`, or - for standard input", TakesFile: true}),
		Action: act(s, applyAction, 0, 1, "[run]"),
	}
}

// scriptedFlags are the flags set and apply share.
func scriptedFlags() []cli.Flag {
	return []cli.Flag{
		jsonFlag,
		outFlag,
		&cli.StringFlag{Name: "reviewer", Usage: "reviewer `NAME` (default: $AGENTV_REVIEWER; with --agent \"agent\"; else git config user.name, login name)"},
		&cli.BoolFlag{Name: "agent", Usage: "mark the judgments reviewer_kind agent (the guided review shows them as pre-filled answers)"},
	}
}

// now is the clock of recorded judgments; tests replace it.
var now = time.Now

// scriptedLockWait is how long set and apply wait for another writer.
const scriptedLockWait = 3 * time.Second

// writeReport is the --json document of set and apply.
type writeReport struct {
	Path         string  `json:"path"`
	RunID        string  `json:"run_id"`
	Entries      int     `json:"entries"` // judgments written by this command
	Reviewer     string  `json:"reviewer"`
	ReviewerKind string  `json:"reviewer_kind"`
	Archived     *string `json:"archived"` // the previous version's path, null when there was none
}

func applyAction(s *Streams, c *cli.Context, args []string) error {
	if err := requireFlag(c, "from"); err != nil {
		return err
	}
	from := c.String("from")
	data, name, err := readInput(s, from)
	if err != nil {
		return err
	}
	answers, err := parseAnswers(name, data)
	if err != nil {
		return err
	}
	cat, err := prompts.Load()
	if err != nil {
		return err
	}
	st, err := openState(s, argOr(args, 0), c.String("out"))
	if err != nil {
		return err
	}
	var list []judged
	var problems []*clierr.Error
	seen := map[*run.Case]answer{}
	for _, a := range answers {
		cs, ps := checkAnswer(cat, st.run, a.Case)
		if dup, ok := seen[cs]; ok && cs != nil {
			ps = append(ps, problem{field: "test_id", msg: "the same case is judged " + dup.where(), hint: "give one answer per case"})
		}
		for _, p := range ps {
			problems = append(problems, clierr.Input(name, a.line, a.path(p.field), p.msg, p.hint))
		}
		if cs != nil {
			seen[cs] = a
			list = append(list, judgedCase(cs, a.Case))
		}
	}
	if err := oneError(s, name, problems); err != nil {
		return err
	}
	return record(s, c, st, list)
}

// readInput reads --from: a file, or stdin for "-".
func readInput(s *Streams, from string) ([]byte, string, error) {
	if from != "-" {
		data, err := os.ReadFile(from)
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

// oneError reports the problems of an input: nil when none, the problem
// itself when one, else each on stderr and a summary.
func oneError(s *Streams, name string, problems []*clierr.Error) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		problems[0].Msg += "; nothing was written"
		return problems[0]
	}
	for _, p := range problems {
		report(s.Err, p)
	}
	return clierr.Input(name, 0, "", fmt.Sprintf("%d invalid answers; nothing was written", len(problems)), "fix them and apply the file again")
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

// answerFields are the fields an answer may hold; the other fields of a
// feedback entry are derived when it is recorded and ignored here.
var answerFields = "test_id, suite, target, variant, verdict, signals, notes, evaluator_overrides, workspace_notes"

const inputHint = "one answer object per line (JSONL), a JSON array of answers, or a feedback file with per_case"

// parseAnswers reads JSON (a feedback-shaped object with per_case, an
// array of answers, or one answer) or JSON Lines.
func parseAnswers(name string, data []byte) ([]answer, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, clierr.Input(name, 0, "", "no answers", inputHint)
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
			return nil, clierr.Input(name, 1, "", err.Error(), inputHint)
		}
		if _, ok := top["per_case"]; ok {
			return parseArray(name, data, "per_case")
		}
		a, err := decodeAnswer(name, lineAt(data, 0), "", trimmed)
		return []answer{a}, err
	}
	return nil, clierr.Input(name, 1, "", "expected an object or an array", inputHint)
}

// parseLines reads JSON Lines; blank lines are skipped.
func parseLines(name string, data []byte) ([]answer, error) {
	var out []answer
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) || line[0] != '{' {
			return nil, clierr.Input(name, i+1, "", "not a JSON object", inputHint)
		}
		a, err := decodeAnswer(name, i+1, "", line)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// parseArray reads the answers of a JSON array: the document itself, or
// the array under the top-level key field.
func parseArray(name string, data []byte, field string) ([]answer, error) {
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
		return nil, clierr.Input(name, lineAt(data, dec.InputOffset()), field, "expected an array of answers", inputHint)
	}
	var out []answer
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		dec.Decode(&raw)
		prefix := fmt.Sprint(i)
		if field != "" {
			prefix = field + "." + prefix
		}
		a, err := decodeAnswer(name, lineAt(data, start), prefix, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// lineAt is the 1-based line of the first value at or after off (skipping
// blanks and a comma).
func lineAt(data []byte, off int64) int {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[off]) >= 0 {
		off++
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func decodeAnswer(name string, line int, prefix string, raw []byte) (answer, error) {
	a := answer{line: line, prefix: prefix}
	if raw[0] != '{' {
		return a, clierr.Input(name, line, prefix, "an answer must be a JSON object", inputHint)
	}
	if err := json.Unmarshal(raw, &a.Case); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return a, clierr.Input(name, line, a.path(te.Field), "expected "+te.Type.String()+", found "+te.Value, "fields: "+answerFields)
		}
		return a, clierr.Input(name, line, prefix, err.Error(), inputHint)
	}
	if len(a.Extra) > 0 {
		k := slices.Sorted(maps.Keys(a.Extra))[0]
		return a, clierr.Input(name, line, a.path(k), "unknown field", "fields: "+answerFields)
	}
	return a, nil
}

// problem is one invalid part of an answer.
type problem struct {
	field string // JSON field of the answer ("verdict", "signals.1", "evaluator_overrides.type:name")
	flag  string // the set flag that gave it
	msg   string
	hint  string
}

// checkAnswer validates an answer against the run and the catalog, exactly
// as the guided review constrains its answers. It returns the judged case,
// nil when none matches.
func checkAnswer(cat *prompts.Catalog, r *run.Run, a feedback.Case) (*run.Case, []problem) {
	cs, ps := matchCase(r, a)
	return cs, append(ps, checkJudgment(cat, cs, a)...)
}

func matchCase(r *run.Run, a feedback.Case) (*run.Case, []problem) {
	if a.TestID == "" {
		return nil, []problem{{field: "test_id", msg: "missing", hint: "each answer needs test_id and verdict"}}
	}
	i, candidates := caseid.Match(r.CaseIDs(), a.ID())
	if i >= 0 {
		return r.Cases[i], nil
	}
	if len(candidates) == 0 {
		return nil, []problem{{field: "test_id", msg: fmt.Sprintf("no case %q in run %s", caseid.Full(a.ID()), r.ID),
			hint: "list the run's cases with '" + prog + " list " + r.Dir + "'"}}
	}
	refs := make([]string, len(candidates))
	for k, j := range candidates {
		refs[k] = r.Ref(r.Cases[j])
	}
	return nil, []problem{{field: "test_id", msg: fmt.Sprintf("%q could be %d cases (%s)", caseid.Full(a.ID()), len(candidates), strings.Join(refs, ", ")),
		hint: "add suite, target or variant to name one"}}
}

// checkJudgment checks verdict, signals and grader overrides; cs may be nil
// (then overrides are not checked).
func checkJudgment(cat *prompts.Catalog, cs *run.Case, a feedback.Case) []problem {
	var ps []problem
	verdicts := prompts.IDs(cat.Verdicts)
	switch {
	case a.Verdict == "":
		ps = append(ps, problem{field: "verdict", flag: "--verdict", msg: "missing", hint: "verdicts: " + strings.Join(verdicts, ", ")})
	case !slices.Contains(verdicts, a.Verdict):
		ps = append(ps, problem{field: "verdict", flag: "--verdict", msg: fmt.Sprintf("unknown verdict %q", a.Verdict), hint: "verdicts: " + strings.Join(verdicts, ", ")})
	}
	signals := prompts.IDs(cat.Signals)
	for i, sig := range a.Signals {
		field := fmt.Sprintf("signals.%d", i)
		switch {
		case !slices.Contains(signals, sig):
			ps = append(ps, problem{field: field, flag: "--signal", msg: fmt.Sprintf("unknown signal %q", sig), hint: "signals: " + strings.Join(signals, ", ")})
		case slices.Index(a.Signals, sig) < i:
			ps = append(ps, problem{field: field, flag: "--signal", msg: fmt.Sprintf("signal %q given twice", sig), hint: "give each signal once"})
		}
	}
	if cs == nil {
		return ps
	}
	keys := graderKeys(cs)
	for _, k := range slices.Sorted(maps.Keys(a.EvaluatorOverrides)) {
		if slices.Contains(keys, k) {
			continue
		}
		hint := "this case has no graders"
		if len(keys) > 0 {
			hint = "its graders: " + strings.Join(keys, ", ")
		}
		ps = append(ps, problem{field: "evaluator_overrides." + k, flag: "--override",
			msg: fmt.Sprintf("no grader %q in case %s", k, cs.TestID), hint: hint})
	}
	return ps
}

// graderKeys are the distinct "type:name" keys of a case's graders.
func graderKeys(cs *run.Case) []string {
	var keys []string
	for _, g := range cs.Graders {
		if k := g.Key(); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// judged is a validated answer bound to its case.
type judged struct {
	c     *run.Case
	entry feedback.Case
}

// judgedCase keeps the answer's own fields; recording names the case exactly.
func judgedCase(c *run.Case, a feedback.Case) judged {
	return judged{c: c, entry: feedback.Case{
		Verdict: a.Verdict, Signals: a.Signals, Notes: a.Notes,
		EvaluatorOverrides: a.EvaluatorOverrides, WorkspaceNotes: a.WorkspaceNotes,
	}}
}

// scriptedReviewer resolves who records the judgments: --reviewer,
// $AGENTV_REVIEWER, "agent" for --agent, else git's user.name or the login.
func scriptedReviewer(s *Streams, c *cli.Context) (name, kind string) {
	kind = feedback.Human
	if c.Bool("agent") {
		kind = feedback.Agent
	}
	for _, n := range []string{c.String("reviewer"), s.Getenv("AGENTV_REVIEWER")} {
		if n = strings.TrimSpace(n); n != "" {
			return n, kind
		}
	}
	if kind == feedback.Agent {
		return "agent", kind
	}
	name, _ = reviewerName(c)
	return name, kind
}

// record writes judgments into the run's feedback through the same path as
// the guided review: under the lock, the current file (of any shape) is
// archived into the history folder and the new version written atomically
// with previous pointing at it.
func record(s *Streams, c *cli.Context, st *runState, entries []judged) error {
	name, kind := scriptedReviewer(s, c)
	at := now()
	stamp := feedback.FormatTime(at)
	for i := range entries {
		e := &entries[i].entry
		e.Automated = review.Snapshot(entries[i].c)
		d, err := st.run.Detail(entries[i].c)
		if err != nil {
			return err
		}
		if e.Fingerprint, err = review.Fingerprint(d, e.Automated.Graders); err != nil {
			return clierr.Failure(err, "cannot read the answer of "+st.run.Ref(entries[i].c)+": "+clierr.Cause(err), "")
		}
		e.ReviewedAt, e.Reviewer, e.ReviewerKind = stamp, name, kind
	}

	// Another set or apply holds the lock for milliseconds: wait for it; a
	// guided review holds it for its whole session: refuse after the wait.
	release, err := feedback.LockWait(st.paths, scriptedLockWait)
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
		Paths: st.paths, Cases: st.run.CaseIDs(), RunID: st.run.ID, Base: base, Skipped: -1,
		Tool: feedback.Tool{Name: "agentv-review", Version: Version}, Now: at,
	}
	if base == nil {
		commit.Top = func(f *feedback.File) { f.Reviewer, f.ReviewerKind = name, kind }
	}
	for _, e := range entries {
		commit.Entries = append(commit.Entries, feedback.Bound{Case: int(e.c.Index), Entry: e.entry})
	}
	f, archived, err := commit.Write()
	if err != nil {
		return err
	}
	rep := writeReport{Path: st.paths.Feedback, RunID: f.RunID, Entries: len(entries), Reviewer: name, ReviewerKind: kind}
	if archived != "" {
		rep.Archived = &archived
	}
	if st.draft != nil {
		printf(s.Err, "%s: note: an unfinished guided review (%s) is not changed; its answers win when it is resumed\n", prog, st.paths.Draft)
	}
	if c.Bool("json") {
		return writeJSON(s.Out, rep)
	}
	printf(s.Out, "recorded %d judgment(s) by %s (%s) in %s\n", rep.Entries, name, kind, rep.Path)
	if archived != "" {
		printf(s.Out, "the previous version is kept as %s\n", archived)
	}
	return nil
}
