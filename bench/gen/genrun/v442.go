package genrun

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// row442 is an index.jsonl row as AgentV 4.42.4 writes it.
type row442 struct {
	Timestamp         string             `json:"timestamp"`
	TestID            string             `json:"test_id"`
	Suite             string             `json:"suite"`
	Category          string             `json:"category"`
	Score             float64            `json:"score"`
	Target            string             `json:"target"`
	TokenUsage        *tokenUsage        `json:"token_usage,omitempty"`
	CostUSD           float64            `json:"cost_usd,omitempty"`
	DurationMS        int                `json:"duration_ms,omitempty"`
	Scores            []score442         `json:"scores,omitempty"`
	ExecutionStatus   string             `json:"execution_status"`
	Error             string             `json:"error,omitempty"`
	FailureStage      string             `json:"failure_stage,omitempty"`
	FailureReasonCode string             `json:"failure_reason_code,omitempty"`
	ArtifactDir       string             `json:"artifact_dir"`
	GradingPath       string             `json:"grading_path"`
	TimingPath        string             `json:"timing_path"`
	OutputPath        string             `json:"output_path"`
	AnswerPath        string             `json:"answer_path"`
	TranscriptPath    string             `json:"transcript_path"`
	InputPath         string             `json:"input_path"`
	ResponsePath      string             `json:"response_path"`
	TaskDir           string             `json:"task_dir"`
	EvalPath          string             `json:"eval_path"`
	TargetsPath       string             `json:"targets_path"`
	GradersPath       string             `json:"graders_path,omitempty"`
	Identity          projectionIdentity `json:"projection_identity"`
	ExportMetadata    exportMetadata     `json:"export_metadata"`
	Experiment        string             `json:"experiment"`
}

type score442 struct {
	Name       string      `json:"name"`
	Type       string      `json:"type"`
	Score      float64     `json:"score"`
	Weight     float64     `json:"weight"`
	Verdict    string      `json:"verdict"`
	Assertions []assertion `json:"assertions"`
	Input      any         `json:"input,omitempty"`
	Target     string      `json:"target,omitempty"`
	DurationMS int         `json:"duration_ms"`
	StartedAt  string      `json:"started_at"`
	EndedAt    string      `json:"ended_at"`
}

type assertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence,omitempty"`
}

// grading442 is <suite>/<test_id>/grading.json.
type grading442 struct {
	Assertions       []gradingAssertion `json:"assertions"`
	Summary          gradingSummary     `json:"summary"`
	ExecutionMetrics executionMetrics   `json:"execution_metrics"`
	Graders          []gradingGrader    `json:"graders,omitempty"`
}

type gradingAssertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

type gradingSummary struct {
	Passed   int     `json:"passed"`
	Failed   int     `json:"failed"`
	Total    int     `json:"total"`
	PassRate float64 `json:"pass_rate"`
}

type executionMetrics struct {
	ToolCalls         struct{} `json:"tool_calls"`
	TotalToolCalls    int      `json:"total_tool_calls"`
	ErrorsEncountered int      `json:"errors_encountered"`
}

type gradingGrader struct {
	Name       string      `json:"name"`
	Type       string      `json:"type"`
	Score      float64     `json:"score"`
	Reasoning  string      `json:"reasoning"`
	Weight     float64     `json:"weight"`
	Verdict    string      `json:"verdict"`
	Assertions []assertion `json:"assertions"`
}

type timing struct {
	TotalTokens          int         `json:"total_tokens"`
	DurationMS           int         `json:"duration_ms"`
	TotalDurationSeconds float64     `json:"total_duration_seconds"`
	TokenUsage           timingUsage `json:"token_usage"`
}

type timingUsage struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
}

type benchmark442 struct {
	Metadata         benchmarkMetadata    `json:"metadata"`
	RunSummary       map[string]targetRun `json:"run_summary"`
	PerGraderSummary map[string]meanStd   `json:"per_grader_summary"`
	Notes            []string             `json:"notes"`
}

type benchmarkMetadata struct {
	EvalFile         string   `json:"eval_file"`
	Timestamp        string   `json:"timestamp"`
	Targets          []string `json:"targets"`
	TestsRun         []string `json:"tests_run"`
	Experiment       string   `json:"experiment"`
	PlannedTestCount int      `json:"planned_test_count"`
}

type targetRun struct {
	PassRate    meanStd `json:"pass_rate"`
	TimeSeconds meanStd `json:"time_seconds"`
	Tokens      meanStd `json:"tokens"`
	CostUSD     meanStd `json:"cost_usd"`
}

