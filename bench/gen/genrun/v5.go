package genrun

import (
	"fmt"
	"os"
	"path/filepath"
)

// rowV5 is a .internal/index.jsonl row as AgentV v5 writes it.
type rowV5 struct {
	Timestamp         string             `json:"timestamp"`
	TestID            string             `json:"test_id"`
	Suite             string             `json:"suite"`
	Category          string             `json:"category"`
	Score             float64            `json:"score"`
	Target            string             `json:"target"`
	TokenUsage        *tokenUsage        `json:"token_usage,omitempty"`
	CostUSD           float64            `json:"cost_usd,omitempty"`
	DurationMS        int                `json:"duration_ms,omitempty"`
	StartTime         string             `json:"start_time"`
	EndTime           string             `json:"end_time"`
	Scores            []scoreV5          `json:"scores,omitempty"`
	NamedScores       map[string]float64 `json:"named_scores,omitempty"`
	Provenance        string             `json:"provenance"`
	Samples           []sampleV5         `json:"samples"`
	ExecutionStatus   string             `json:"execution_status"`
	Error             string             `json:"error,omitempty"`
	FailureStage      string             `json:"failure_stage,omitempty"`
	FailureReasonCode string             `json:"failure_reason_code,omitempty"`
	ResultDir         string             `json:"result_dir"`
	GradingPath       string             `json:"grading_path,omitempty"`
	SummaryPath       string             `json:"summary_path"`
	OutputPath        string             `json:"output_path"`
	AnswerPath        string             `json:"answer_path"`
	TranscriptPath    string             `json:"transcript_path"`
	TranscriptRawPath string             `json:"transcript_raw_path"`
	MetricsPath       string             `json:"metrics_path"`
	SampleIndex       int                `json:"sample_index"`
	RetryIndex        int                `json:"retry_index"`
	TestDir           string             `json:"test_dir"`
	EvalPath          string             `json:"eval_path"`
	TargetsPath       string             `json:"targets_path"`
	Identity          projectionIdentity `json:"projection_identity"`
	ExportMetadata    exportMetadata     `json:"export_metadata"`
	Experiment        string             `json:"experiment"`
}

type scoreV5 struct {
	Name       string  `json:"name"`
	Type       string  `json:"type"`
	Pass       bool    `json:"pass"`
	Score      float64 `json:"score"`
	Reason     string  `json:"reason"`
	Weight     float64 `json:"weight"`
	Target     string  `json:"target,omitempty"`
	Input      any     `json:"input,omitempty"`
	DurationMS int     `json:"duration_ms"`
	StartedAt  string  `json:"started_at"`
	EndedAt    string  `json:"ended_at"`
}

type sampleV5 struct {
	Sample          int       `json:"sample"`
	SampleIndex     int       `json:"sample_index"`
	SamplePath      string    `json:"sample_path"`
	Score           float64   `json:"score"`
	Status          string    `json:"status"`
	Scores          []scoreV5 `json:"scores"`
	CostUSD         float64   `json:"cost_usd"`
	ExecutionStatus string    `json:"execution_status"`
}

// resultV5 is <result_dir>/sample-N/result.json.
type resultV5 struct {
	ExecutionStatus   string            `json:"execution_status"`
	Status            string            `json:"status"`
	Error             string            `json:"error,omitempty"`
	SampleIndex       int               `json:"sample_index"`
	RetryIndex        int               `json:"retry_index"`
	DurationMS        int               `json:"duration_ms"`
	DurationSeconds   float64           `json:"duration_seconds"`
	Model             string            `json:"model"`
	GradingPath       string            `json:"grading_path"`
	MetricsPath       string            `json:"metrics_path"`
	TranscriptPath    string            `json:"transcript_path"`
	TranscriptRawPath string            `json:"transcript_raw_path"`
	OutputPaths       map[string]string `json:"output_paths"`
}

// componentV5 is one level of v5's recursive grading.json.
type componentV5 struct {
	Pass             bool               `json:"pass"`
	Score            float64            `json:"score"`
	Reason           string             `json:"reason"`
	ComponentResults []componentV5      `json:"component_results,omitempty"`
	Assertion        *assertionV5       `json:"assertion,omitempty"`
	NamedScores      map[string]float64 `json:"named_scores,omitempty"`
	Metadata         map[string]any     `json:"metadata,omitempty"`
}

type assertionV5 struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Weight float64 `json:"weight"`
	Target string  `json:"target,omitempty"`
	Value  string  `json:"value,omitempty"`
}

