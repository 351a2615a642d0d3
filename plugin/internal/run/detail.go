package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

// rowFull is what Detail reads from a row besides its rowWire: the heavy
// fields, decoded by encoding/json once the aliases are normalised.
type rowFull struct {
	Scores           []graderFull    `json:"scores"`
	EvaluatorResults []graderFull    `json:"evaluator_results"`
	Samples          []repeatFull    `json:"samples"`
	Attempts         []repeatFull    `json:"attempts"`
	Trials           []repeatFull    `json:"trials"`
	Assertions       []checkWire     `json:"assertions"`
	Hits             []string        `json:"hits"`
	Misses           []string        `json:"misses"`
	Reasoning        string          `json:"reasoning"`
	Output           json.RawMessage `json:"output"`
	Answer           json.RawMessage `json:"answer"`
	OutputText       json.RawMessage `json:"output_text"`
	CandidateAnswer  json.RawMessage `json:"candidate_answer"`
	Input            json.RawMessage `json:"input"`

	AnswerPath   string `json:"answer_path"`
	OutputPath   string `json:"output_path"`
	ResponsePath string `json:"response_path"`
	InputPath    string `json:"input_path"`

	FailureReason string      `json:"failure_reason_code"`
	DurationMS    *float64    `json:"duration_ms"`
	Tokens        *TokenUsage `json:"token_usage"`
	CostUSD       *float64    `json:"cost_usd"`
	Timestamp     string      `json:"timestamp"`
}

// graderFull is one grader as a row's scores[] or evaluator_results[], a
// grading.json graders[]/evaluators[] entry, a v5 component_results[]
// entry, or a whole grading.json: the four shapes share their fields.
type graderFull struct {
	graderWire
	Reason           string       `json:"reason"`
	Reasoning        string       `json:"reasoning"`
	Assertions       []checkWire  `json:"assertions"`
	AssertionResults []checkWire  `json:"assertion_results"`
	Expectations     []checkWire  `json:"expectations"`
	Hits             []string     `json:"hits"`
	Misses           []string     `json:"misses"`
	Scores           []graderFull `json:"scores"`
	Graders          []graderFull `json:"graders"`
	Evaluators       []graderFull `json:"evaluators"`
	ComponentResults []graderFull `json:"component_results"`
	Assertion        *struct {
		Name, Type, ID, Value string
		Weight                *float64
	} `json:"assertion"`
}

type checkWire struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

type repeatFull struct {
	repeatWire
	Scores []graderFull `json:"scores"`
}

// Detail loads everything about one case: the full row (re-read at c.Loc),
// grading.json, the answer, the input, file changes and samples. Missing or
// unsafe sidecars are reported in the Detail, never as an error.
func (r *Run) Detail(c *Case) (*Detail, error) {
	var sk skimmer
	w, m, err := r.reread(c, &sk)
	if err != nil {
		return nil, err
	}
	var row rowFull
	if err := r.decodeRow(c, m, fullFields, &row); err != nil {
		return nil, err
	}
	// The light fields of graders and repeats are the skimmer's, as in Open
	// (encoding/json would fold the case of their keys).
	lightFrom(row.Scores, w.Scores, func(g *graderFull) *graderWire { return &g.graderWire })
	lightFrom(row.EvaluatorResults, w.EvaluatorResults, func(g *graderFull) *graderWire { return &g.graderWire })
	lightFrom(row.Samples, w.Samples, func(s *repeatFull) *repeatWire { return &s.repeatWire })
	lightFrom(row.Attempts, w.Attempts, func(s *repeatFull) *repeatWire { return &s.repeatWire })
	lightFrom(row.Trials, w.Trials, func(s *repeatFull) *repeatWire { return &s.repeatWire })

	d := &Detail{
		Case: c, WorkspacePath: w.workspacePath(), FailureReason: row.FailureReason,
		DurationMS: row.DurationMS, Tokens: row.Tokens, CostUSD: row.CostUSD,
		Timestamp: row.Timestamp, Reasoning: row.Reasoning,
	}
	d.Sidecars = r.sidecars(m)

	scores := row.Scores
	if len(scores) == 0 {
		scores = row.EvaluatorResults
	}
	d.Graders = graders(scores)
	if len(d.Graders) == 0 { // else the row-level checks repeat the graders'
		d.Checks = append(checks(row.Assertions), hitsMisses(row.Hits, row.Misses)...)
	}
	own := c.OverwrittenBy == ""
	if !own {
		d.warn("", fmt.Sprintf("this test's result folder was overwritten by target %q (AgentV 4.42.4 keeps one folder per test, not per target); its answer and grading.json are not this row's", c.OverwrittenBy))
	}
	if g := w.gradingPath(); own && g != "" {
		r.mergeGrading(d, &d.Graders, &d.Checks, "grading_path", g)
	}

	d.Answer = r.answer(row, own, func(field, rel string) Text {
		t := r.readText(d, field, rel)
		if field == "response_path" && !t.Missing {
			t.Content = stripRoleBlocks(t.Content, "assistant")
		}
		return t
	})
	d.Input = r.input(row, func(field, rel string) Text { return r.readText(d, field, rel) })
	if p := w.fileChangesPath(); p != "" {
		d.FileChanges = r.readText(d, "file_changes_path", p)
	}
	d.Samples = r.samples(d, row, w.resultDir())
	return d, nil
}

