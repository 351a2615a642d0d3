// Package feedback is the feedback.json contract of agentv-review: the Go
// types, validation against the embedded JSON Schema (schema/feedback.schema.json),
// durable writing with history, drafts, and the per-file lock.
//
// The core of the format is exactly the schema AgentV 4.42.4 documented for
// its human review checkpoint (run_id, reviewer, timestamp, overall_notes,
// per_case[test_id, verdict, notes, evaluator_overrides, workspace_notes]).
// Everything else is an optional extension. Fields this package does not
// know are kept in Extra and written back unchanged, so amending a file
// written by a newer tool does not drop its data. (Unknown fields inside the
// extension objects, such as automated, are not kept.)
package feedback

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// SchemaVersion is the schema_version this package writes.
const SchemaVersion = "agentv-review/v1"

// Verdicts (AgentV's documented enum).
const (
	Acceptable       = "acceptable"
	NeedsImprovement = "needs_improvement"
	Incorrect        = "incorrect"
	Flaky            = "flaky"
)

// Reviewer kinds.
const (
	Human = "human"
	Agent = "agent"
)

// File is one feedback.json.
type File struct {
	RunID        string `json:"run_id"`
	Reviewer     string `json:"reviewer"`
	Timestamp    string `json:"timestamp"` // RFC 3339; see FormatTime
	OverallNotes string `json:"overall_notes,omitempty"`
	PerCase      []Case `json:"per_case"` // written as [] when empty

	SchemaVersion string   `json:"schema_version,omitempty"`
	Tool          *Tool    `json:"tool,omitempty"`
	ReviewerKind  string   `json:"reviewer_kind,omitempty"`
	Scope         *Scope   `json:"scope,omitempty"`
	RunPath       string   `json:"run_path,omitempty"`
	Previous      string   `json:"previous,omitempty"` // archived earlier version, relative to this file's folder
	Summary       *Summary `json:"summary,omitempty"`

	// Extra holds top-level fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Tool names the program that wrote a file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Scope says which cases were offered for review.
type Scope struct {
	Mode   string `json:"mode"` // suspicious, failures, all, filter or spot
	Filter string `json:"filter,omitempty"`
	// Seed and Sample reproduce a spot check's random sample of passed
	// cases (mode spot).
	Seed   *uint64 `json:"seed,omitempty"`
	Sample int     `json:"sample,omitempty"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Summary holds counts at the time of writing.
type Summary struct {
	Cases    int            `json:"cases"`
	Reviewed int            `json:"reviewed"`
	Skipped  int            `json:"skipped"`
	Verdicts map[string]int `json:"verdicts,omitempty"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Case is one per_case entry.
type Case struct {
	TestID             string            `json:"test_id"`
	Verdict            string            `json:"verdict"`
	Notes              string            `json:"notes,omitempty"`
	EvaluatorOverrides map[string]string `json:"evaluator_overrides,omitempty"` // "type:name" → note
	WorkspaceNotes     string            `json:"workspace_notes,omitempty"`

	Target        string         `json:"target,omitempty"`
	Variant       string         `json:"variant,omitempty"`
	Suite         string         `json:"suite,omitempty"`
	EvalPath      string         `json:"eval_path,omitempty"` // only when suite, test_id, target and variant do not single the case out
	Signals       []string       `json:"signals,omitempty"`
	ReviewedAt    string         `json:"reviewed_at,omitempty"`
	Reviewer      string         `json:"reviewer,omitempty"`
	ReviewerKind  string         `json:"reviewer_kind,omitempty"`
	Automated     *Automated     `json:"automated,omitempty"`
	Fingerprint   string         `json:"fingerprint,omitempty"`
	FingerprintV  int            `json:"fingerprint_version,omitempty"` // encoding of Fingerprint; absent means 1
	CarriedFrom   *CarriedFrom   `json:"carried_from,omitempty"`
	FlakyEvidence *FlakyEvidence `json:"flaky_evidence,omitempty"`
	Stale         bool           `json:"stale,omitempty"`
	TestDefect    string         `json:"test_defect,omitempty"`   // a test_defects id of prompts/review.json
	BlindVerdict  string         `json:"blind_verdict,omitempty"` // blind-first: the verdict before the machine's was revealed

	// Extra holds fields of the entry this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Automated is the machine verdict the reviewer saw.
type Automated struct {
	Score           *float64       `json:"score,omitempty"`
	Outcome         string         `json:"outcome,omitempty"` // passed, failed or errored
	ExecutionStatus string         `json:"execution_status,omitempty"`
	Graders         []GraderResult `json:"graders,omitempty"`
	Samples         string         `json:"samples,omitempty"` // "P F P"

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// GraderResult is one grader's result as shown to the reviewer and as
// hashed by Fingerprint.
type GraderResult struct {
	Key   string   `json:"key"` // "type:name"
	Score *float64 `json:"score"`
	Pass  *bool    `json:"pass"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// CarriedFrom records an earlier run's verdict that was carried forward.
type CarriedFrom struct {
	RunID      string `json:"run_id"`
	ReviewedAt string `json:"reviewed_at,omitempty"`
	Reviewer   string `json:"reviewer,omitempty"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// FlakyEvidence is why a case looks flaky: outcomes as "P F P".
type FlakyEvidence struct {
	Samples string `json:"samples,omitempty"`
	Runs    string `json:"runs,omitempty"`

	// Extra holds fields this package does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// FormatTime formats t the way this package writes timestamps:
// RFC 3339 in UTC with milliseconds.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// The aliases have the fields but not the methods, so encoding/json handles
// the known fields without recursing into MarshalJSON/UnmarshalJSON.
type (
	fileFields File
	caseFields Case
)

var (
	fileKeys = jsonKeys(reflect.TypeFor[fileFields]())
	caseKeys = jsonKeys(reflect.TypeFor[caseFields]())
)

// MarshalJSON writes the known fields in declaration order, then Extra
// sorted by key.
func (f File) MarshalJSON() ([]byte, error) {
	if f.PerCase == nil {
		f.PerCase = []Case{}
	}
	return marshalWithExtra(fileFields(f), f.Extra, fileKeys)
}

// UnmarshalJSON reads the known fields and keeps the others in Extra.
func (f *File) UnmarshalJSON(data []byte) error {
	var ff fileFields
	extra, err := unmarshalWithExtra(data, &ff, fileKeys)
	if err != nil {
		return err
	}
	*f = File(ff)
	f.Extra = extra
	return nil
}

// MarshalJSON writes the known fields in declaration order, then Extra
// sorted by key.
func (c Case) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(caseFields(c), c.Extra, caseKeys)
}

// UnmarshalJSON reads the known fields and keeps the others in Extra.
func (c *Case) UnmarshalJSON(data []byte) error {
	// An entry of known fields only is decoded into c itself; c is left
	// as it was when that fails.
	was := *c
	*c = Case{}
	if decodeKnown(data, reflect.ValueOf((*caseFields)(c)).Elem(), caseNames) {
		return nil
	}
	*c = was
	var cf caseFields
	extra, err := unmarshalByMap(data, &cf, caseKeys)
	if err != nil {
		return err
	}
	*c = Case(cf)
	c.Extra = extra
	return nil
}

// caseNames are caseFields' field numbers by JSON name, for decodeKnown.
var caseNames = fieldsOf(reflect.TypeFor[caseFields]()).byName

// jsonKeys returns the JSON names of t's fields.
func jsonKeys(t reflect.Type) map[string]bool {
	keys := make(map[string]bool, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}

func marshalWithExtra(v any, extra map[string]json.RawMessage, known map[string]bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // notes keep their < > & readable
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b.Truncate(b.Len() - 2) // "}\n"
	empty := b.Len() == 1   // "{": every known field was omitted
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if known[k] {
			continue // a known field always wins over a stray copy in Extra
		}
		key, _ := json.Marshal(k)
		if !empty {
			b.WriteByte(',')
		}
		empty = false
		b.Write(key)
		b.WriteByte(':')
		b.Write(extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// unmarshalWithExtra decodes the JSON object data into the struct dst
// points to by the exact names known, its fields' JSON names, and returns
// the other members (the last of a repeated key), nil when there are none.
// An object of known names only, each once, is decoded in one pass
// (decodeKnown); any other input as unmarshalByMap does.
func unmarshalWithExtra(data []byte, dst any, known map[string]bool) (map[string]json.RawMessage, error) {
	if v := reflect.ValueOf(dst).Elem(); decodeKnown(data, v, fieldsOf(v.Type()).byName) {
		return nil, nil
	}
	return unmarshalByMap(data, dst, known)
}

// unmarshalByMap is unmarshalWithExtra the slow way: data is decoded into
// a map of raw values, and the known ones again into dst.
func unmarshalByMap(data []byte, dst any, known map[string]bool) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	fields := make(map[string]json.RawMessage, len(all))
	for k, v := range all {
		if known[k] {
			fields[k] = v
			delete(all, k)
		}
	}
	if len(all) > 0 {
		// encoding/json also matches names case-insensitively ("Per_Case"
		// would fill per_case); the schema does not: decode the exact names only.
		var err error
		if data, err = json.Marshal(fields); err != nil {
			return nil, err
		}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// decodeKnown decodes data into the struct v as json.Unmarshal does, when
// data is a JSON object whose every member names a field exactly (byName:
// field numbers by JSON name) and whose values all decode: what
// unmarshalWithExtra does the slow way then. It reports false for any other
// input (an unknown or escaped key, a value of the wrong type, bytes that
// are not JSON, more than 32 members), having changed nothing when a key
// is at fault. (Past a bad value of bytes that are not JSON, some fields
// may be set: encoding/json passes UnmarshalJSON JSON only, and
// Case.UnmarshalJSON, which apply calls on any line, puts the Case back.)
// A plain string (ASCII without escapes) of a string field is taken as it
// is, all of them in one allocation; any other value is decoded by
// json.Unmarshal into its field, which checks it.
func decodeKnown(data []byte, v reflect.Value, byName map[string]int) bool {
	if len(data) > maxDepth && !json.Valid(data) {
		return false // the values may be JSON while data nests too deep
	}
	// First the members (a repeated key decodes again into its field, as
	// with encoding/json), then their values.
	var members [32]struct {
		field, start, end int  // the value is data[start:end]
		plain             bool // a string without escapes
	}
	n, plainBytes := 0, 0
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	if i = skipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i == len(data) || data[i] != '"' || n == len(members) {
			return false
		}
		end := i + 1 + plain(data[i+1:])
		if end == len(data) || data[end] != '"' {
			return false
		}
		f, ok := byName[string(data[i+1:end])]
		if !ok {
			return false
		}
		if i = skipSpace(data, end+1); i == len(data) || data[i] != ':' {
			return false
		}
		m := &members[n]
		n++
		m.field, m.start = f, skipSpace(data, i+1)
		if m.start < len(data) && data[m.start] == '"' {
			m.end = m.start + 1 + plain(data[m.start+1:])
			if m.plain = m.end < len(data) && data[m.end] == '"'; m.plain {
				m.end++
				plainBytes += m.end - m.start - 2
			}
		}
		if !m.plain {
			m.end = skipValue(data, m.start)
		}
		if i = skipSpace(data, m.end); i == len(data) {
			return false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return false
		}
		i = skipSpace(data, i+1)
	}
	if skipSpace(data, i+1) != len(data) {
		return false
	}
	var strs strings.Builder // the plain strings, each a part of strs.String()
	strs.Grow(plainBytes)
	for _, m := range members[:n] {
		field := v.Field(m.field)
		if m.plain && field.Type() == stringType {
			at := strs.Len()
			strs.Write(data[m.start+1 : m.end-1])
			field.SetString(strs.String()[at:])
		} else if json.Unmarshal(data[m.start:m.end], field.Addr().Interface()) != nil {
			return false
		}
	}
	return true
}

var stringType = reflect.TypeFor[string]()

// The extension objects decode by exact field names too, keeping unknown
// ones in Extra: encoding/json alone would let "MODE" fill mode, so a file
// the schema accepts could fail to load. They marshal known fields first,
// then Extra.
func (t Tool) MarshalJSON() ([]byte, error) { type plain Tool; return encodeExact(plain(t), t.Extra) }
func (t *Tool) UnmarshalJSON(b []byte) error {
	type plain Tool
	return decodeExact(b, (*plain)(t), &t.Extra)
}
func (s Scope) MarshalJSON() ([]byte, error) { type plain Scope; return encodeExact(plain(s), s.Extra) }
func (s *Scope) UnmarshalJSON(b []byte) error {
	type plain Scope
	return decodeExact(b, (*plain)(s), &s.Extra)
}
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return encodeExact(plain(s), s.Extra)
}
func (s *Summary) UnmarshalJSON(b []byte) error {
	type plain Summary
	return decodeExact(b, (*plain)(s), &s.Extra)
}
func (a Automated) MarshalJSON() ([]byte, error) {
	type plain Automated
	return encodeExact(plain(a), a.Extra)
}
func (a *Automated) UnmarshalJSON(b []byte) error {
	type plain Automated
	return decodeExact(b, (*plain)(a), &a.Extra)
}
func (g GraderResult) MarshalJSON() ([]byte, error) {
	type plain GraderResult
	return encodeExact(plain(g), g.Extra)
}
func (g *GraderResult) UnmarshalJSON(b []byte) error {
	type plain GraderResult
	return decodeExact(b, (*plain)(g), &g.Extra)
}
func (c CarriedFrom) MarshalJSON() ([]byte, error) {
	type plain CarriedFrom
	return encodeExact(plain(c), c.Extra)
}
func (c *CarriedFrom) UnmarshalJSON(b []byte) error {
	type plain CarriedFrom
	return decodeExact(b, (*plain)(c), &c.Extra)
}
func (f FlakyEvidence) MarshalJSON() ([]byte, error) {
	type plain FlakyEvidence
	return encodeExact(plain(f), f.Extra)
}
func (f *FlakyEvidence) UnmarshalJSON(b []byte) error {
	type plain FlakyEvidence
	return decodeExact(b, (*plain)(f), &f.Extra)
}

// exactKeys caches jsonKeys per type for encodeExact and decodeExact.
var exactKeys sync.Map // reflect.Type → map[string]bool

func keysOf[T any]() map[string]bool {
	t := reflect.TypeFor[T]()
	keys, ok := exactKeys.Load(t)
	if !ok {
		keys, _ = exactKeys.LoadOrStore(t, jsonKeys(t))
	}
	return keys.(map[string]bool)
}

func encodeExact[T any](v T, extra map[string]json.RawMessage) ([]byte, error) {
	return marshalWithExtra(v, extra, keysOf[T]())
}

// decodeExact decodes data into dst by exact JSON names, the others into extra.
func decodeExact[T any](data []byte, dst *T, extra *map[string]json.RawMessage) error {
	var err error
	*extra, err = unmarshalWithExtra(data, dst, keysOf[T]())
	return err
}