// resultDir is <test_id-prefix>--<12 hex>, one per case.
func (r *row) resultDir() string {
	prefix := r.testID
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	return prefix + "--" + hexOf(r.key())[:12]
}

func (r *row) sampleCount() int { return max(len(r.samples), 1) }

// sampleOf returns sample i (0-based); a single-sample row is its own sample.
func (r *row) sampleOf(i int) sample {
	if len(r.samples) == 0 {
		return sample{passed: r.passed(), score: r.score, graders: r.graders}
	}
	return r.samples[i]
}

func sampleStatus(passed bool) string {
	if passed {
		return "passed"
	}
	return "failed"
}

// scoresV5 renders graders as v5 scores[]; withInput adds the recorded
// grader input (row level only: sample copies leave it out).
func (p *planner) scoresV5(r *row, gs []grader, withInput bool) []scoreV5 {
	out := make([]scoreV5, len(gs))
	for i, g := range gs {
		start, end, ms := r.graderTimes(i)
		var input any
		if withInput {
			input = p.graderInput(r, g)
		}
		reason := "Grader passed."
		if g.verdict != "pass" {
			reason = g.checks[0].text
		}
		out[i] = scoreV5{
			Name: g.name, Type: g.typ, Pass: g.verdict == "pass", Score: g.score, Reason: reason,
			Weight: g.weight, Target: graderTarget(g), Input: input, DurationMS: ms, StartedAt: start, EndedAt: end,
		}
	}
	return out
}

func (p *planner) rowV5(r *row, run string, line int) rowV5 {
	d := r.resultDir()
	first := d + "/sample-1"
	out := rowV5{
		Timestamp: isoTime(r.at), TestID: r.testID, Suite: r.suite, Category: "evals/" + r.suite,
		Score: r.score, Target: r.target, StartTime: isoTime(r.at),
		EndTime:    isoTime(r.at.Add(msDuration(r.durationMS))),
		Provenance: "native", ExecutionStatus: r.status,
		Error: r.errMsg, FailureStage: r.failureStage, FailureReasonCode: r.failureCode,
		ResultDir: d, SummaryPath: d + "/summary.json",
		OutputPath: first + "/outputs/answer.md", AnswerPath: first + "/outputs/answer.md",
		TranscriptPath: first + "/transcript.json", TranscriptRawPath: first + "/transcript-raw.jsonl",
		MetricsPath: first + "/metrics.json", TestDir: d + "/test",
		EvalPath: d + "/test/EVAL.yaml", TargetsPath: d + "/test/targets.yaml",
		Identity: r.identity(run, line), ExportMetadata: updatePolicy, Experiment: "default",
	}
	if len(r.samples) <= 1 {
		out.GradingPath = first + "/grading.json" // multi-sample rows name none
	}
	if r.failureStage != "agent" {
		out.TokenUsage = &tokenUsage{Input: r.tokensIn, Output: r.tokensOut}
		out.CostUSD = r.costUSD
		out.DurationMS = r.durationMS
		out.Scores = p.scoresV5(r, r.graders, true)
		out.NamedScores = namedScores(r.graders)
	}
	for i := range r.sampleCount() {
		s := r.sampleOf(i)
		out.Samples = append(out.Samples, sampleV5{
			Sample: i + 1, SampleIndex: i, SamplePath: fmt.Sprintf("sample-%d", i+1),
			Score: s.score, Status: sampleStatus(s.passed), Scores: p.scoresV5(r, s.graders, false),
			CostUSD: r.costUSD, ExecutionStatus: r.status,
		})
	}
	return out
}

func namedScores(gs []grader) map[string]float64 {
	m := make(map[string]float64, len(gs))
	for _, g := range gs {
		m[g.name] = g.score
	}
	return m
}

func gradingV5(r *row, s sample) componentV5 {
	top := componentV5{Pass: s.passed, Score: s.score, Reason: "All grading components passed.",
		Metadata: map[string]any{"execution_status": r.status}}
	if !s.passed {
		top.Reason = "One or more grading components failed."
	}
	if r.failureStage == "agent" {
		top.Reason = r.errMsg
		return top
	}
	top.NamedScores = namedScores(s.graders)
	for i, g := range s.graders {
		start, end, ms := r.graderTimes(i)
		c := componentV5{
			Pass: g.verdict == "pass", Score: g.score, Reason: "Grader passed.",
			Assertion: &assertionV5{Name: g.name, Type: g.typ, Weight: g.weight},
			Metadata:  map[string]any{"duration_ms": ms, "started_at": start, "ended_at": end},
		}
		if !c.Pass {
			c.Reason = "Grader failed."
		}
		for _, ch := range g.checks {
			reason := ch.evidence
			if reason == "" {
				reason = ch.text
			}
			c.ComponentResults = append(c.ComponentResults, componentV5{
				Pass: ch.passed, Score: map[bool]float64{true: 1, false: 0}[ch.passed], Reason: reason,
				Assertion: &assertionV5{Name: g.name, Type: g.typ, Weight: g.weight, Value: ch.text},
			})
		}
		top.ComponentResults = append(top.ComponentResults, c)
	}
	return top
}

