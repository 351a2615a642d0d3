package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"

	"go.yaml.in/yaml/v3"
)

// Task is what the test asked: the criteria, the expected output and each
// assertion's configuration, read from the per-test bundle the run keeps
// (4.42.4 <suite>/<test>/task/EVAL.yaml, v5 <case>/test/EVAL.yaml) and from
// the grader prompts embedded in the row (4.42.4 llm-grader
// scores[].input.userPrompt sections). All text is raw: sanitise it.
type Task struct {
	Source     string         `json:"source,omitempty"` // EVAL.yaml as the row names it, "" when none
	Criteria   string         `json:"criteria,omitempty"`
	Input      string         `json:"input,omitempty"`    // the test's input, rendered as "@[role]:" blocks when a conversation
	Expected   string         `json:"expected,omitempty"` // expected_output / reference answer
	Assertions []Assertion    `json:"assertions,omitempty"`
	Graders    []GraderRecord `json:"graders,omitempty"` // what the row recorded per grader, index-aligned with Detail.Graders
	// Tags are the test's metadata.tags (the holdout tag lives there): of
	// the test with the case's id, or of the file's only test.
	Tags     []string      `json:"tags,omitempty"`
	Problems []FileProblem `json:"problems,omitempty"`

	// FileChanges is the workspace diff an llm-grader saw (4.42.4's only
	// copy of it: the "[[ ## file_changes ## ]]" prompt section).
	FileChanges string `json:"-"`
}

// Assertion is one assertion as the test configured it.
type Assertion struct {
	Name     string      `json:"name,omitempty"` // name, v5 metric, or id
	Type     string      `json:"type,omitempty"`
	Value    string      `json:"value,omitempty"` // value or pattern (non-strings as compact JSON)
	Negate   bool        `json:"negate,omitempty"`
	Required string      `json:"required,omitempty"` // "true", or a minimum score; "" when not a gate
	Weight   *float64    `json:"weight,omitempty"`
	Settings []Setting   `json:"settings,omitempty"` // thresholds, budgets, command, config, target, ... sorted by key
	Rubrics  []Rubric    `json:"rubrics,omitempty"`
	Children []Assertion `json:"children,omitempty"` // composite / assert-set members
}

// Setting is one more key of an assertion's configuration.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"` // compact JSON unless a plain string
}

// Rubric is one rubric item of an llm-grader / llm-rubric assertion.
type Rubric struct {
	ID       string   `json:"id,omitempty"`
	Outcome  string   `json:"outcome,omitempty"`
	Operator string   `json:"operator,omitempty"`
	Weight   *float64 `json:"weight,omitempty"`
	Required bool     `json:"required"` // AgentV's default is true
}

// GraderRecord is what a row's scores[] entry kept beyond its verdict:
// the grader's structured details (e.g. syllable counts) and, for
// composites, its children.
type GraderRecord struct {
	Name     string         `json:"name,omitempty"`
	Type     string         `json:"type,omitempty"`
	Details  string         `json:"details,omitempty"` // compact JSON, "" when none
	Children []GraderRecord `json:"children,omitempty"`
}

// FileProblem is a sidecar that the row names but that could not be read.
type FileProblem struct {
	Field   string `json:"field,omitempty"` // row field, e.g. "eval_path"
	Path    string `json:"path"`            // as the row names it
	Problem string `json:"problem"`         // ProblemMissing, ProblemUnreadable, ProblemOutside, ProblemNotFile, ProblemMalformed
	Cause   string `json:"cause,omitempty"` // the OS or parser error
}

// FileProblem.Problem values.
const (
	ProblemMissing    = "missing"
	ProblemUnreadable = "unreadable"
	ProblemOutside    = "outside the run directory"
	ProblemNotFile    = "not a file"
	ProblemMalformed  = "malformed"
)

func (p FileProblem) String() string {
	s := p.Path + ": " + p.Problem
	if p.Cause != "" {
		s += " (" + p.Cause + ")"
	}
	return s
}

