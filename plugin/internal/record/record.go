// Package record turns a reviewer's answer about a case into a feedback
// entry, and tells whether a recorded entry still applies to the case as
// the run shows it now. The guided review, set and apply all record
// through it, so an answer is checked, stamped and fingerprinted one way.
package record

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/jsonenc"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
	"agentv-review/prompts"
)

// Snapshot is the machine verdict the reviewer sees, kept beside theirs.
func Snapshot(c *run.Case) *feedback.Automated {
	sn := &struct { // one allocation for the verdict and its score
		a     feedback.Automated
		score float64
	}{score: c.Score}
	a := &sn.a
	*a = feedback.Automated{Score: &sn.score, Outcome: string(c.Outcome), ExecutionStatus: c.ExecutionStatus, Samples: triage.SamplePattern(c.Samples)}
	if len(c.Graders) > 0 {
		a.Graders = make([]feedback.GraderResult, len(c.Graders))
	}
	for i, g := range c.Graders {
		a.Graders[i] = feedback.GraderResult{Key: g.Key(), Score: g.Score, Pass: g.Pass}
	}
	return a
}

// Fingerprint is the fingerprint of what a reviewer judges in case d of r,
// in encoding version (1 or 2, see feedback.FingerprintV2). Version 2's
// test part is the input the run recorded and the test definition (what
// run.Task reads: criteria, input, expected output, assertions) as compact
// JSON.
func Fingerprint(r *run.Run, d *run.Detail, version int) (string, error) {
	var task *run.Task
	if version >= 2 {
		var err error
		if task, err = r.Task(d); err != nil {
			return "", err
		}
	}
	return fingerprint(d, task, version)
}

// fingerprint is Fingerprint with the case's test definition already read
// (version 2 only; nil: none).
func fingerprint(d *run.Detail, task *run.Task, version int) (string, error) {
	return fingerprintOf(shown{d.Case, d.Answer, d.Input, task, false}, Snapshot(d.Case).Graders, version)
}

// shown is what a fingerprint is taken of: a case's answer and input
// (Detail's, or with raw set a Basis's, whose Content is the sidecar's raw
// bytes unless Truncated) and its test definition.
type shown struct {
	c             *run.Case
	answer, input run.Text
	task          *run.Task
	raw           bool
}

// fingerprintOf is the fingerprint of sh with the grader results graders
// (Snapshot's). Its readers and the test definition's JSON are a reading
// taken from readings and given back.
func fingerprintOf(sh shown, graders []feedback.GraderResult, version int) (string, error) {
	rd := readings.Get().(*reading)
	defer readings.Put(rd)
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	open := func(t run.Text, in *strings.Reader) (io.Reader, error) {
		if t.Path != "" && !t.Missing && (!sh.raw || t.Truncated) {
			f, err := t.Open()
			if err != nil {
				return nil, err
			}
			closers = append(closers, f)
			return f, nil
		}
		in.Reset(t.Content)
		return in, nil
	}
	answer, err := open(sh.answer, &rd.answer)
	if err != nil {
		return "", err
	}
	if version < 2 {
		return feedback.Fingerprint(answer, graders)
	}
	var test feedback.Test
	if sh.input.Present {
		if test.Input, err = open(sh.input, &rd.input); err != nil {
			return "", err
		}
	}
	task := sh.task
	if task == nil {
		task = &run.Task{}
	}
	if def := (testDef{task.Criteria, task.Input, task.Expected, task.Assertions}); def.Criteria != "" || def.Input != "" || def.Expected != "" || len(def.Assertions) > 0 {
		if rd.def, err = def.appendJSON(rd.def[:0]); err != nil {
			return "", err
		}
		rd.task.Reset(rd.def)
		test.Task = &rd.task
	}
	return feedback.FingerprintV2(answer, test, graders)
}

// reading is the room fingerprintOf reads texts in, reused (readings):
// the readers of the answer, the input and the test definition, and the
// definition's JSON.
type reading struct {
	answer, input strings.Reader
	task          bytes.Reader
	def           []byte
}

var readings = sync.Pool{New: func() any { return new(reading) }}

// testDef is the part of a run.Task a verdict depends on.
type testDef struct {
	Criteria   string          `json:"criteria,omitempty"`
	Input      string          `json:"input,omitempty"`
	Expected   string          `json:"expected,omitempty"`
	Assertions []run.Assertion `json:"assertions,omitempty"`
}