// WriteV5 writes an AgentV v5 run into dir: summary.json (index_path
// ".internal/index.jsonl"), .internal/index.jsonl and, per case,
// <test_id-prefix>--<12 hex>/sample-N/{result.json,grading.json,outputs/answer.md}.
func WriteV5(dir string, o Options) (Stats, error) {
	p, rows := plan(o, true)
	run := runID(dir)
	if err := emptyDir(dir); err != nil {
		return Stats{}, err
	}
	if err := os.Mkdir(filepath.Join(dir, ".internal"), 0o755); err != nil {
		return Stats{}, err
	}
	st := count(rows, true)
	st.Manifest = filepath.Join(dir, ".internal", "index.jsonl")
	var err error
	st.ManifestBytes, err = writeManifest(st.Manifest, rows, func(r *row, seq int) any { return p.rowV5(r, run, seq) })
	if err != nil {
		return st, err
	}
	final := finalRows(rows)
	if st.AnswerBytes, err = sumParallel(final, func(r *row) (int64, error) { return p.writeSidecarsV5(dir, r) }); err != nil {
		return st, err
	}
	return st, writeJSON(filepath.Join(dir, "summary.json"), summaryFor(final, run))
}

// finalRows drops superseded rows: the rows whose sidecars are on disk.
func finalRows(rows []*row) []*row {
	out := make([]*row, 0, len(rows))
	for _, r := range rows {
		if !r.superseded {
			out = append(out, r)
		}
	}
	return out
}

