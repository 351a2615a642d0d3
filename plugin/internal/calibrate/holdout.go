package calibrate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"

	"go.yaml.in/yaml/v3"

	"agentv-review/plugin/internal/run"
)

// HoldoutTag is the tag (EVAL.yaml tests[].metadata.tags, which AgentV
// copies into each row's tags) that marks a test as holdout.
const HoldoutTag = "holdout"

// Holdout decides which cases are holdout: their test carries HoldoutTag,
// or their test id matches one of Globs (path.Match syntax). Holdout cases
// reach an agent as counts only: an agent that sees them tunes the prompt
// to them, and they no longer measure how it does on cases it has not seen.
type Holdout struct {
	Globs []string
}

// ErrGlob is wrapped by NewHoldout's error for a malformed pattern.
var ErrGlob = errors.New("malformed --holdout pattern")

// NewHoldout checks the globs.
func NewHoldout(globs []string) (Holdout, error) {
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return Holdout{}, fmt.Errorf("%w %q: %v", ErrGlob, g, err)
		}
	}
	return Holdout{Globs: globs}, nil
}

// Is reports whether case c is holdout. d is c's Detail; a bundle that
// cannot be read marks nothing by tag.
func (h Holdout) Is(c *run.Case, d *run.Detail) bool {
	for _, g := range h.Globs {
		if ok, _ := path.Match(g, c.TestID); ok {
			return true
		}
	}
	return slices.Contains(testTags(d, c.TestID), HoldoutTag)
}

// tagsLimit caps how much of an EVAL.yaml testTags reads.
const tagsLimit = 1 << 20

// testTags reads tests[].metadata.tags of the test's task bundle (the
// EVAL.yaml the row's eval_path names, when it is inside the run).
func testTags(d *run.Detail, testID string) []string {
	for _, sc := range d.Sidecars {
		if sc.Field != "eval_path" || !sc.Present {
			continue
		}
		f, err := os.Open(sc.Path)
		if err != nil {
			return nil
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, tagsLimit))
		if err != nil {
			return nil
		}
		var ev struct {
			Tests []struct {
				ID       string `yaml:"id"`
				Metadata struct {
					Tags []string `yaml:"tags"`
				} `yaml:"metadata"`
			} `yaml:"tests"`
		}
		if yaml.Unmarshal(b, &ev) != nil {
			return nil
		}
		for _, t := range ev.Tests {
			if t.ID == testID || len(ev.Tests) == 1 {
				return t.Metadata.Tags
			}
		}
	}
	return nil
}