// appendJSON appends d as json.Marshal writes it (its tags; the same
// error for a weight that is not a number), without reflection.
func (d testDef) appendJSON(b []byte) ([]byte, error) {
	w := jsonWriter{b: b}
	w.open()
	w.str("criteria", d.Criteria)
	w.str("input", d.Input)
	w.str("expected", d.Expected)
	array(&w, "assertions", d.Assertions, w.assertion)
	w.close('}')
	return w.b, w.err
}

// jsonWriter writes the JSON of a testDef: an object's keys are set off
// by commas (first: none written yet in the innermost one open).
type jsonWriter struct {
	b     []byte
	first bool
	err   error
}

func (w *jsonWriter) open() { w.b, w.first = append(w.b, '{'), true }

// close ends an object or array: it is a value of the one around it.
func (w *jsonWriter) close(c byte) { w.b, w.first = append(w.b, c), false }

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.b, w.first = append(append(append(w.b, '"'), k...), '"', ':'), false
}

// str writes an omitempty string field.
func (w *jsonWriter) str(k, v string) {
	if v != "" {
		w.key(k)
		w.b = jsonenc.AppendString(w.b, v, true)
	}
}

// float writes an omitempty *float64 field.
func (w *jsonWriter) float(k string, v *float64) {
	if v == nil {
		return
	}
	w.key(k)
	var err error
	if w.b, err = jsonenc.AppendFloat(w.b, *v); err != nil && w.err == nil {
		w.err = err
	}
}

// array writes the omitempty array field k of objects, the fields of
// each written by fields.
func array[T any](w *jsonWriter, k string, items []T, fields func(T)) {
	if len(items) == 0 {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for i, it := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open()
		fields(it)
		w.close('}')
	}
	w.close(']')
}

// assertion writes the fields of a.
func (w *jsonWriter) assertion(a run.Assertion) {
	w.str("name", a.Name)
	w.str("type", a.Type)
	w.str("value", a.Value)
	if a.Negate {
		w.key("negate")
		w.b = append(w.b, "true"...)
	}
	w.str("required", a.Required)
	w.float("weight", a.Weight)
	array(w, "settings", a.Settings, func(st run.Setting) {
		w.key("key")
		w.b = jsonenc.AppendString(w.b, st.Key, true)
		w.key("value")
		w.b = jsonenc.AppendString(w.b, st.Value, true)
	})
	array(w, "rubrics", a.Rubrics, func(r run.Rubric) {
		w.str("id", r.ID)
		w.str("outcome", r.Outcome)
		w.str("operator", r.Operator)
		w.float("weight", r.Weight)
		w.key("required")
		w.b = strconv.AppendBool(w.b, r.Required)
	})
	array(w, "children", a.Children, w.assertion)
}

// Who is who records a judgment.
type Who struct {
	Reviewer string
	Kind     string // feedback.Human or feedback.Agent
}

// Answer is the part of an entry a reviewer gives — verdict, signals,
// notes, grader notes, workspace notes, test defect — without what Stamp
// records (machine verdict, fingerprint, who, when) or identity.
func Answer(e feedback.Case) feedback.Case {
	return feedback.Case{Verdict: e.Verdict, Notes: e.Notes, Signals: e.Signals, EvaluatorOverrides: e.EvaluatorOverrides,
		WorkspaceNotes: e.WorkspaceNotes, TestDefect: e.TestDefect}
}

// Seen is what a reviewer is shown of a case: the machine verdict and the
// fingerprint (current encoding) of the answer, grader results and test.
// It is taken when the case is shown, so the verdict is bound to what was
// on screen even if the run changes before the answer is given.
type Seen struct {
	Automated   *feedback.Automated
	Fingerprint string
}

// See reads what case d of r shows now.
func See(r *run.Run, d *run.Detail) (Seen, error) {
	task, err := r.Task(d)
	if err != nil {
		return Seen{}, err
	}
	return SeeWith(d, task)
}

// SeeWith is See for a caller that has read the case's test definition
// already (the evidence screen has): the task bundle is not read again.
func SeeWith(d *run.Detail, task *run.Task) (Seen, error) {
	return see(shown{d.Case, d.Answer, d.Input, task, false})
}

// SeeBasis is See for a case read by run.Bases: the same Seen, without
// reading the case's row or files again.
func SeeBasis(b *run.Basis) (Seen, error) {
	return see(shown{b.Case, b.Answer, b.Input, b.Task, true})
}

