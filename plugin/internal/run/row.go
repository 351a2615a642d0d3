package run

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"path"
	"strings"
	"unsafe"
)

// rowWire is the part of a manifest row that Open needs (decoded by
// skimRow; the json tags are the same names for encoding/json). Everything
// else (scores[].input, assertions, reasons, inline output) is skipped and
// re-read by Detail, which decodes these same fields with the same skimmer
// first (see rowHead). Each spelling of a field has its own member; the
// methods below pick one in the order of rowSpellings.
type rowWire struct {
	TestID      *string `json:"test_id"`
	TestIDCamel *string `json:"testId"`
	EvalID      *string `json:"eval_id"`

	Suite   *string `json:"suite"`
	Dataset *string `json:"dataset"`
	EvalSet *string `json:"eval_set"`

	Target        string  `json:"target"`
	Variant       string  `json:"variant"`
	EvalPath      *string `json:"eval_path"`
	EvalPathCamel *string `json:"evalPath"`

	Score *float64 `json:"score"`

	ExecutionStatus      *string `json:"execution_status"`
	ExecutionStatusCamel *string `json:"executionStatus"`
	Error                string  `json:"error"`
	FailureStage         *string `json:"failure_stage"`
	FailureStageCamel    *string `json:"failureStage"`

	Scores           []graderWire `json:"scores"`
	EvaluatorResults []graderWire `json:"evaluator_results"`

	Samples  []repeatWire `json:"samples"`
	Attempts []repeatWire `json:"attempts"`
	Trials   []repeatWire `json:"trials"`

	WorkspacePath        *string `json:"workspace_path"`
	WorkspacePathCamel   *string `json:"workspacePath"`
	FileChangesPath      *string `json:"file_changes_path"`
	FileChangesPathCamel *string `json:"fileChangesPath"`

	// Where the row's per-test files live, to spot targets that share one
	// folder (AgentV 4.42.4 writes <suite>/<test_id>/ for every target).
	ResultDir       *string `json:"result_dir"`
	ResultDirCamel  *string `json:"resultDir"`
	ArtifactDir     *string `json:"artifact_dir"`
	ArtifactDirCaml *string `json:"artifactDir"`
	GradingPath     *string `json:"grading_path"`
	GradingPathCaml *string `json:"gradingPath"`
}

// graderWire is one scores[] / evaluator_results[] entry, light fields only.
type graderWire struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Score   *float64 `json:"score"`
	Weight  *float64 `json:"weight"`
	Verdict string   `json:"verdict"`
	Pass    *bool    `json:"pass"`
}

// repeatWire is one samples[] / attempts[] / trials[] entry, light fields only.
type repeatWire struct {
	Sample      *int     `json:"sample"`
	Attempt     *int     `json:"attempt"`
	SamplePath  string   `json:"sample_path"`
	AttemptPath string   `json:"attempt_path"`
	RunPath     string   `json:"run_path"`
	Score       *float64 `json:"score"`
	Status      string   `json:"status"`
	Verdict     string   `json:"verdict"`
}

