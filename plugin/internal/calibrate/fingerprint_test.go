package calibrate

import (
	"math"
	"regexp"
	"testing"
)

// judge is the llm-grader of the fixture core/haiku
// (../shared/fixtures/agentv-4.42.4/runs/core-pass-fail-error/core/haiku/task/EVAL.yaml).
var judge = GraderDef{Type: "llm-grader", Name: "haiku-judge", Prompt: "undefined", Target: "judge-fail"}

// rubric is the first llm-rubric of the v5 fixture finance-summary-operator-guards.
var rubric = GraderDef{Type: "llm-rubric", Name: "llm-rubric", Prompt: "undefined", Rubrics: []RubricItem{
	{ID: "supported-revenue", Outcome: "States Q4 revenue increased to $10M from $8M.", Operator: "correctness", Weight: 1, Required: "true"},
	{ID: "no-margin-contradiction", Outcome: "Gross margin declined to 42% from 45%.", Operator: "contradiction", Weight: 1, Required: "true"},
}}

func fp(t *testing.T, d GraderDef) string {
	t.Helper()
	s, err := Fingerprint(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFingerprintFormat(t *testing.T) {
	if got := fp(t, judge); !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(got) {
		t.Fatalf("Fingerprint = %q", got)
	}
	// Pinned: the canonical encoding is a stored contract (certificates
	// hold these values); changing it orphans every calibration. The value
	// is sha256sum of {"v":1,"type":"contains","name":"contains-42","value":"42"}.
	const want = "sha256:a6a893d5ab73536c43183e9c003d013691565470d884351e04135c8ef334fe79"
	if got := fp(t, GraderDef{Type: "contains", Name: "contains-42", Value: "42"}); got != want {
		t.Errorf("Fingerprint(contains-42) = %s, want %s", got, want)
	}
}

func TestFingerprintSameConfiguration(t *testing.T) {
	base := fp(t, rubric)
	same := rubric
	same.Rubrics = []RubricItem{rubric.Rubrics[0], rubric.Rubrics[1]}
	same.Rubrics[0].Outcome = "  States Q4 revenue\n  increased to $10M from $8M.\n"
	same.Rubrics[1].Required = " true "
	same.Prompt = ""
	if got := fp(t, same); got != base {
		t.Error("re-wrapped outcome, padded required or an empty prompt for \"undefined\" changed the fingerprint")
	}
	j := judge
	j.Required = "false"
	if fp(t, j) != fp(t, judge) {
		t.Error(`required "false" differs from absent`)
	}
	p1 := GraderDef{Type: "code-grader", Name: "short-answer", Params: map[string]any{"config": map[string]any{"max_words": 3, "mode": "x"}}}
	p2 := GraderDef{Type: "code-grader", Name: "short-answer", Params: map[string]any{"config": map[string]any{"mode": "x", "max_words": 3.0}}}
	if fp(t, p1) != fp(t, p2) {
		t.Error("params differing only in key order or int/float spelling changed the fingerprint")
	}
}

func TestFingerprintNewConfiguration(t *testing.T) {
	base := GraderDef{Type: "contains", Name: "contains-status", Value: "status: ok", Command: []string{"node", "a.mjs"}}
	seen := map[string]string{fp(t, base): "base"}
	for name, change := range map[string]func(*GraderDef){
		"type":           func(d *GraderDef) { d.Type = "icontains" },
		"name":           func(d *GraderDef) { d.Name = "status" },
		"value spacing":  func(d *GraderDef) { d.Value = "status:  ok" },
		"negate":         func(d *GraderDef) { d.Negate = true },
		"required":       func(d *GraderDef) { d.Required = "true" },
		"prompt":         func(d *GraderDef) { d.Prompt = "Is it ok?" },
		"target":         func(d *GraderDef) { d.Target = "judge-pass" },
		"model":          func(d *GraderDef) { d.Model = "gpt-5" },
		"command":        func(d *GraderDef) { d.Command = []string{"node", "b.mjs"} },
		"params":         func(d *GraderDef) { d.Params = map[string]any{"threshold": 60000} },
		"rubric item":    func(d *GraderDef) { d.Rubrics = []RubricItem{{Outcome: "polite"}} },
		"rubric weight":  func(d *GraderDef) { d.Rubrics = []RubricItem{{Outcome: "polite", Weight: 2}} },
		"rubric require": func(d *GraderDef) { d.Rubrics = []RubricItem{{Outcome: "polite", Required: "true"}} },
	} {
		d := base
		change(&d)
		got := fp(t, d)
		if other, dup := seen[got]; dup {
			t.Errorf("changing %s gives the fingerprint of %s", name, other)
		}
		seen[got] = name
	}
}

func TestFingerprintBadParams(t *testing.T) {
	_, err := Fingerprint(GraderDef{Type: "latency", Name: "fast", Params: map[string]any{"threshold": math.Inf(1)}})
	if err == nil || !regexp.MustCompile(`grader latency:fast: params`).MatchString(err.Error()) {
		t.Errorf("err = %v, want one naming the grader and params", err)
	}
}