func see(sh shown) (Seen, error) {
	auto := Snapshot(sh.c)
	fp, err := fingerprintOf(sh, auto.Graders, feedback.FingerprintVersion)
	if err != nil {
		return Seen{}, fmt.Errorf("cannot read what case %s shows: %w", sh.c.TestID, err)
	}
	return Seen{Automated: auto, Fingerprint: fp}, nil
}

// Stamp completes an answer about a case into the entry to record: the
// machine verdict and fingerprint of what was seen, and who gave it when.
// Identity fields are set when the entry is put in an Index.
func Stamp(seen Seen, answer feedback.Case, who Who, at time.Time) feedback.Case {
	e := answer
	NewStamper(who, at).Stamp(&e, seen)
	return e
}

// Stamper is Stamp for many answers given by one reviewer at one time,
// each completed where it is: the time is formatted once.
type Stamper struct {
	who Who
	at  string
}

// NewStamper returns the Stamper of who's answers at.
func NewStamper(who Who, at time.Time) Stamper { return Stamper{who, feedback.FormatTime(at)} }

// Stamp completes the answer e into the entry Stamp(seen, *e, who, at).
func (s Stamper) Stamp(e *feedback.Case, seen Seen) {
	e.Automated, e.Fingerprint, e.FingerprintV = seen.Automated, seen.Fingerprint, feedback.FingerprintVersion
	e.ReviewedAt, e.Reviewer, e.ReviewerKind = s.at, s.who.Reviewer, s.who.Kind
}

// Freshness says whether a recorded entry still applies to its case.
type Freshness string

const (
	Current Freshness = "current" // the case shows what was judged
	Stale   Freshness = "stale"   // the output, the grader results or the test changed since
	// Unknown: the entry records nothing to compare (an AgentV-documented
	// entry, or one whose fingerprint was not checked).
	Unknown Freshness = "unknown"
)

// Quick compares an entry's recorded machine verdict with the case's
// current one, without reading any sidecar: a re-run row (AgentV
// --rerun-failed) or a regraded case shows up here. It compares what a run
// opened with run.Options.Outline keeps — the outcome, the score, and each
// grader's type and pass in order — and a grader's name and score when the
// case has them. Current means only that nothing cheap differs; Verify
// reads the answer too.
func Quick(c *run.Case, e *feedback.Case) Freshness {
	a := e.Automated
	if a == nil {
		return Unknown
	}
	if a.Outcome != string(c.Outcome) || a.Score == nil || *a.Score != c.Score || len(a.Graders) != len(c.Graders) {
		return Stale
	}
	for i, g := range c.Graders {
		r := a.Graders[i]
		typ, name, _ := strings.Cut(r.Key, ":")
		if typ != g.Type || !eqBool(r.Pass, g.Pass) ||
			(g.Name != "" && name != g.Name) || (g.Score != nil && !eqFloat(r.Score, g.Score)) {
			return Stale
		}
	}
	return Current
}

// Verify compares the entry's fingerprint (in the entry's encoding) with
// what case d shows now (seen, in the current encoding). An entry without
// a fingerprint is Unknown.
func Verify(r *run.Run, d *run.Detail, seen Seen, e *feedback.Case) (Freshness, error) {
	if q := Quick(d.Case, e); q == Stale {
		return Stale, nil
	}
	if e.Fingerprint == "" {
		return Unknown, nil
	}
	fp := seen.Fingerprint
	if v := max(e.FingerprintV, 1); v != feedback.FingerprintVersion {
		var err error
		if fp, err = Fingerprint(r, d, v); err != nil {
			return Unknown, err
		}
	}
	if fp != e.Fingerprint {
		return Stale, nil
	}
	return Current, nil
}

