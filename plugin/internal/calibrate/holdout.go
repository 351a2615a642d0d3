package calibrate

import (
	"errors"
	"fmt"
	"path"
	"slices"

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

// Is reports whether case c of run r is holdout: a glob names its test
// id, or its test definition carries HoldoutTag. The definition is read
// (Detail, then Task) only when no glob names the case; one that cannot be
// read leaves the globs to decide.
func (h Holdout) Is(r *run.Run, c *run.Case) bool {
	for _, g := range h.Globs {
		if ok, _ := path.Match(g, c.TestID); ok {
			return true
		}
	}
	d, err := r.Detail(c)
	if err != nil {
		return false
	}
	task, err := r.Task(d)
	return err == nil && task != nil && slices.Contains(task.Tags, HoldoutTag)
}