// rowSpellings lists, for every row field that has more than one spelling,
// its spellings in precedence order: the first one present with a value
// other than null wins. It is the one precedence of the reader: Detail
// normalises a row's aliases by it, and the rowWire methods (the skimmer's
// side, for Open and Detail alike) follow the same order, which
// TestRowSpellings checks spelling by spelling.
//
// The order is AgentV's (EntityProcess/agentv, followed at v4.42.4 and
// main of July 2026):
//   - snake_case before camelCase: packages/core/src/evaluation/result-row-schema.ts
//     (normalizeKnownAliases copies a camelCase alias only when the snake_case
//     name is undefined; its RESULT_ROW_ALIASES list is the camelCase set here,
//     plus artifactDir and fileChangesPath that older rows used);
//   - test_id before eval_id: apps/cli/src/commands/inspect/show.ts
//     (result.test_id ?? result.eval_id);
//   - suite before dataset before eval_set: AgentV renamed eval_set to dataset
//     (#814, read as `dataset ?? eval_set` in results/manifest.ts until #815)
//     and dataset to suite (#944);
//   - result_dir before artifact_dir (the older name).
//
// null is treated as absent, like AgentV's `??`: {"test_id":null,"testId":"x"}
// is test "x". (AgentV's camelCase merge alone would keep the null, as it
// tests `=== undefined`, and then lose the row's id; we follow `??`
// throughout so that no spelling of a row is lost.) An empty string is a
// value: {"test_id":"","testId":"x"} is test "".
var rowSpellings = [][]string{
	{"test_id", "testId", "eval_id"},
	{"suite", "dataset", "eval_set"},
	{"eval_path", "evalPath"},
	{"execution_status", "executionStatus"},
	{"failure_stage", "failureStage"},
	{"failure_reason_code", "failureReasonCode"},
	{"workspace_path", "workspacePath"},
	{"file_changes_path", "fileChangesPath"},
	{"result_dir", "resultDir"},
	{"artifact_dir", "artifactDir"},
	{"grading_path", "gradingPath"},
	{"answer_path", "answerPath"},
	{"output_path", "outputPath"},
	{"response_path", "responsePath"},
	{"input_path", "inputPath"},
	{"metrics_path", "metricsPath"},
	{"summary_path", "summaryPath"},
	{"timing_path", "timingPath"},
	{"trace_path", "tracePath"},
	{"transcript_path", "transcriptPath"},
	{"transcript_raw_path", "transcriptRawPath"},
	{"raw_provider_log_path", "rawProviderLogPath"},
	{"files_path", "filesPath"},
	{"graders_path", "gradersPath"},
	{"targets_path", "targetsPath"},
	{"task_dir", "taskDir"},
	{"conversation_id", "conversationId"},
	{"duration_ms", "durationMs"},
	{"token_usage", "tokenUsage"},
	{"cost_usd", "costUsd"},
	{"start_time", "startTime"},
	{"end_time", "endTime"},
}

// firstSet returns the first non-nil string, "" when all are nil.
func firstSet(ss ...*string) string {
	for _, s := range ss {
		if s != nil {
			return *s
		}
	}
	return ""
}

// rowHead is a row's identity and outcome: what Open keeps in a Case and
// what Detail checks the re-read row against. Both get it from head.
type rowHead struct {
	TestID, Target, Variant, Suite, EvalPath string

	Score           float64
	ExecutionStatus string
	Outcome         Outcome
	Error           string
	FailureStage    string
}

// head resolves the row's identity and outcome by rowSpellings. w must have
// passed checkRow (its score is set).
func (w *rowWire) head() rowHead {
	h := rowHead{
		TestID:          firstSet(w.TestID, w.TestIDCamel, w.EvalID),
		Target:          w.Target,
		Variant:         w.Variant,
		Suite:           firstSet(w.Suite, w.Dataset, w.EvalSet),
		EvalPath:        firstSet(w.EvalPath, w.EvalPathCamel),
		Score:           *w.Score,
		ExecutionStatus: firstSet(w.ExecutionStatus, w.ExecutionStatusCamel),
		Error:           w.Error,
		FailureStage:    firstSet(w.FailureStage, w.FailureStageCamel),
	}
	h.Outcome = outcome(h.ExecutionStatus, h.Score)
	return h
}

// headOf is the rowHead Open kept in c (without EvalPath under
// Options.Outline).
func headOf(c *Case) rowHead {
	return rowHead{
		TestID: c.TestID, Target: c.Target, Variant: c.Variant, Suite: c.Suite, EvalPath: c.EvalPath,
		Score: c.Score, ExecutionStatus: c.ExecutionStatus, Outcome: c.Outcome, Error: c.Error, FailureStage: c.FailureStage,
	}
}

func (w *rowWire) workspacePath() string { return firstSet(w.WorkspacePath, w.WorkspacePathCamel) }

func (w *rowWire) fileChangesPath() string {
	return firstSet(w.FileChangesPath, w.FileChangesPathCamel)
}

// resultDir is result_dir, else the older artifact_dir.
func (w *rowWire) resultDir() string {
	return firstSet(w.ResultDir, w.ResultDirCamel, w.ArtifactDir, w.ArtifactDirCaml)
}

func (w *rowWire) gradingPath() string { return firstSet(w.GradingPath, w.GradingPathCaml) }

// graders is scores[], else the legacy evaluator_results[].
func (w *rowWire) graders() []graderWire {
	if len(w.Scores) == 0 {
		return w.EvaluatorResults
	}
	return w.Scores
}

// rowError is a problem with one row; the reader adds file and line.
type rowError struct {
	field, msg, hint string
	syntax           bool // malformed JSON (a truncated last line is tolerated)
}