func eqFloat(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
func eqBool(a, b *bool) bool     { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// Problem is one invalid part of an answer.
type Problem struct {
	Field string // JSON field of the answer ("verdict", "signals.1", "evaluator_overrides.type:name")
	Flag  string // the set flag that gives it
	Msg   string
	Hint  string
}

// Finder finds the cases answers name in one run: it keeps one
// caseid.Matcher, so finding a case allocates nothing unless the answer
// has a problem. A Finder is for one goroutine at a time.
type Finder struct {
	r *run.Run
	m *caseid.Matcher
}

// NewFinder returns a Finder of the cases of r.
func NewFinder(r *run.Run) *Finder {
	return &Finder{r: r, m: caseid.NewMatcher(r.CaseIDs())}
}

// Find resolves the case an answer names (test_id, and suite, target,
// variant when given), as feedback entries are matched.
func (f *Finder) Find(a feedback.Case) (*run.Case, []Problem) {
	r := f.r
	if a.TestID == "" {
		return nil, []Problem{{Field: "test_id", Msg: "missing", Hint: "each answer needs test_id and verdict"}}
	}
	i, candidates := f.m.Match(a.ID())
	if i >= 0 {
		return r.At(i), nil
	}
	if len(candidates) == 0 {
		return nil, []Problem{{Field: "test_id", Msg: fmt.Sprintf("no case %q in run %s", caseid.Full(a.ID()), r.ID),
			Hint: "list the run's cases with 'agentv review list " + r.Dir + "'"}}
	}
	refs := make([]string, len(candidates))
	for k, j := range candidates {
		refs[k] = r.Ref(r.At(j))
	}
	return nil, []Problem{{Field: "test_id", Msg: fmt.Sprintf("%q could be %d cases (%s)", caseid.Full(a.ID()), len(candidates), strings.Join(refs, ", ")),
		Hint: "add suite, target or variant to name one"}}
}

// Check checks an answer's verdict, signals and grader overrides exactly
// as the guided review constrains them; cs may be nil (then overrides are
// not checked).
func Check(cat *prompts.Catalog, cs *run.Case, a feedback.Case) []Problem {
	return NewChecker(cat).Check(cs, a)
}

// Checker is Check for many answers against one catalog, whose choices
// it lists once. It is safe for concurrent use.
type Checker struct {
	verdicts, signals, defects []string
}

// NewChecker returns a Checker of answers against cat.
func NewChecker(cat *prompts.Catalog) *Checker {
	return &Checker{verdicts: prompts.IDs(cat.Verdicts), signals: prompts.IDs(cat.Signals), defects: prompts.IDs(cat.TestDefects)}
}

// Check is Check(cat, cs, a).
func (c *Checker) Check(cs *run.Case, a feedback.Case) []Problem {
	var ps []Problem
	switch {
	case a.Verdict == "":
		ps = append(ps, Problem{Field: "verdict", Flag: "--verdict", Msg: "missing", Hint: "verdicts: " + strings.Join(c.verdicts, ", ")})
	case !slices.Contains(c.verdicts, a.Verdict):
		ps = append(ps, Problem{Field: "verdict", Flag: "--verdict", Msg: fmt.Sprintf("unknown verdict %q", a.Verdict), Hint: "verdicts: " + strings.Join(c.verdicts, ", ")})
	}
	for i, sig := range a.Signals {
		switch {
		case !slices.Contains(c.signals, sig):
			ps = append(ps, Problem{Field: signalField(i), Flag: "--signal", Msg: fmt.Sprintf("unknown signal %q", sig), Hint: "signals: " + strings.Join(c.signals, ", ")})
		case slices.Index(a.Signals, sig) < i:
			ps = append(ps, Problem{Field: signalField(i), Flag: "--signal", Msg: fmt.Sprintf("signal %q given twice", sig), Hint: "give each signal once"})
		}
	}
	if a.TestDefect != "" && !slices.Contains(c.defects, a.TestDefect) {
		ps = append(ps, Problem{Field: "test_defect", Flag: "--test-defect", Msg: fmt.Sprintf("unknown test defect %q", a.TestDefect), Hint: "test defects: " + strings.Join(c.defects, ", ")})
	}
	if cs == nil || len(a.EvaluatorOverrides) == 0 {
		return ps
	}
	return append(ps, checkOverrides(cs, a.EvaluatorOverrides)...)
}

// checkOverrides checks that each grader override names a grader of cs.
func checkOverrides(cs *run.Case, overrides map[string]string) []Problem {
	var ps []Problem
	keys := GraderKeys(cs)
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		if slices.Contains(keys, k) {
			continue
		}
		hint := "this case has no graders"
		if len(keys) > 0 {
			hint = "its graders: " + strings.Join(keys, ", ")
		}
		ps = append(ps, Problem{Field: "evaluator_overrides." + k, Flag: "--override",
			Msg: fmt.Sprintf("no grader %q in case %s", k, cs.TestID), Hint: hint})
	}
	return ps
}

// signalField is the field of the answer's signal i.
func signalField(i int) string { return "signals." + strconv.Itoa(i) }

// GraderKeys are the distinct "type:name" keys of a case's graders, the
// keys evaluator_overrides takes.
func GraderKeys(cs *run.Case) []string {
	var keys []string
	for _, g := range cs.Graders {
		if k := g.Key(); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