// artifactDir is <suite>/<test_id>: shared by every target of a test, as in
// 4.42.4 (the last target written wins).
func (r *row) artifactDir() string { return r.suite + "/" + r.testID }

func (p *planner) row442(r *row, run string, line int) row442 {
	d := r.artifactDir()
	out := row442{
		Timestamp: isoTime(r.at), TestID: r.testID, Suite: r.suite, Category: "Uncategorized",
		Score: r.score, Target: r.target, ExecutionStatus: r.status,
		Error: r.errMsg, FailureStage: r.failureStage, FailureReasonCode: r.failureCode,
		ArtifactDir: d, GradingPath: d + "/grading.json", TimingPath: d + "/timing.json",
		OutputPath: d + "/outputs/answer.md", AnswerPath: d + "/outputs/answer.md",
		TranscriptPath: d + "/outputs/transcript.jsonl", InputPath: d + "/input.md",
		ResponsePath: d + "/outputs/response.md", TaskDir: d + "/task",
		EvalPath: d + "/task/EVAL.yaml", TargetsPath: d + "/task/targets.yaml",
		Identity: r.identity(run, line), ExportMetadata: updatePolicy, Experiment: "default",
	}
	if r.failureStage == "agent" {
		return out // agent-stage errors carry no scores, usage or duration
	}
	out.TokenUsage = &tokenUsage{Input: r.tokensIn, Output: r.tokensOut}
	out.CostUSD = r.costUSD
	out.DurationMS = r.durationMS
	for i, g := range r.graders {
		start, end, ms := r.graderTimes(i)
		out.Scores = append(out.Scores, score442{
			Name: g.name, Type: g.typ, Score: g.score, Weight: g.weight, Verdict: g.verdict,
			Assertions: assertions(g.checks), Input: p.graderInput(r, g), Target: graderTarget(g),
			DurationMS: ms, StartedAt: start, EndedAt: end,
		})
		if g.typ == "code-grader" {
			out.GradersPath = d + "/task/graders"
		}
	}
	return out
}

func assertions(cs []check) []assertion {
	out := make([]assertion, len(cs))
	for i, c := range cs {
		out[i] = assertion{Text: c.text, Passed: c.passed, Evidence: c.evidence}
	}
	return out
}

func grading442For(r *row) grading442 {
	var g grading442
	if r.failureStage == "agent" {
		g.Assertions = []gradingAssertion{{Text: "Error: " + r.errMsg}}
	}
	for _, gr := range r.graders {
		g.Graders = append(g.Graders, gradingGrader{
			Name: gr.name, Type: gr.typ, Score: gr.score, Weight: gr.weight,
			Verdict: gr.verdict, Assertions: assertions(gr.checks),
		})
		for _, c := range gr.checks {
			g.Assertions = append(g.Assertions, gradingAssertion{Text: c.text, Passed: c.passed, Evidence: c.evidence})
		}
	}
	for _, a := range g.Assertions {
		if a.Passed {
			g.Summary.Passed++
		}
	}
	g.Summary.Total = len(g.Assertions)
	g.Summary.Failed = g.Summary.Total - g.Summary.Passed
	g.Summary.PassRate = round3(float64(g.Summary.Passed) / float64(max(g.Summary.Total, 1)))
	if r.status == statusError {
		g.ExecutionMetrics.ErrorsEncountered = 1
	}
	return g
}

func (r *row) timing() timing {
	return timing{
		TotalTokens: r.tokensIn + r.tokensOut, DurationMS: r.durationMS,
		TotalDurationSeconds: float64(r.durationMS) / 1000,
		TokenUsage:           timingUsage{Input: r.tokensIn, Output: r.tokensOut},
	}
}

