package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"agentv-review/plugin/internal/caseid"

	"agentv-review/schema"
)

// summarise is the first problem, and how many more there are.
func summarise(problems []Problem) string {
	s := problems[0].String()
	if n := len(problems) - 1; n == 1 {
		s += " (and 1 more problem)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more problems)", n)
	}
	return s
}

// RootPath is the Problem path of the document itself.
const RootPath = "(root)"

// Problem is one reason a document is not a valid feedback file.
type Problem struct {
	Path string // JSON path such as "per_case.2.verdict", or RootPath
	Msg  string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// SyntaxError reports input that is not JSON at all.
type SyntaxError struct {
	Line, Column int // 1-based
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

var (
	compileOnce sync.Once
	compiled    *gojsonschema.Schema
	compileErr  error
)

// compiledSchema compiles the embedded schema once. It is draft-07 with only
// internal $refs, so compiling never touches the network.
func compiledSchema() (*gojsonschema.Schema, error) {
	compileOnce.Do(func() {
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.Validate = true
		compiled, compileErr = sl.Compile(gojsonschema.NewBytesLoader(schema.JSON))
		if compileErr != nil {
			compileErr = fmt.Errorf("embedded schema/feedback.schema.json: %w", compileErr)
		}
	})
	return compiled, compileErr
}

// Validate checks data against the feedback schema and for duplicate
// per_case entries (same suite, test_id, target and variant). It returns every
// problem, sorted by path; none means valid. The error is non-nil only
// when data is not JSON (a *SyntaxError) or the embedded schema is broken.
func Validate(data []byte) ([]Problem, error) {
	if !json.Valid(data) {
		var doc json.RawMessage
		err := json.Unmarshal(data, &doc)
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			line, col := position(data, se.Offset)
			return nil, &SyntaxError{Line: line, Column: col, Msg: se.Error()}
		}
		return nil, err
	}
	s, err := compiledSchema()
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, re := range res.Errors() {
		problems = append(problems, problemOf(re))
	}
	problems = append(problems, duplicates(data)...)
	slices.SortStableFunc(problems, func(a, b Problem) int { return comparePaths(a.Path, b.Path) })
	return problems, nil
}

// problemOf turns a schema error into a Problem. A missing required field
// is reported at the field's own path ("per_case.0.verdict") rather than
// at its parent, so the path names what to add.
func problemOf(re gojsonschema.ResultError) Problem {
	path := re.Field()
	if re.Type() == "required" {
		if prop, ok := re.Details()["property"].(string); ok {
			return Problem{Path: joinPath(path, prop), Msg: "required field is missing"}
		}
	}
	// Descriptions of some errors start with the field; the path says it.
	msg := strings.TrimPrefix(re.Description(), re.Field()+" ")
	return Problem{Path: path, Msg: lowerFirst(msg)}
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

func joinPath(parent, child string) string {
	if parent == RootPath || parent == "" {
		return child
	}
	return parent + "." + child
}

// duplicates reports per_case entries whose identity (suite, test_id,
// target, variant, eval_path) repeats an earlier entry. Fields of the wrong type decode as empty
// (encoding/json skips them and goes on); entries without a test_id are
// left to the schema.
func duplicates(data []byte) []Problem {
	var doc struct {
		PerCase []caseid.ID `json:"per_case"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
			return nil
		}
	}
	first := make(map[caseid.ID]int, len(doc.PerCase))
	var problems []Problem
	for i, c := range doc.PerCase {
		if c.TestID == "" {
			continue
		}
		if j, seen := first[c]; seen {
			problems = append(problems, Problem{
				Path: "per_case." + strconv.Itoa(i),
				Msg:  fmt.Sprintf("duplicate of per_case.%d (same suite, test_id, target and variant)", j),
			})
			continue
		}
		first[c] = i
	}
	return problems
}

// comparePaths orders paths segment by segment, numbers numerically, so
// per_case.2 sorts before per_case.10 and RootPath sorts first.
func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	if a == RootPath {
		return -1
	}
	if b == RootPath {
		return 1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		an, aerr := strconv.Atoi(as[i])
		bn, berr := strconv.Atoi(bs[i])
		var c int
		if aerr == nil && berr == nil {
			c = an - bn
		} else {
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

// position converts the offset of a *json.SyntaxError (the count of bytes
// read, so the offending byte is the one before it) into a 1-based line and
// column. At the end of the input it points at the last non-space byte.
func position(data []byte, offset int64) (line, col int) {
	end := len(bytes.TrimRight(data, " \t\r\n"))
	before := data[:max(min(int(offset), end)-1, 0)]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
