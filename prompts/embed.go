// Package prompts embeds review.json, the single source of the guided
// review's wording: the six signals, the verdicts, and every question with
// its help text. The session, --help, the docs and the JSON Schema are all
// checked against it by tests.
package prompts

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Raw is the embedded review.json, byte for byte.
//
//go:embed review.json
var Raw []byte

// Choice is one selectable answer: a verdict, a signal or an action.
type Choice struct {
	ID      string `json:"id"`      // machine value written to feedback.json
	Label   string `json:"label"`   // short label shown in lists
	Meaning string `json:"meaning"` // one line: what choosing it means
	Example string `json:"example,omitempty"`
}

// Question is one prompt's wording.
type Question struct {
	Message string `json:"message"`
	Help    string `json:"help"`
}

// Catalog is the parsed review.json.
type Catalog struct {
	Signals  []Choice `json:"signals"`
	Verdicts []Choice `json:"verdicts"`
	Actions  []Choice `json:"actions"` // non-verdict answers to the verdict question (skip, quit, back, goto, open, keys)
	Scopes   []Choice `json:"scopes"`  // what to review: suspicious, failures, all, filter, spot
	// TestDefects are the ways the test itself can be wrong (per_case
	// test_defect), apart from the agent's verdict.
	TestDefects []Choice            `json:"test_defects"`
	Questions   map[string]Question `json:"questions"` // keyed by question id
}

var (
	once    sync.Once
	catalog *Catalog
	loadErr error
)

// Load parses the embedded catalog once. The embedded file is checked by
// tests, so an error here means a broken build.
func Load() (*Catalog, error) {
	once.Do(func() {
		var c Catalog
		if err := json.Unmarshal(Raw, &c); err != nil {
			loadErr = fmt.Errorf("prompts/review.json: %w", err)
			return
		}
		catalog = &c
	})
	return catalog, loadErr
}

// Q returns the question with id, or a visible placeholder when the
// catalog lacks it (a test guarantees every id the session uses exists).
func (c *Catalog) Q(id string) Question {
	if q, ok := c.Questions[id]; ok {
		return q
	}
	return Question{Message: "[missing prompt " + id + "]"}
}

// IDs returns the ids of choices, in order.
func IDs(choices []Choice) []string {
	out := make([]string, len(choices))
	for i, ch := range choices {
		out[i] = ch.ID
	}
	return out
}