// lightFrom sets the light part of each decoded element to the skimmer's
// decoding of the same element. Both decoders keep one element per array
// element, so the lengths differ only if they disagree on the row, and then
// nothing is replaced.
func lightFrom[F, L any](full []F, light []L, part func(*F) *L) {
	if len(full) != len(light) {
		return
	}
	for i := range full {
		*part(&full[i]) = light[i]
	}
}

// reread reads the winning row's bytes at c.Loc and checks them (see
// verify).
func (r *Run) reread(c *Case, sk *skimmer) (*rowWire, map[string]json.RawMessage, error) {
	rel := r.rel(r.Manifest)
	f, err := safefile.OpenIn(r.Dir, r.Manifest)
	if err != nil {
		return nil, nil, unreadable(rel, err)
	}
	defer f.Close()
	buf := make([]byte, c.Loc.Length)
	if _, err := f.ReadAt(buf, c.Loc.Offset); err != nil {
		return nil, nil, r.changed(c, "cannot re-read the row: "+err.Error())
	}
	return r.verify(c, buf, sk, nil)
}

// changed is the error for a row that is no longer the one Open read.
func (r *Run) changed(c *Case, msg string) error {
	return clierr.Input(r.rel(r.Manifest), int(c.Loc.Line), "", msg, "the manifest changed since the run was opened; open it again")
}

// verify decodes the row bytes read at c.Loc with sk as Open did
// (checkRow). It refuses a row whose identity or outcome is no longer the
// case's, and returns the row's members (aliasing line) with their aliases
// normalised by rowSpellings, in m when not nil (emptied first).
func (r *Run) verify(c *Case, line []byte, sk *skimmer, m map[string]json.RawMessage) (*rowWire, map[string]json.RawMessage, error) {
	line = rowBytes(line, true)
	w, _, rerr := checkRow(line, sk)
	if rerr != nil {
		return nil, nil, r.changed(c, "the row is no longer a result row: "+rerr.msg)
	}
	got, want := w.head(), headOf(c)
	if r.opts.Outline {
		got.EvalPath = "" // not kept
	}
	switch {
	case got.TestID != want.TestID:
		return nil, nil, r.changed(c, fmt.Sprintf("expected test_id %q here, found %q", want.TestID, got.TestID))
	case got != want:
		return nil, nil, r.changed(c, fmt.Sprintf("the row of test_id %q no longer has the identity and outcome read when the run was opened", want.TestID))
	}
	m, err := r.split(c, line, sk, m, nil)
	return w, m, err
}