const rowHint = "every line of an AgentV manifest is one JSON object with a numeric score; re-run `agentv eval` or fix the line"

// parsedRow is what parseRow makes of one line: its case, hashes of its
// eval_path and of the folder holding its per-test files (0 when it names
// none), and a warning. Under Read(keep) it also carries the row's
// tally hashes (tallySeeds.tallyKey), and c is nil for a row not kept.
type parsedRow struct {
	c         *Case
	eval, dir uint64
	warn      string
	th        uint64
	tkey      uint32
	line      int32 // within the block, 1-based, until the merge adds the block's position
	// aside is, for a row not kept, its target (for Case.OverwrittenBy);
	// for a kept row, its spans when recorded (see memberValues.at). One
	// field for both: a row's size matters to a read of a million rows.
	aside string
}

// checkRow decodes the light view of one manifest line with sk and checks
// it as Open does: a JSON object with a numeric score. Open (parseRow) and
// Detail both read a row through it, so a row Open accepts is one Detail
// can read. Unknown fields with an unexpected type are returned as
// warnings, not errors: AgentV ignores them too. The result is owned by sk.
func checkRow(line []byte, sk *skimmer) (w *rowWire, warn string, err *rowError) {
	if len(line) == 0 || line[0] != '{' {
		return nil, "", &rowError{msg: "not a JSON object", hint: rowHint}
	}
	w, typeErr, serr := sk.row(line)
	switch {
	case serr != nil:
		return nil, "", &rowError{msg: "malformed JSON: " + serr.Error(), hint: rowHint, syntax: true}
	case typeErr == "score":
		return nil, "", &rowError{field: "score", msg: "score is not a number", hint: rowHint}
	case typeErr != "":
		warn = fmt.Sprintf("field %q has an unexpected type; ignored", typeErr)
	}
	if w.Score == nil {
		return nil, "", &rowError{field: "score", msg: "missing score (AgentV rejects result rows without a numeric score)", hint: rowHint}
	}
	if s := *w.Score; s < 0 || s > 1 {
		warn = joinWarn(warn, fmt.Sprintf("score %g is outside 0..1; kept as is", s))
	}
	return w, warn, nil
}

// parseRow decodes one manifest line into a new Case from a. It is the one
// hot function of Open (see skimRow). loose reads a row not kept
// loosely (see check).
func parseRow(line []byte, sk *skimmer, a *arena, loose bool) (row parsedRow, err *rowError) {
	w, h, kept, warn, err := a.cfg.check(line, sk, loose)
	if err != nil {
		return row, err
	}
	row.eval, row.warn = maphash.String(a.cfg.seed, h.EvalPath), warn
	if dir := artifactDir(w); dir != "" {
		row.dir = maphash.String(a.cfg.seed, dir) | 1
	}
	if a.cfg.tallied {
		row.th, row.tkey = a.cfg.tally.tallyKey(&h, row.eval)
		if !kept {
			row.aside = h.Target
			return row, nil // tallied only: no Case
		}
	}
	c := a.newCase()
	c.TestID, c.Suite, c.Target, c.Variant = h.TestID, h.Suite, h.Target, h.Variant
	if a.outlines == nil {
		c.EvalPath = strings.Clone(h.EvalPath) // a view of the line (skimmer.path)
	}
	c.Score, c.ExecutionStatus, c.Outcome = h.Score, h.ExecutionStatus, h.Outcome
	c.Error, c.FailureStage = h.Error, h.FailureStage
	c.HasWorkspace = w.workspacePath() != "" || w.fileChangesPath() != ""
	c.Graders = a.summaries(w.graders())
	c.Samples = repeats(w, a, sk.in)
	row.c = c
	if sr := &sk.spans; sr.on && !sr.bad {
		b := take(&a.spans, 1+len(sr.buf)) // never written again
		b[0] = byte(bits.OnesCount16(sr.seen))
		copy(b[1:], sr.buf)
		row.aside = unsafe.String(&b[0], len(b))
	}
	return row, nil
}