// Write442 writes an AgentV 4.42.4 run into dir (the run id is dir's base
// name): index.jsonl, benchmark.json, timing.json and, per test,
// <suite>/<test_id>/{grading.json,timing.json,input.md,outputs/answer.md,outputs/response.md}.
func Write442(dir string, o Options) (Stats, error) {
	p, rows := plan(o, false)
	run := runID(dir)
	if err := emptyDir(dir); err != nil {
		return Stats{}, err
	}
	st := count(rows, false)
	st.Manifest = filepath.Join(dir, "index.jsonl")
	var err error
	st.ManifestBytes, err = writeManifest(st.Manifest, rows, func(r *row, seq int) any { return p.row442(r, run, seq) })
	if err != nil {
		return st, err
	}
	// The last row naming a folder owns its sidecars.
	owner := map[string]*row{}
	for _, r := range rows {
		owner[r.artifactDir()] = r
	}
	var sidecars []*row
	for _, r := range rows {
		if owner[r.artifactDir()] == r {
			sidecars = append(sidecars, r)
		}
	}
	for _, s := range suites {
		if err := os.MkdirAll(filepath.Join(dir, s), 0o755); err != nil {
			return st, err
		}
	}
	if st.AnswerBytes, err = sumParallel(sidecars, func(r *row) (int64, error) { return p.writeSidecars442(dir, r) }); err != nil {
		return st, err
	}
	if err := writeJSON(filepath.Join(dir, "benchmark.json"), benchmarkFor(rows)); err != nil {
		return st, err
	}
	return st, writeJSON(filepath.Join(dir, "timing.json"), runTiming(rows))
}

// writeSidecars442 writes one test folder and returns the answer's size.
func (p *planner) writeSidecars442(dir string, r *row) (int64, error) {
	d := filepath.Join(dir, filepath.FromSlash(r.artifactDir()))
	if err := mkdirs(d, filepath.Join(d, "outputs")); err != nil {
		return 0, err
	}
	if err := writeJSON(filepath.Join(d, "grading.json"), grading442For(r)); err != nil {
		return 0, err
	}
	if err := writeJSON(filepath.Join(d, "timing.json"), r.timing()); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(d, "input.md"), []byte("@[user]:\n"+r.question()), 0o644); err != nil {
		return 0, err
	}
	answer := []byte("Error occurred: " + r.errMsg)
	if r.failureStage != "agent" {
		answer = []byte(p.answer(r))
	}
	for _, name := range []string{"answer.md", "response.md"} {
		if err := os.WriteFile(filepath.Join(d, "outputs", name), answer, 0o644); err != nil {
			return 0, err
		}
	}
	return int64(len(answer)), nil
}

func benchmarkFor(rows []*row) benchmark442 {
	b := benchmark442{
		Metadata: benchmarkMetadata{
			EvalFile: "/home/user/demo-project/evals/*.eval.yaml",
			Targets:  targets, Experiment: "default",
		},
		RunSummary:       map[string]targetRun{},
		PerGraderSummary: map[string]meanStd{},
		Notes:            []string{},
	}
	type acc struct{ pass, secs, tokens, cost stat }
	perTarget := map[string]*acc{}
	perGrader := map[string]*stat{}
	seen := map[string]bool{}
	errored := 0
	for _, r := range rows {
		if r.superseded {
			continue
		}
		b.Metadata.Timestamp = isoTime(r.at)
		if !seen[r.testID] {
			seen[r.testID] = true
			b.Metadata.TestsRun = append(b.Metadata.TestsRun, r.testID)
		}
		a := perTarget[r.target]
		if a == nil {
			a = &acc{}
			perTarget[r.target] = a
		}
		a.secs.add(float64(r.durationMS) / 1000)
		a.tokens.add(float64(r.tokensIn + r.tokensOut))
		a.cost.add(r.costUSD)
		if r.status == statusError {
			errored++
			continue
		}
		a.pass.add(r.score)
		for _, g := range r.graders {
			k := g.name + ":" + g.typ
			if perGrader[k] == nil {
				perGrader[k] = &stat{}
			}
			perGrader[k].add(g.score)
		}
	}
	slices.Sort(b.Metadata.TestsRun)
	b.Metadata.PlannedTestCount = len(b.Metadata.TestsRun)
	for t, a := range perTarget {
		b.RunSummary[t] = targetRun{a.pass.summary(), a.secs.summary(), a.tokens.summary(), a.cost.summary()}
	}
	for k, s := range perGrader {
		b.PerGraderSummary[k] = s.summary()
	}
	if errored > 0 {
		b.Notes = append(b.Notes, strconv.Itoa(errored)+" test(s) had execution errors and are excluded from quality pass_rate")
	}
	return b
}

func runTiming(rows []*row) timing {
	var t timing
	for _, r := range rows {
		t.TokenUsage.Input += r.tokensIn
		t.TokenUsage.Output += r.tokensOut
		t.DurationMS += r.durationMS
	}
	t.TotalTokens = t.TokenUsage.Input + t.TokenUsage.Output
	t.TotalDurationSeconds = float64(t.DurationMS) / 1000
	return t
}