// split splits the row bytes of c, which Read or checkRow accepted, into
// their members, normalised (see skimmer.members: they are put in m, and
// scores[] decoded into scores when set).
func (r *Run) split(c *Case, line []byte, sk *skimmer, m map[string]json.RawMessage, scores *rowScores) (map[string]json.RawMessage, error) {
	m, err := sk.members(line, m, scores)
	if err != nil { // already decoded once
		return nil, clierr.Input(r.rel(r.Manifest), int(c.Loc.Line), "", "malformed JSON: "+err.Error(), rowHint)
	}
	normalize(m, sk.renames)
	return m, nil
}

// decodeRow decodes the members of m that encoding/json matches to the
// fields tagged tags of dst (a *rowFull) as json.Unmarshal decodes the
// whole object: only those keys are encoded again, so the big members no
// field wants (scores[] when only the answer is wanted) are not. A
// mistyped member is left unset, as in Open.
func (r *Run) decodeRow(c *Case, m map[string]json.RawMessage, tags []string, dst *rowFull) error {
	sub := make(map[string]json.RawMessage, len(tags))
	for k, v := range m {
		// json.Unmarshal matches a key to a field ignoring case, as
		// strings.EqualFold does.
		if slices.ContainsFunc(tags, func(t string) bool { return strings.EqualFold(k, t) }) {
			sub[k] = v
		}
	}
	norm, err := json.Marshal(sub)
	if err == nil {
		err = json.Unmarshal(norm, dst)
	}
	if err != nil && !errors.As(err, new(*json.UnmarshalTypeError)) {
		return clierr.Input(r.rel(r.Manifest), int(c.Loc.Line), "", "malformed JSON: "+err.Error(), rowHint)
	}
	return nil
}

// fullFields are the json tags of rowFull; textFields those the answer
// and the input are read from.
var (
	fullFields = jsonTags(reflect.TypeFor[rowFull]())
	textFields = func() []string {
		var names []string
		for _, m := range textMembers(new(rowFull)) {
			names = append(names, m.name)
		}
		return names
	}()
)