// taskLimit caps how much of an EVAL.yaml is read.
const taskLimit = 1 << 20

// Task reads what d's test asked. A missing or unreadable bundle is a
// Problem in the Task, not an error; the error is for a row that can no
// longer be re-read.
func (r *Run) Task(d *Detail) (*Task, error) {
	var sk skimmer
	_, m, err := r.reread(d.Case, &sk)
	if err != nil {
		return nil, err
	}
	sc, named := sidecar(d, "eval_path")
	return r.task(r.readIn, nil, sc, named, d.Case.TestID, m, &sk), nil
}

// task is Task for the row members m, with the eval_path sidecar sc when
// named, its files read by read, its definition kept in defs (nil: none);
// sk decodes scores[].
func (r *Run) task(read reader, defs *evalDefs, sc Sidecar, named bool, testID string, m map[string]json.RawMessage, sk *skimmer) *Task {
	t := r.bundle(read, defs, sc, named, testID)
	scores := decodeScores(m["scores"], sk) // a mistyped scores[] is Detail's to report
	t.Graders = records(scores)
	t.fromPrompts(scores, true)
	return t
}

// testDef is task without what the row recorded per grader (Graders,
// FileChanges): the test definition a verdict rests on. The grader
// prompts, of the row's scores[] as decodeScoresIn (not full) decodes it (scores), are
// read only when the bundle lacks the criteria or the expected output.
func (r *Run) testDef(read reader, defs *evalDefs, sc Sidecar, named bool, testID string, scores func() []scoreRecord) *Task {
	t := r.bundle(read, defs, sc, named, testID)
	if t.Criteria == "" || t.Expected == "" {
		t.fromPrompts(scores(), false)
	}
	return t
}

// bundle is the part of a Task read from the EVAL.yaml sc (see task).
func (r *Run) bundle(read reader, defs *evalDefs, sc Sidecar, named bool, testID string) *Task {
	t := &Task{}
	// eval_path names the bundle's EVAL.yaml in 4.42.4 and v5; older rows
	// name the source eval file, which the run does not keep.
	if named && filepath.Base(sc.Path) == "EVAL.yaml" {
		*t = defs.get(evalKey{sc.Path, testID}, func() Task { return r.evalTask(read, sc, testID) })
	}
	return t
}

// sidecar finds the sidecar the row names in field.
func sidecar(d *Detail, field string) (Sidecar, bool) {
	for _, s := range d.Sidecars {
		if s.Field == field {
			return s, true
		}
	}
	return Sidecar{}, false
}

// reader reads at most limit bytes of a file of the run beneath its dir,
// by safefile's rules, and tells the file's size. The bytes are the
// read's own buffer: a new one, or Bases' reused room (see into), which
// readFileWith's Text then views (valid until the room is read into
// again; see Bases).
type reader func(name string, limit int64) ([]byte, int64, error)

// readIn reads name beneath the run dir (safefile.ReadAtMost).
func (r *Run) readIn(name string, limit int64) ([]byte, int64, error) {
	return safefile.ReadAtMost(r.Dir, name, limit)
}

// readSidecar reads at most limit bytes of sc. It returns the bytes, the
// file's size, whether the bytes are only its start, or why it could not.
func (r *Run) readSidecar(sc Sidecar, limit int64) (b []byte, size int64, truncated bool, prob *FileProblem) {
	return r.readSidecarWith(r.readIn, sc, limit)
}

// readSidecarWith is readSidecar reading sc with read. A symlink leading
// out of the run is refused by the read.
func (r *Run) readSidecarWith(read reader, sc Sidecar, limit int64) (b []byte, size int64, truncated bool, prob *FileProblem) {
	_, rel, ok := r.locate(sc.Path)
	return r.readLocated(read, sc, rel, ok, limit)
}

