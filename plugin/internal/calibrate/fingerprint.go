package calibrate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// GraderDef is what defines a grader's verdict: the fields of one assertion
// of a task bundle's EVAL.yaml (4.42.4 `<suite>/<test>/task/EVAL.yaml`
// `assertions[]`; v5 `<case>/test/EVAL.yaml` `assert[]`). Leave a field
// empty when the bundle does not record it.
//
// Only fields that can change the grader's pass/fail on a case count.
// The assertion's top-level weight does not (it scales the grader's share
// of the case score, not its verdict), nor do cwd or the case's own data
// (criteria, input, expected_output): they are what a grader reads, and
// counting them would split one judge into one configuration per case.
type GraderDef struct {
	Type   string // "contains", "llm-grader", ...
	Name   string // the assertion's name (v5: metric)
	Value  string // value or pattern, byte for byte
	Negate bool
	// Required is the assertion's required as written: "true", a minimum
	// score such as "0.8", or "" when absent or false.
	Required string
	Prompt   string       // the judge's own prompt text
	Rubrics  []RubricItem // rubric items, in order
	Target   string       // judge target
	Model    string       // judge model, where recorded (targets.yaml)
	Command  []string     // a code grader's command
	// Params holds the remaining type-specific settings decoded from the
	// assertion, by key: config, threshold, budget, aggregator, the
	// assertions of a composite, ... Values must marshal to JSON.
	Params map[string]any
}

// RubricItem is one rubric criterion. Inside a rubric, weight and required
// decide the grader's verdict, so they count.
type RubricItem struct {
	ID       string
	Outcome  string
	Operator string
	Weight   float64
	Required string // as GraderDef.Required
}

// Fingerprint identifies a grader configuration: "sha256:" + the hex
// SHA-256 of the canonical encoding of def. The encoding is the JSON object
//
//	{"v":1,"type":…,"name":…,"value":…,"negate":…,"required":…,
//	 "prompt":…,"rubrics":[{"id":…,"outcome":…,"operator":…,"weight":…,"required":…}],
//	 "target":…,"model":…,"command":[…],"params":{…}}
//
// in that key order, each member left out when empty (so a field added in a
// later version leaves earlier fingerprints unchanged), params with sorted
// keys. Normalised first: type, name, target, model, ids and operators are
// trimmed; prompt and rubric outcomes have every run of white space
// collapsed to one space and are trimmed, so re-wrapping a prompt is not a
// new configuration; required "false" is ""; the word "undefined", which
// 4.42.4 writes for an unset prompt or target, is "". Value and command stay
// byte for byte: a space in a contains value changes what it matches.
func Fingerprint(def GraderDef) (string, error) {
	type rubric struct {
		ID       string  `json:"id,omitempty"`
		Outcome  string  `json:"outcome,omitempty"`
		Operator string  `json:"operator,omitempty"`
		Weight   float64 `json:"weight,omitempty"`
		Required string  `json:"required,omitempty"`
	}
	canon := struct {
		V        int            `json:"v"`
		Type     string         `json:"type,omitempty"`
		Name     string         `json:"name,omitempty"`
		Value    string         `json:"value,omitempty"`
		Negate   bool           `json:"negate,omitempty"`
		Required string         `json:"required,omitempty"`
		Prompt   string         `json:"prompt,omitempty"`
		Rubrics  []rubric       `json:"rubrics,omitempty"`
		Target   string         `json:"target,omitempty"`
		Model    string         `json:"model,omitempty"`
		Command  []string       `json:"command,omitempty"`
		Params   map[string]any `json:"params,omitempty"`
	}{
		V: 1, Type: trim(def.Type), Name: trim(def.Name), Value: def.Value, Negate: def.Negate,
		Required: required(def.Required), Prompt: squash(def.Prompt), Target: trim(def.Target),
		Model: trim(def.Model), Command: def.Command, Params: def.Params,
	}
	for _, r := range def.Rubrics {
		canon.Rubrics = append(canon.Rubrics, rubric{
			ID: trim(r.ID), Outcome: squash(r.Outcome), Operator: trim(r.Operator),
			Weight: r.Weight, Required: required(r.Required),
		})
	}
	b, err := json.Marshal(canon)
	if err != nil {
		return "", fmt.Errorf("grader %s:%s: params: %w", def.Type, def.Name, err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// trim trims s and maps the JavaScript placeholder "undefined" to "".
func trim(s string) string {
	s = strings.TrimSpace(s)
	if s == "undefined" {
		return ""
	}
	return s
}

// squash collapses every run of white space to one space, then trims.
func squash(s string) string { return trim(strings.Join(strings.Fields(s), " ")) }

func required(s string) string {
	if s = trim(s); s == "false" {
		return ""
	}
	return s
}