// writeSidecarsV5 writes one result folder and returns the answer bytes.
func (p *planner) writeSidecarsV5(dir string, r *row) (int64, error) {
	var total int64
	rd := filepath.Join(dir, r.resultDir())
	if err := os.Mkdir(rd, 0o755); err != nil {
		return 0, err
	}
	for i := range r.sampleCount() {
		s := r.sampleOf(i)
		d := filepath.Join(rd, fmt.Sprintf("sample-%d", i+1))
		if err := mkdirs(d, filepath.Join(d, "outputs")); err != nil {
			return 0, err
		}
		res := resultV5{
			ExecutionStatus: r.status, Status: sampleStatus(s.passed), Error: r.errMsg,
			SampleIndex: i, DurationMS: r.durationMS, DurationSeconds: float64(r.durationMS) / 1000,
			Model: r.target, GradingPath: "./grading.json", MetricsPath: "./metrics.json",
			TranscriptPath: "./transcript.json", TranscriptRawPath: "./transcript-raw.jsonl",
			OutputPaths: map[string]string{"answer": "./outputs/answer.md"},
		}
		if err := writeJSON(filepath.Join(d, "result.json"), res); err != nil {
			return 0, err
		}
		if err := writeJSON(filepath.Join(d, "grading.json"), gradingV5(r, s)); err != nil {
			return 0, err
		}
		f, err := os.Create(filepath.Join(d, "outputs", "answer.md"))
		if err != nil {
			return 0, err
		}
		if r.failureStage == "agent" {
			_, err = f.WriteString("Error occurred: " + r.errMsg)
		} else {
			err = p.writeAnswer(f, r)
			total += int64(r.answerSize)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}

type summaryV5 struct {
	IndexPath     string                 `json:"index_path"`
	RunID         string                 `json:"run_id"`
	Status        map[string]statusCount `json:"status"`
	Counts        summaryCounts          `json:"counts"`
	Usage         summaryUsage           `json:"usage"`
	InfraFailures infraFailures          `json:"infra_failures"`
	Tests         []summaryTest          `json:"tests"`
	Metadata      benchmarkMetadata      `json:"metadata"`
	Notes         []string               `json:"notes"`
}

type statusCount struct {
	Count      int     `json:"count"`
	Percentage float64 `json:"percentage"`
}

type summaryCounts struct {
	TotalTests     int `json:"total_tests"`
	PassedTests    int `json:"passed_tests"`
	FailedTests    int `json:"failed_tests"`
	TotalSamples   int `json:"total_samples"`
	ErroredSamples int `json:"errored_samples"`
}

type summaryUsage struct {
	TotalTokens     int     `json:"total_tokens"`
	InputTokens     int     `json:"input_tokens"`
	OutputTokens    int     `json:"output_tokens"`
	ReasoningTokens int     `json:"reasoning_tokens"`
	CostUSD         float64 `json:"cost_usd"`
}

type infraFailures struct {
	Total   int      `json:"total"`
	Reasons []string `json:"reasons"`
}

type summaryTest struct {
	TestID        string          `json:"test_id"`
	Suite         string          `json:"suite"`
	EvalPath      string          `json:"eval_path"`
	Target        string          `json:"target"`
	TotalSamples  int             `json:"total_samples"`
	PassedSamples int             `json:"passed_samples"`
	StatusCounts  map[string]int  `json:"status_counts"`
	Samples       []summarySample `json:"samples"`
	PassRate      float64         `json:"pass_rate"`
	PassAny       bool            `json:"pass_any"`
}

type summarySample struct {
	TestID          string  `json:"test_id"`
	Suite           string  `json:"suite"`
	EvalPath        string  `json:"eval_path"`
	Target          string  `json:"target"`
	SampleIndex     int     `json:"sample_index"`
	Status          string  `json:"status"`
	Score           float64 `json:"score"`
	ExecutionStatus string  `json:"execution_status"`
	DurationMS      int     `json:"duration_ms"`
	CostUSD         float64 `json:"cost_usd"`
}

func summaryFor(final []*row, run string) summaryV5 {
	s := summaryV5{
		IndexPath: ".internal/index.jsonl", RunID: run,
		InfraFailures: infraFailures{Reasons: []string{}}, Notes: []string{},
		Metadata: benchmarkMetadata{EvalFile: "evals/*.eval.yaml", Targets: targets, Experiment: "default"},
	}
	var passed, failed, errored int
	reasons := map[string]bool{}
	for _, r := range final {
		switch r.status {
		case statusOK:
			passed++
		case statusFail:
			failed++
		default:
			errored++
			if !reasons[r.failureCode] {
				reasons[r.failureCode] = true
				s.InfraFailures.Reasons = append(s.InfraFailures.Reasons, r.failureCode)
			}
		}
		s.Usage.InputTokens += r.tokensIn
		s.Usage.OutputTokens += r.tokensOut
		s.Usage.CostUSD += r.costUSD
		s.Metadata.TestsRun = append(s.Metadata.TestsRun, r.testID)
		s.Metadata.Timestamp = isoTime(r.at)
		s.Tests = append(s.Tests, summaryTestFor(r))
		s.Counts.TotalSamples += r.sampleCount()
		if r.status == statusError {
			s.Counts.ErroredSamples += r.sampleCount()
		}
	}
	n := float64(max(len(final), 1))
	s.Status = map[string]statusCount{
		"passed":  {passed, round3(float64(passed) / n)},
		"failed":  {failed, round3(float64(failed) / n)},
		"errored": {errored, round3(float64(errored) / n)},
		"skipped": {},
	}
	s.Counts.TotalTests, s.Counts.PassedTests, s.Counts.FailedTests = len(final), passed, failed+errored
	s.Usage.TotalTokens = s.Usage.InputTokens + s.Usage.OutputTokens
	s.InfraFailures.Total = errored
	s.Metadata.PlannedTestCount = len(final)
	return s
}

func summaryTestFor(r *row) summaryTest {
	t := summaryTest{
		TestID: r.testID, Suite: r.suite, EvalPath: r.sourceEval(), Target: r.target,
		TotalSamples: r.sampleCount(), StatusCounts: map[string]int{r.status: r.sampleCount()},
	}
	for i := range r.sampleCount() {
		s := r.sampleOf(i)
		if s.passed {
			t.PassedSamples++
		}
		t.Samples = append(t.Samples, summarySample{
			TestID: r.testID, Suite: r.suite, EvalPath: r.sourceEval(), Target: r.target,
			SampleIndex: i + 1, Status: sampleStatus(s.passed), Score: s.score,
			ExecutionStatus: r.status, DurationMS: r.durationMS, CostUSD: r.costUSD,
		})
	}
	t.PassRate = round3(float64(t.PassedSamples) / float64(t.TotalSamples))
	t.PassAny = t.PassedSamples > 0
	return t
}
