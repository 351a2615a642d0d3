package genrun

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// projectionIdentity mirrors rows' projection_identity.
type projectionIdentity struct {
	SchemaVersion string     `json:"schema_version"`
	ID            string     `json:"id"`
	Key           string     `json:"key"`
	Dimensions    dimensions `json:"dimensions"`
}

type dimensions struct {
	RunID             string  `json:"run_id"`
	Suite             string  `json:"suite"`
	EvalPath          string  `json:"eval_path"`
	TestID            string  `json:"test_id"`
	Target            string  `json:"target"`
	SourceTarget      string  `json:"source_target"`
	Attempt           int     `json:"attempt"`
	Variant           *string `json:"variant"`
	EnvelopeID        string  `json:"envelope_id"`
	TraceID           string  `json:"trace_id"`
	RootSpanID        string  `json:"root_span_id"`
	ProjectionFormat  string  `json:"projection_format"`
	ProjectionVersion string  `json:"projection_version"`
}

type exportMetadata struct {
	DuplicatePolicy string `json:"duplicate_policy"`
}

var updatePolicy = exportMetadata{DuplicatePolicy: "update"}

// sourceEval is the repository-relative eval file a case came from.
func (r *row) sourceEval() string { return "evals/" + r.suite + ".eval.yaml" }

// identity builds the projection identity. Trace ids depend on line, so an
// earlier attempt and its re-run differ here, as they do in real runs.
func (r *row) identity(runID string, line int) projectionIdentity {
	h := hexOf(runID, r.key(), strconv.Itoa(line))
	d := dimensions{
		RunID: runID, Suite: r.suite, EvalPath: r.sourceEval(), TestID: r.testID,
		Target: r.target, SourceTarget: r.target,
		EnvelopeID: "execution-trace-" + h[:20], TraceID: h[20:52], RootSpanID: h[48:64],
		ProjectionFormat: "execution_trace", ProjectionVersion: "agentv.trace.v1",
	}
	key := "agentv.projection_identity.v1:projection_format=execution_trace|projection_version=agentv.trace.v1" +
		"|run_id=" + runID + "|suite=" + r.suite + "|eval_path=" + strings.ReplaceAll(d.EvalPath, "/", "%2F") +
		"|test_id=" + r.testID + "|target=" + r.target + "|source_target=" + r.target +
		"|attempt=0|variant=~|envelope_id=" + d.EnvelopeID + "|trace_id=" + d.TraceID + "|root_span_id=" + d.RootSpanID
	return projectionIdentity{
		SchemaVersion: "agentv.projection_identity.v1",
		ID:            "agentv-prj-" + hexOf(key)[:32],
		Key:           key,
		Dimensions:    d,
	}
}

// runID is the run directory's base name, as AgentV defines it.
func runID(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// graderTimes spreads a row's graders over its last second.
func (r *row) graderTimes(i int) (start, end string, ms int) {
	ms = 1 + (r.durationMS+i*7)%900
	t := r.at.Add(time.Duration(i) * time.Second)
	return isoTime(t), isoTime(t.Add(msDuration(ms))), ms
}

type tokenUsage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

type llmInput struct {
	UserPrompt   string `json:"userPrompt"`
	SystemPrompt string `json:"systemPrompt"`
}

type codeInput struct {
	Command []string `json:"command"`
	Cwd     string   `json:"cwd"`
}

// graderInput is what AgentV records in scores[].input: the full prompt of
// an llm-grader, the command of a code-grader, nothing for the others.
func (p *planner) graderInput(r *row, g grader) any {
	switch g.typ {
	case "llm-grader":
		return llmInput{UserPrompt: p.userPrompt(r), SystemPrompt: graderSystemPrompt}
	case "code-grader":
		return codeInput{Command: []string{"node", "../graders/format-check.mjs"}, Cwd: "/home/user/demo-project/evals"}
	}
	return nil
}

// graderTarget is the target an llm-grader's judge ran on.
func graderTarget(g grader) string {
	if g.typ == "llm-grader" {
		return "grader-llm"
	}
	return ""
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