// check is checkRow, and gives the row's head and whether the read keeps
// it (keep, or every row without one). With loose (under
// Options.CheckKeptOnly) a row is read loosely first (its nested values
// skipped unchecked, see looseEnd), and again strictly when the read
// keeps it or the loose read failed, so a kept row, every error and its
// message are checkRow's.
func (cfg *parseConfig) check(line []byte, sk *skimmer, loose bool) (w *rowWire, h rowHead, kept bool, warn string, err *rowError) {
	if loose {
		sk.loose = true
		w, warn, err = checkRow(line, sk)
		sk.loose = false
		if err == nil {
			if h = w.head(); !cfg.keep(h.TestID) {
				return w, h, false, warn, nil
			}
		}
	}
	if w, warn, err = checkRow(line, sk); err != nil {
		return nil, h, false, "", err
	}
	h = w.head()
	return w, h, cfg.keep == nil || cfg.keep(h.TestID), warn, nil
}

// arena hands out the many small values of one Open from shared chunks:
// 100k cases then cost a few hundred allocations instead of millions, and
// the collector traces a few big objects. Slices it returns have their
// capacity capped, so appending to one never writes into its neighbour.
type arena struct {
	cases   []Case
	block   *[]Case // set: the cases of the block being parsed (parseConfig.recycle), not cases
	graders []GraderSummary
	samples []SampleSummary
	floats  []float64
	spans   []byte

	cfg      parseConfig // shared by the arenas of one Open
	outlines *outlines   // set under Options.Outline
}

// newCase is room for a row's case, zeroed: in the block's own cases under
// parseConfig.recycle, else in the arena. When the block's cases grow, the
// earlier ones are copied away, but their rows still point at the old
// room, and every later write and read of a case (its Loc in block.parse,
// the merge) goes through its row: the copies are never read.
func (a *arena) newCase() *Case {
	if a.block != nil {
		*a.block = append(*a.block, Case{})
		return &(*a.block)[len(*a.block)-1]
	}
	return &take(&a.cases, 1)[0]
}

// summaries returns the summaries of a row's graders.
func (a *arena) summaries(gs []graderWire) []GraderSummary {
	if a.outlines != nil {
		return a.outlines.graders(gs)
	}
	out := take(&a.graders, len(gs))
	for i, g := range gs {
		out[i] = GraderSummary{
			Name: g.Name, Type: g.Type, Score: a.float(g.Score), Weight: a.float(g.Weight),
			Verdict: g.Verdict, Pass: graderPass(g.Pass, g.Verdict),
		}
	}
	return out
}

// outlines hands out, under Options.Outline, one shared copy of each
// distinct grader outline (Type and Pass of each grader, in order) and
// sample outline (Pass of each sample). The slices are never written
// through.
type outlines struct {
	key        []byte
	graderSets map[string][]GraderSummary
	sampleSets map[string][]SampleSummary
}

func (o *outlines) graders(gs []graderWire) []GraderSummary {
	if len(gs) == 0 {
		return nil
	}
	o.key = o.key[:0]
	for _, g := range gs {
		o.key = binary.AppendUvarint(o.key, uint64(len(g.Type)))
		o.key = append(append(o.key, g.Type...), passMark(graderPass(g.Pass, g.Verdict)))
	}
	if v, ok := o.graderSets[string(o.key)]; ok {
		return v
	}
	v := make([]GraderSummary, len(gs))
	for i, g := range gs {
		v[i] = GraderSummary{Type: g.Type, Pass: graderPass(g.Pass, g.Verdict)}
	}
	o.graderSets[string(o.key)] = v
	return v
}

func (o *outlines) samples(rs []repeatWire) []SampleSummary {
	o.key = o.key[:0]
	for _, r := range rs {
		o.key = append(o.key, passMark(r.pass()))
	}
	if v, ok := o.sampleSets[string(o.key)]; ok {
		return v
	}
	v := make([]SampleSummary, len(rs))
	for i, r := range rs {
		v[i].Pass = r.pass()
	}
	o.sampleSets[string(o.key)] = v
	return v
}

// passMark is a one-byte key for a verdict: 'P', 'F' or '?'.
func passMark(p *bool) byte {
	switch {
	case p == nil:
		return '?'
	case *p:
		return 'P'
	}
	return 'F'
}

// arenaChunk is how many values of a kind one chunk holds.
const arenaChunk = 1024

// take returns n zero values from *chunk (nil for 0), starting a new chunk
// when the current one is full.
func take[T any](chunk *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if cap(*chunk)-len(*chunk) < n {
		*chunk = make([]T, 0, max(n, arenaChunk))
	}
	i := len(*chunk)
	*chunk = (*chunk)[:i+n]
	return (*chunk)[i : i+n : i+n]
}