// readLocated is readSidecarWith for sc located (Run.locate) as rel, ok.
func (r *Run) readLocated(read reader, sc Sidecar, rel string, ok bool, limit int64) (b []byte, size int64, truncated bool, prob *FileProblem) {
	problem := func(kind string, err error) *FileProblem {
		p := &FileProblem{Field: sc.Field, Path: r.rel(sc.Path), Problem: kind}
		if err != nil {
			p.Cause = clierr.Cause(err)
		}
		return p
	}
	if !ok {
		return nil, 0, false, problem(ProblemOutside, nil)
	}
	b, size, err := read(rel, limit) // relative: not resolved again
	switch {
	case errors.Is(err, safefile.ErrOutside):
		return nil, 0, false, problem(ProblemOutside, nil)
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, false, problem(ProblemMissing, nil)
	case errors.As(err, new(*safefile.NotFileError)):
		return nil, 0, false, problem(ProblemNotFile, err)
	case err != nil:
		return nil, 0, false, problem(ProblemUnreadable, err)
	}
	truncated = int64(len(b)) < size
	if truncated {
		b = trimPartialRune(b)
	}
	return b, size, truncated, nil
}

// Problem says why the sidecar text t could not be read: missing, a
// permission error, outside the run; nil when t was read or has no file.
func (r *Run) Problem(d *Detail, t Text) *FileProblem {
	if !t.Missing {
		return nil
	}
	if t.Path == "" { // Detail does not follow a path outside the run
		return &FileProblem{Problem: ProblemOutside}
	}
	sc := Sidecar{Path: t.Path}
	for _, s := range d.Sidecars {
		if s.Path == t.Path {
			sc = s
		}
	}
	_, _, _, prob := r.readSidecar(sc, 0)
	return prob
}

// evalFile is an EVAL.yaml: 4.42.4 (criteria, input, expected_output,
// assertions) or v5 promptfoo style (vars, assert).
type evalFile struct {
	Tests []struct {
		ID             string               `yaml:"id"`
		Criteria       string               `yaml:"criteria"`
		Input          yaml.Node            `yaml:"input"`
		ExpectedOutput yaml.Node            `yaml:"expected_output"`
		Assertions     []yaml.Node          `yaml:"assertions"`
		Assert         []yaml.Node          `yaml:"assert"`
		Vars           map[string]yaml.Node `yaml:"vars"`
		Metadata       struct {
			Tags []string `yaml:"tags"`
		} `yaml:"metadata"`
	} `yaml:"tests"`
}

// evalTask is the part of a Task read from the EVAL.yaml sc, for testID.
func (r *Run) evalTask(read reader, sc Sidecar, testID string) Task {
	t := Task{Source: r.rel(sc.Path)}
	b, _, _, prob := r.readSidecarWith(read, sc, taskLimit)
	if prob == nil {
		prob = t.fromEval(b, testID, t.Source)
	}
	if prob != nil {
		t.Problems = []FileProblem{*prob}
	}
	return t
}

func (t *Task) fromEval(b []byte, testID, source string) *FileProblem {
	var ev evalFile
	if err := yaml.Unmarshal(b, &ev); err != nil {
		return &FileProblem{Field: "eval_path", Path: source, Problem: ProblemMalformed, Cause: err.Error()}
	}
	if len(ev.Tests) == 0 {
		return &FileProblem{Field: "eval_path", Path: source, Problem: ProblemMalformed, Cause: "no tests"}
	}
	test, found := ev.Tests[0], len(ev.Tests) == 1
	for _, x := range ev.Tests {
		if x.ID == testID {
			test, found = x, true
		}
	}
	if found {
		t.Tags = test.Metadata.Tags
	}
	t.Criteria = test.Criteria
	input, expected := test.Input, test.ExpectedOutput
	if v, ok := test.Vars["input"]; ok && input.Kind == 0 {
		input = v
	}
	if v, ok := test.Vars["expected_output"]; ok && expected.Kind == 0 {
		expected = v
	}
	if v, ok := test.Vars["criteria"]; ok && t.Criteria == "" {
		t.Criteria = conversation(&v)
	}
	t.Input, t.Expected = conversation(&input), conversation(&expected)
	for _, n := range append(test.Assertions, test.Assert...) {
		t.Assertions = append(t.Assertions, assertion(&n))
	}
	return nil
}

