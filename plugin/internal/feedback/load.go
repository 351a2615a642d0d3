package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/clierr"
)

// Kind names the shape of a feedback.json.
type Kind string

const (
	// KindReview is AgentV's documented review schema, which this package reads and writes.
	KindReview Kind = "agentv-review"
	// KindDashboard is AgentV's dashboard notes (v3.11–v4.42.4):
	// {"reviews":[{"test_id","comment","updated_at"}]}.
	KindDashboard Kind = "agentv-dashboard"
	// KindSkillCreator is Anthropic's skill-creator viewer:
	// {"reviews":[{"run_id","feedback","timestamp"}],"status"}.
	KindSkillCreator Kind = "skill-creator"
)

func (k Kind) describe() string {
	switch k {
	case KindDashboard:
		return "AgentV dashboard notes"
	case KindSkillCreator:
		return "skill-creator viewer notes"
	}
	return "a review"
}

// LegacyError is wrapped by the *clierr.Error Load returns for a file of a
// legacy kind; read such a file with LoadLegacy.
type LegacyError struct{ Kind Kind }

func (e *LegacyError) Error() string { return "legacy feedback file (" + string(e.Kind) + ")" }

// LegacyNote is one note from a legacy file.
type LegacyNote struct {
	TestID string // test_id (skill-creator: its run_id, which names the case)
	Note   string // comment / feedback; skill-creator's empty feedback reads "looked fine"
	Time   string // updated_at / timestamp, verbatim
	Source string // the file the note came from
}

// LooksFine is the note for skill-creator's empty feedback.
const LooksFine = "looked fine"

// Detect tells which kind of feedback file data is. Anything that is not a
// legacy shape counts as KindReview, so validation explains what is wrong.
func Detect(data []byte) Kind {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top["run_id"] != nil || top["reviews"] == nil {
		return KindReview
	}
	if top["status"] != nil {
		return KindSkillCreator
	}
	var reviews []map[string]json.RawMessage
	if json.Unmarshal(top["reviews"], &reviews) == nil && len(reviews) > 0 && reviews[0]["feedback"] != nil {
		return KindSkillCreator
	}
	return KindDashboard
}

// Load reads and validates a feedback file. Every error is a *clierr.Error
// with exit code 3 naming the file, the line and the field when known; a
// legacy file's error wraps a *LegacyError and has no hint (the caller
// knows what it offers instead), an unreadable file's wraps the os error
// (so errors.Is(err, fs.ErrNotExist) works).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &clierr.Error{Code: clierr.CodeInvalid, File: path, Msg: "cannot read feedback file: " + clierr.Cause(err), Err: err}
	}
	return parse(path, data)
}

func parse(path string, data []byte) (*File, error) {
	hint := fmt.Sprintf("run \"agentv review validate %s\" to list every problem", path)
	if k := Detect(data); k != KindReview {
		return nil, &clierr.Error{
			Code: clierr.CodeInvalid, File: path,
			Msg: "holds " + k.describe() + ", not a review (run_id, reviewer, per_case)",
			Err: &LegacyError{Kind: k},
		}
	}
	problems, err := Validate(data)
	if se, ok := errors.AsType[*SyntaxError](err); ok {
		return nil, &clierr.Error{Code: clierr.CodeInvalid, File: path, Line: se.Line, Msg: "not valid JSON: " + se.Msg, Hint: hint, Err: err}
	}
	if err != nil {
		return nil, clierr.Failure(err, "cannot validate "+path, "")
	}
	if len(problems) > 0 {
		p := problems[0]
		msg := strings.TrimPrefix(summarise(problems), p.Path+": ")
		return nil, clierr.Input(path, lineOf(data, p.Path), p.Path, msg, hint)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, clierr.Input(path, 0, "", "cannot decode: "+err.Error(), hint)
	}
	return &f, nil
}

// LoadLegacy reads the notes of a dashboard or skill-creator file. A file
// in the review format is an error: read it with Load.
func LoadLegacy(path string) ([]LegacyNote, Kind, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", &clierr.Error{Code: clierr.CodeInvalid, File: path, Msg: "cannot read feedback file: " + clierr.Cause(err), Err: err}
	}
	kind := Detect(data)
	var doc struct {
		Reviews []struct {
			TestID    string  `json:"test_id"`
			Comment   string  `json:"comment"`
			UpdatedAt string  `json:"updated_at"`
			RunID     string  `json:"run_id"`
			Feedback  *string `json:"feedback"`
			Timestamp string  `json:"timestamp"`
		} `json:"reviews"`
	}
	if kind == KindReview {
		return nil, kind, clierr.Input(path, 0, "", "not a legacy notes file", "read it as a review feedback file")
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, kind, legacyDecodeError(path, data, err)
	}
	notes := make([]LegacyNote, 0, len(doc.Reviews))
	for _, r := range doc.Reviews {
		n := LegacyNote{TestID: r.TestID, Note: r.Comment, Time: r.UpdatedAt, Source: path}
		if kind == KindSkillCreator {
			n = LegacyNote{TestID: r.RunID, Note: LooksFine, Time: r.Timestamp, Source: path}
			if r.Feedback != nil && strings.TrimSpace(*r.Feedback) != "" {
				n.Note = *r.Feedback
			}
		}
		notes = append(notes, n)
	}
	return notes, kind, nil
}

func legacyDecodeError(path string, data []byte, err error) error {
	e := clierr.Input(path, 0, "", "cannot read notes: "+err.Error(), "")
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		e.Line, _ = position(data, te.Offset)
		e.Field = te.Field
		e.Msg = "cannot read notes: expected " + te.Type.String() + ", found " + te.Value
	}
	return e
}

// lineOf returns the 1-based line where the value at a Problem path starts,
// falling back to the closest existing parent (a missing field is reported
// at its object); 0 when unknown.
func lineOf(data []byte, path string) int {
	for p := path; p != "" && p != RootPath; {
		if off := offsetOf(data, p); off >= 0 {
			line, _ := position(data, off)
			return line
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

// offsetOf returns the offset just past the first token of the value at
// path (dot-separated keys and array indexes), -1 when absent.
func offsetOf(data []byte, path string) int64 {
	type frame struct {
		array    bool
		index    int
		key      string
		wantsKey bool
	}
	var stack []frame
	current := func() string {
		parts := make([]string, len(stack))
		for i, f := range stack {
			parts[i] = f.key
			if f.array {
				parts[i] = strconv.Itoa(f.index)
			}
		}
		return strings.Join(parts, ".")
	}
	advance := func() {
		if n := len(stack); n > 0 {
			stack[n-1].index++
			stack[n-1].wantsKey = !stack[n-1].array
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if n := len(stack); n > 0 && stack[n-1].wantsKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantsKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			advance()
			continue
		}
		if len(stack) > 0 && current() == path {
			return dec.InputOffset()
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{array: tok == json.Delim('['), wantsKey: tok == json.Delim('{')})
		default:
			advance()
		}
	}
}