// units back the most common scores and weights, 0 and 1, for every case.
var units = [2]float64{0, 1}

// float copies *p into the arena (0 and 1 are shared, like the *bool
// values: never written through); nil stays nil.
func (a *arena) float(p *float64) *float64 {
	switch {
	case p == nil:
		return nil
	case *p == 1:
		return &units[1]
	case *p == 0 && !math.Signbit(*p):
		return &units[0]
	}
	f := &take(&a.floats, 1)[0]
	*f = *p
	return f
}

func joinWarn(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// artifactDir names the folder holding the row's per-test files, "" when
// the row names none.
func artifactDir(w *rowWire) string {
	if d := w.resultDir(); d != "" {
		return cleanSlash(d)
	}
	if g := w.gradingPath(); g != "" {
		return path.Dir(cleanSlash(g))
	}
	return ""
}

// outcome applies AgentV's rule: execution_status decides; without it a
// score at or above PassThreshold passes.
func outcome(status string, score float64) Outcome {
	switch status {
	case "ok":
		return Passed
	case "quality_failure":
		return Failed
	case "execution_error":
		return Errored
	}
	if score >= PassThreshold {
		return Passed
	}
	return Failed
}

// graderPass reads a grader verdict: v5's pass bool, else verdict
// pass/fail; "skip" and anything else is unknown.
func graderPass(pass *bool, verdict string) *bool {
	if pass != nil {
		return pass
	}
	return verdictPass(verdict)
}

func verdictPass(v string) *bool {
	switch v {
	case "pass", "passed":
		return boolPtr(true)
	case "fail", "failed":
		return boolPtr(false)
	}
	return nil
}

// truth backs every *bool the reader derives: two shared values, never
// written through, instead of one allocation per grader.
var truth = [2]bool{false, true}

func boolPtr(b bool) *bool {
	if b {
		return &truth[1]
	}
	return &truth[0]
}

// pickRepeats chooses the list a row's repeats are in and names its kind:
// attempts[] or trials[] when present, else samples[].
func pickRepeats[T any](samples, attempts, trials []T) (list []T, kind string) {
	switch {
	case len(attempts) > 0:
		return attempts, "attempt"
	case len(trials) > 0:
		return trials, "trial"
	}
	return samples, "sample"
}

// repeats lists samples[] (v5), attempts[] (early July) or trials[]
// (late June), whichever the row has.
func repeats(w *rowWire, a *arena, in interner) []SampleSummary {
	list, kind := pickRepeats(w.Samples, w.Attempts, w.Trials)
	switch {
	case len(list) == 0:
		return nil
	case a.outlines != nil:
		return a.outlines.samples(list)
	}
	out := take(&a.samples, len(list))
	for i, r := range list {
		out[i] = r.summary(i, kind, in)
		out[i].Score = a.float(r.Score)
	}
	return out
}

func (r repeatWire) summary(i int, kind string, in interner) SampleSummary {
	p := r.SamplePath
	if p == "" {
		p = r.AttemptPath
	}
	if p == "" {
		p = r.RunPath
	}
	var label string
	switch {
	case p != "":
		label = path.Base(p)
	case r.Sample != nil:
		label = fmt.Sprintf("%s-%d", kind, *r.Sample)
	case r.Attempt != nil:
		label = fmt.Sprintf("%s-%d", kind, *r.Attempt)
	default:
		label = fmt.Sprintf("%s-%d", kind, i+1)
	}
	return SampleSummary{Label: in.get(label), Score: r.Score, Pass: r.pass(), Path: p}
}

// pass reads a repeat's verdict: status, else verdict.
func (r repeatWire) pass() *bool {
	if r.Status != "" {
		return verdictPass(r.Status)
	}
	return verdictPass(r.Verdict)
}

// interner (nil: no sharing) shares the many repeated short strings of a
// manifest (targets, suites, grader names and types) so 100k cases keep one
// copy of each.
type interner map[string]string

func (in interner) get(s string) string {
	if s == "" || in == nil {
		return s
	}
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// bytes is get for bytes; it allocates only for a string not seen before.
func (in interner) bytes(b []byte) string {
	if v, ok := in[string(b)]; ok {
		return v
	}
	s := string(b)
	in[s] = s
	return s
}