func jsonTags(t reflect.Type) []string {
	tags := make([]string, t.NumField())
	for i := range tags {
		tags[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return tags
}

// normalize renames the aliases of m to their first spelling in
// rowSpellings, keeping the first one that has a value of the field's kind
// (valueKind); null or another kind counts as absent, as in the skimmer.
// It looks at the groups set in groups (a bit per rowSpellings index):
// those of which m has an alias or a first spelling of another kind
// (skimmer.members' renames), or any more.
func normalize(m map[string]json.RawMessage, groups uint64) {
	for ; groups != 0; groups &= groups - 1 {
		names := rowSpellings[bits.TrailingZeros64(groups)]
		var win json.RawMessage
		first := false // win is m[names[0]] already
		want := valueKind(names[0])
		for i, name := range names {
			v, ok := m[name]
			if !ok {
				continue
			}
			if win == nil && jsonKind(v) == want {
				win, first = v, i == 0
			}
			if i > 0 {
				delete(m, name)
			}
		}
		switch {
		case win == nil:
			delete(m, names[0])
		case !first:
			m[names[0]] = win
		}
	}
}

// spellingGroup is the index in rowSpellings of each spelling (at most
// 64 groups: normalize keeps a set of them in a uint64; a test checks).
var spellingGroup = func() map[string]int {
	g := map[string]int{}
	for i, names := range rowSpellings {
		for _, n := range names {
			g[n] = i
		}
	}
	return g
}()

// valueKind is the kind (see jsonKind) of a rowSpellings field's value:
// a string for all but three.
func valueKind(field string) byte {
	switch field {
	case "duration_ms", "cost_usd":
		return '0'
	case "token_usage":
		return '{'
	}
	return '"'
}

// jsonKind is the kind of a JSON value by its first byte: '"', '{', '[',
// '0' (a number), 't' (a boolean) or 'n' (null).
func jsonKind(v json.RawMessage) byte {
	switch c := v[0]; {
	case c == '-' || c >= '0' && c <= '9':
		return '0'
	case c == 'f':
		return 't'
	default:
		return c
	}
}

func (d *Detail) warn(file, msg string) {
	d.Warnings = append(d.Warnings, Warning{File: file, Msg: msg})
}

// sidecars lists every *_path and *_dir field of the row with presence.
// workspace_path is absolute and outside the run: it is recorded in
// Detail.WorkspacePath, not followed.
func (r *Run) sidecars(m map[string]json.RawMessage) []Sidecar {
	var out []Sidecar
	for field := range m {
		if field == "workspace_path" || !strings.HasSuffix(field, "_path") && !strings.HasSuffix(field, "_dir") {
			continue
		}
		if sc, ok := r.sidecarOf(field, m[field]); ok {
			p, ok := r.inside(sc.Path)
			sc.Present = ok && exists(p)
			out = append(out, sc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// sidecarOf is the sidecar a row's member field of value v names (Present
// not set): none when the value is not a non-empty string.
func (r *Run) sidecarOf(field string, v json.RawMessage) (Sidecar, bool) {
	rel, ok := stringOf(v)
	if !ok || rel == "" {
		return Sidecar{}, false
	}
	p, _ := r.within(rel)
	return Sidecar{Field: field, Path: p}, true
}

// mergeGrading reads the grading.json at rel and merges it into graders
// (and, when it has no graders, its flat assertions into checks).
func (r *Run) mergeGrading(d *Detail, gs *[]Grader, cs *[]Check, field, rel string) {
	t := r.readFile(d, field, rel, 0)
	if !t.Present || t.Missing {
		return
	}
	var g graderFull
	if err := json.Unmarshal([]byte(t.Content), &g); err != nil {
		d.warn(r.rel(t.Path), "malformed grading.json, ignored: "+err.Error())
		return
	}
	list := g.Graders
	if len(list) == 0 {
		list = g.Evaluators
	}
	if len(list) == 0 {
		list = g.ComponentResults
	}
	*gs = mergeGraders(*gs, graders(list))
	if len(list) == 0 && len(*cs) == 0 {
		*cs = g.checks()
	}
}

func graders(list []graderFull) []Grader {
	if len(list) == 0 {
		return nil
	}
	out := make([]Grader, len(list))
	for i, g := range list {
		out[i] = g.grader()
	}
	return out
}

func (g graderFull) grader() Grader {
	s := GraderSummary{Name: g.Name, Type: g.Type, Score: g.Score, Weight: g.Weight, Verdict: g.Verdict, Pass: graderPass(g.Pass, g.Verdict)}
	if a := g.Assertion; a != nil {
		s.Name = firstNonEmpty(a.Name, a.ID, s.Name)
		s.Type = firstNonEmpty(a.Type, s.Type)
		if s.Weight == nil {
			s.Weight = a.Weight
		}
	}
	return Grader{GraderSummary: s, Reason: firstNonEmpty(g.Reason, g.Reasoning), Checks: g.checks(), Children: graders(g.Scores)}
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// checks lists a grader's per-check evidence, whichever shape it has.
func (g graderFull) checks() []Check {
	switch {
	case len(g.ComponentResults) > 0:
		var out []Check
		for _, c := range g.ComponentResults {
			if len(c.ComponentResults) > 0 {
				out = append(out, c.checks()...)
				continue
			}
			out = append(out, c.componentCheck())
		}
		return out
	case len(g.AssertionResults) > 0:
		return checks(g.AssertionResults)
	case len(g.Assertions) > 0:
		return checks(g.Assertions)
	case len(g.Expectations) > 0:
		return checks(g.Expectations)
	case g.Assertion != nil && g.Assertion.Value != "": // a v5 grader that is its own check
		return []Check{g.componentCheck()}
	}
	return hitsMisses(g.Hits, g.Misses)
}

// componentCheck is a v5 leaf component: assertion.value is the check's
// text (falling back like AgentV to name, id, type, then the reason).
func (g graderFull) componentCheck() Check {
	text := g.Reason
	if a := g.Assertion; a != nil {
		text = firstNonEmpty(a.Value, a.Name, a.ID, a.Type, g.Reason)
	}
	return Check{Text: firstNonEmpty(text, "grading component"), Passed: g.Pass != nil && *g.Pass, Evidence: g.Reason}
}

func checks(list []checkWire) []Check {
	if len(list) == 0 {
		return nil
	}
	out := make([]Check, len(list))
	for i, c := range list {
		out[i] = Check(c)
	}
	return out
}

func hitsMisses(hits, misses []string) []Check {
	var out []Check
	for _, h := range hits {
		out = append(out, Check{Text: h, Passed: true})
	}
	for _, m := range misses {
		out = append(out, Check{Text: m})
	}
	return out
}

// mergeGraders enriches the row's graders with grading.json's: each
// grading grader fills the gaps of the first unused row grader with the
// same name (and type when both have one); unmatched ones are appended.
// Names are not unique (two llm-rubric graders), hence "first unused".
func mergeGraders(row, grading []Grader) []Grader {
	used := make([]bool, len(row))
	for _, g := range grading {
		i := matchGrader(row, used, g)
		if i < 0 {
			row = append(row, g)
			used = append(used, true)
			continue
		}
		used[i] = true
		dst := &row[i]
		dst.Reason = firstNonEmpty(dst.Reason, g.Reason)
		if len(dst.Checks) == 0 {
			dst.Checks = g.Checks
		}
		if len(dst.Children) == 0 {
			dst.Children = g.Children
		}
		if dst.Score == nil {
			dst.Score = g.Score
		}
		if dst.Pass == nil && dst.Verdict == "" {
			dst.Pass = g.Pass
		}
	}
	return row
}

func matchGrader(row []Grader, used []bool, g Grader) int {
	for i, r := range row {
		if !used[i] && r.Name == g.Name && (r.Type == g.Type || r.Type == "" || g.Type == "") {
			return i
		}
	}
	return -1
}

// samples builds the full repeats with their graders; a repeat's own
// grading.json lives at <result_dir>/<sample_path>/grading.json.
func (r *Run) samples(d *Detail, row rowFull, dir string) []Sample {
	list, kind := pickRepeats(row.Samples, row.Attempts, row.Trials)
	var out []Sample
	for i, s := range list {
		sm := Sample{SampleSummary: s.summary(i, kind, nil), Graders: graders(s.Scores)}
		if dir != "" && sm.Path != "" && d.Case.OverwrittenBy == "" {
			var ignored []Check
			r.mergeGrading(d, &sm.Graders, &ignored, "sample_path", path.Join(dir, sm.Path, "grading.json"))
		}
		out = append(out, sm)
	}
	return out
}

// answer finds the final answer: output_path, answer_path, response_path
// (AgentV's order), read by read, else inline output / answer /
// output_text / candidate_answer.
func (r *Run) answer(row rowFull, own bool, read func(field, rel string) Text) Text {
	for _, p := range []struct{ field, rel string }{
		{"output_path", row.OutputPath}, {"answer_path", row.AnswerPath}, {"response_path", row.ResponsePath},
	} {
		if p.rel == "" {
			continue
		}
		if !own {
			return Text{Present: true, Missing: true}
		}
		t := read(p.field, p.rel)
		if !t.Missing || !hasInlineAnswer(row) {
			return t
		}
		break
	}
	for _, raw := range []json.RawMessage{row.Output, row.Answer, row.OutputText, row.CandidateAnswer} {
		if s, ok := lastAssistant(raw); ok {
			return Text{Present: true, Content: s, Size: int64(len(s))}
		}
	}
	return Text{}
}

func hasInlineAnswer(row rowFull) bool {
	return len(row.Output) > 0 || len(row.Answer) > 0 || len(row.OutputText) > 0 || len(row.CandidateAnswer) > 0
}

// input reads input_path with read, else renders an inline input.
func (r *Run) input(row rowFull, read func(field, rel string) Text) Text {
	if row.InputPath != "" {
		return read("input_path", row.InputPath)
	}
	var s string
	if json.Unmarshal(row.Input, &s) == nil && s != "" {
		return Text{Present: true, Content: s, Size: int64(len(s))}
	}
	var msgs []message
	if json.Unmarshal(row.Input, &msgs) == nil && len(msgs) > 0 {
		blocks := make([]string, 0, len(msgs))
		for _, m := range msgs {
			blocks = append(blocks, "@["+m.Role+"]:\n"+m.text())
		}
		s = strings.Join(blocks, "\n\n")
		return Text{Present: true, Content: s, Size: int64(len(s))}
	}
	return Text{}
}

// message is one chat message of an inline input or output.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message content: a string, or the text parts of an array.
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// lastAssistant reads an inline answer: a string, or a message array whose
// last assistant message is the answer.
func lastAssistant(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var msgs []message
	if json.Unmarshal(raw, &msgs) != nil {
		return "", false
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i].text(), true
		}
	}
	return "", false
}

// stripRoleBlocks unwraps "@[role]:\n..." blocks (as in response.md and
// input.md) and returns the last block of role; text without blocks is
// returned unchanged.
func stripRoleBlocks(s, role string) string {
	if !strings.HasPrefix(strings.TrimLeft(s, "\r\n"), "@[") {
		return s
	}
	var cur, last strings.Builder
	inRole, found := false, false
	for _, line := range strings.SplitAfter(s, "\n") {
		h := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(h, "@[") && strings.HasSuffix(h, "]:") {
			if inRole {
				last.Reset()
				last.WriteString(cur.String())
			}
			cur.Reset()
			inRole = h == "@["+role+"]:"
			found = found || inRole
			continue
		}
		cur.WriteString(line)
	}
	if !found {
		return s
	}
	if inRole {
		return strings.TrimRight(cur.String(), "\r\n")
	}
	return strings.TrimRight(last.String(), "\r\n")
}

// readText reads a sidecar text up to the answer limit.
func (r *Run) readText(d *Detail, field, rel string) Text {
	limit := r.opts.AnswerLimit
	if limit <= 0 {
		limit = DefaultAnswerLimit
	}
	return r.readFile(d, field, rel, limit)
}

// readFile reads the sidecar rel named by field, at most limit bytes
// (0 = all). Outside the run dir, missing or unreadable: Missing, with a
// warning for the first and last.
func (r *Run) readFile(d *Detail, field, rel string, limit int64) Text {
	return r.readFileWith(r.readIn, d, field, rel, limit)
}

// readFileWith is readFile reading the file with read.
func (r *Run) readFileWith(read reader, d *Detail, field, rel string, limit int64) Text {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	p, in, ok := r.locate(rel)
	b, size, cut, prob := r.readLocated(read, Sidecar{Field: field, Path: rel}, in, ok, limit)
	// b is the read's own buffer (for Bases, the room of a recent slot,
	// reused by a later read: see into), so the Content is its bytes, not
	// a copy of them.
	t := Text{Present: true, Path: p, Content: unsafe.String(unsafe.SliceData(b), len(b)), Truncated: cut, Size: size, dir: r.Dir}
	switch {
	case prob == nil:
		return t
	case prob.Problem == ProblemOutside:
		d.warn("", fmt.Sprintf("%s %q points outside the run directory; not followed", field, rel))
		t.Path = ""
	case prob.Problem == ProblemNotFile:
		d.warn(prob.Path, prob.Cause)
	case prob.Problem != ProblemMissing:
		d.warn(prob.Path, "cannot read: "+prob.Cause)
	}
	t.Missing = true
	return t
}

// trimPartialRune drops an incomplete UTF-8 sequence cut at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// Open opens the sidecar t was read from again, with the run's rules
// (safefile.OpenIn: nothing outside the run directory, no symlink out, no
// FIFO), to read it whole.
func (t Text) Open() (*os.File, error) {
	if t.Path == "" || t.dir == "" {
		return nil, fmt.Errorf("%w: the text was not read from a file of a run", fs.ErrNotExist)
	}
	return safefile.OpenIn(t.dir, t.Path)
}