// conversation renders a YAML string, or a message list as "@[role]:"
// blocks (like input.md).
func conversation(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.SequenceNode:
		var msgs []struct {
			Role    string    `yaml:"role"`
			Content yaml.Node `yaml:"content"`
		}
		if n.Decode(&msgs) == nil {
			blocks := make([]string, len(msgs))
			for i, m := range msgs {
				blocks[i] = "@[" + m.Role + "]:\n" + conversation(&m.Content)
			}
			return strings.Join(blocks, "\n\n")
		}
	}
	return compact(n)
}

// compact is a YAML value as compact JSON (a plain string as itself).
func compact(n *yaml.Node) string {
	if n.Kind == 0 {
		return ""
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return n.Value
	}
	var v any
	if n.Decode(&v) != nil {
		return n.Value
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// assertion reads one assertion mapping; keys it does not model become
// Settings. AgentV's "undefined" artefacts (prompt: undefined) are dropped.
func assertion(n *yaml.Node) Assertion {
	var a Assertion
	if n.Kind != yaml.MappingNode {
		a.Value = compact(n)
		return a
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, n.Content[i+1]
		switch key {
		case "name", "metric", "id":
			if a.Name == "" || key == "name" {
				a.Name = v.Value
			}
		case "type":
			a.Type = v.Value
		case "value", "pattern":
			a.Value = compact(v)
		case "negate":
			a.Negate = v.Value == "true"
		case "required":
			if v.Value != "false" {
				a.Required = v.Value
			}
		case "weight":
			a.Weight = number(v)
		case "rubrics":
			a.Rubrics = rubrics(v)
		case "assertions", "assert":
			for _, c := range v.Content {
				a.Children = append(a.Children, assertion(c))
			}
		default:
			if s := compact(v); s != "undefined" {
				a.Settings = append(a.Settings, Setting{Key: key, Value: s})
			}
		}
	}
	sort.Slice(a.Settings, func(i, j int) bool { return a.Settings[i].Key < a.Settings[j].Key })
	return a
}

func number(n *yaml.Node) *float64 {
	var f float64
	if n.Decode(&f) != nil {
		return nil
	}
	return &f
}

func rubrics(n *yaml.Node) []Rubric {
	var out []Rubric
	for _, item := range n.Content {
		if item.Kind == yaml.ScalarNode { // a rubric may be a bare string
			out = append(out, Rubric{Outcome: item.Value, Required: true})
			continue
		}
		var w struct {
			ID       string   `yaml:"id"`
			Outcome  string   `yaml:"outcome"`
			Operator string   `yaml:"operator"`
			Weight   *float64 `yaml:"weight"`
			Required *bool    `yaml:"required"`
		}
		_ = item.Decode(&w)
		out = append(out, Rubric{ID: w.ID, Outcome: w.Outcome, Operator: w.Operator, Weight: w.Weight, Required: w.Required == nil || *w.Required})
	}
	return out
}

// scoreRecord is the part of a row's scores[] entry that Detail does not
// keep: the grader's input (llm-grader prompts) and details.
type scoreRecord struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Details json.RawMessage `json:"details"`
	Input   json.RawMessage `json:"input"`
	Scores  []scoreRecord   `json:"scores"`

	prompt []byte // Input's userPrompt (see skimmer.promptString)
}

func records(scores []scoreRecord) []GraderRecord {
	var out []GraderRecord
	for _, s := range scores {
		out = append(out, GraderRecord{Name: s.Name, Type: s.Type, Details: rawText(s.Details), Children: records(s.Scores)})
	}
	return out
}

// fromPrompts fills what the bundle lacked from the llm-grader prompts'
// "[[ ## name ## ]]" sections: criteria, reference_answer and, with
// changes, file_changes.
func (t *Task) fromPrompts(scores []scoreRecord, changes bool) {
	fields := [len(sectionNames)]*string{&t.Criteria, &t.Expected, &t.FileChanges}
	for _, s := range scores {
		var names [len(sectionNames)]string
		var dsts [len(sectionNames)]*string
		n := 0
		for i, dst := range fields {
			if *dst == "" && (changes || dst != &t.FileChanges) {
				names[n], dsts[n] = sectionNames[i], dst
				n++
			}
		}
		if n == 0 {
			return // nothing more to fill
		}
		p := promptOf(s.prompt)
		if !bytes.Contains(p.text, []byte(sectionOpen)) {
			t.fromPrompts(s.Scores, changes)
			continue
		}
		var got [len(sectionNames)]string
		p.sections(names[:n], got[:n])
		for i, dst := range dsts[:n] {
			*dst = got[i]
		}
	}
}

// sectionNames are the grader prompt sections fromPrompts reads, in the
// order of the Task fields they fill.
var sectionNames = [...]string{"criteria", "reference_answer", "file_changes"}

// prompt is a grader prompt, its sections found without decoding all of
// it when it can be: text is the JSON string's body (escapes kept, so
// escaped is set) unless the string has a \u escape, which could stand
// for a character of a section marker; then text is the decoded prompt.
// The other escapes (\n, \", ...) stand for no marker character and no
// marker character starts one, and a bad UTF-8 byte, which decoding makes
// U+FFFD, is none either: the markers are where they are in the decoded
// prompt, and a section's name is one of ours only when it is spelled
// out, so only a section's own text needs decoding (then trimming).
type prompt struct {
	quoted  []byte // the JSON string, quotes included (nil: none)
	text    []byte
	escaped bool
}

func promptOf(quoted []byte) prompt {
	if quoted == nil {
		return prompt{}
	}
	if body := quoted[1 : len(quoted)-1]; !bytes.Contains(body, []byte(`\u`)) {
		return prompt{quoted: quoted, text: body, escaped: true}
	}
	t, _ := stringOf(quoted)
	return prompt{quoted: quoted, text: []byte(t)}
}

// sections sets out[i] to promptSection of the decoded prompt for
// names[i] (at most len(sectionNames) of them), all found in one scan.
func (p prompt) sections(names, out []string) {
	var bodies [len(sectionNames)][]byte
	sectionBodies(p.text, names, bodies[:len(names)])
	for i, body := range bodies[:len(names)] {
		out[i] = p.decoded(body, names[i])
	}
}

// decoded is body, the text of section name in p.text, decoded and trimmed.
func (p prompt) decoded(body []byte, name string) string {
	if !p.escaped {
		return strings.TrimSpace(string(body))
	}
	if s, ok := unescape(body); ok {
		return strings.TrimSpace(s)
	}
	t, _ := stringOf(p.quoted) // not expected: rawString checked the escapes
	return promptSection(t, name)
}

// sectionOpen starts a grader prompt's section marker "[[ ## name ## ]]".
const sectionOpen = "[[ ## "

// promptSection is the last "[[ ## name ## ]]" section of a grader
// prompt, trimmed: the text up to the next "[[ ## " ("" when none).
func promptSection(p, name string) string {
	var body [1][]byte
	sectionBodies([]byte(p), []string{name}, body[:])
	return strings.TrimSpace(string(body[0]))
}

// sectionBodies sets bodies[i] to the last section of p named names[i],
// untrimmed (nil when none).
func sectionBodies(p []byte, names []string, bodies [][]byte) {
	for i := bytes.Index(p, []byte(sectionOpen)); i >= 0; {
		p = p[i+len(sectionOpen):]
		part := p
		if i = bytes.Index(p, []byte(sectionOpen)); i >= 0 {
			part = p[:i]
		}
		n, body, ok := bytes.Cut(part, []byte(" ## ]]"))
		for k, name := range names {
			if ok && string(n) == name {
				bodies[k] = body
			}
		}
	}
}
