// Package run is a read-only model of an AgentV run directory, for every
// layout AgentV has written (flat JSONL of v1–v3, index.jsonl of v3.12–4.42.4,
// the late-June trials layout, and v5's .internal/index.jsonl + summary.json).
//
// Opening a run reads only the manifest: one light Case per deduplicated row.
// Everything heavy (the full row, grading.json, the answer, the input) is
// loaded on demand by Run.Detail, so listing 100k cases never reads 100k answers.
package run

// Outcome is AgentV's verdict on a row: execution_status ok → passed,
// quality_failure → failed, execution_error → errored; rows without
// execution_status pass when score >= PassThreshold.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Errored Outcome = "errored"
)

// PassThreshold is AgentV's default pass threshold for rows that carry no
// execution_status.
const PassThreshold = 0.8

// Layout names the AgentV era a run was written by.
type Layout string

const (
	LayoutFlat   Layout = "flat-jsonl"  // E0: one *.jsonl file, no directory
	LayoutIndex  Layout = "index-jsonl" // E1–E3 (v3.12 … 4.42.4): root index.jsonl
	LayoutTrials Layout = "trials"      // E4 (late June): root index.jsonl, <id>/run-N/
	LayoutV5     Layout = "v5"          // E5–E6: summary.json + .internal/index.jsonl
)

// Run is one opened run.
type Run struct {
	Dir      string // absolute run directory (for a flat file: its folder)
	ID       string // run id: the run directory's base name (flat: file name without .jsonl)
	Manifest string // absolute path of the manifest that was read
	Layout   Layout
	Rows     int     // rows read from the manifest, before dedupe
	Cases    []*Case // deduplicated (last row wins), in manifest order of first appearance
	Warnings []Warning

	opts Options
	byID map[string][]*Case // test_id -> cases, for Find and Ref
}

// Warning is something a reader tolerated but the user should know
// (a truncated last line after a crash, duplicates collapsed, a summary
// count that disagrees with the manifest, ...).
type Warning struct {
	File string // path relative to the run dir when inside it
	Line int    // 1-based; 0 when not about a line
	Msg  string
}

// Case is the light, always-in-memory view of one deduplicated result row.
// It holds what status, list and triage need; Run.Detail loads the rest.
type Case struct {
	Index    int    // 0-based position in Run.Cases
	TestID   string // test_id, eval_id or testId
	Target   string
	Variant  string
	Suite    string // suite, dataset or eval_set
	EvalPath string // eval_path (part of AgentV's dedupe key)

	Score           float64
	Outcome         Outcome
	ExecutionStatus string // raw execution_status, "" when absent
	Error           string // one-line error for errored rows (may be long; sanitise before display)
	FailureStage    string

	Graders []GraderSummary // one per scores[] entry (or legacy equivalent), in row order
	Samples []SampleSummary // samples[] / attempts[] / trials[], in order; empty when the row has none

	HasWorkspace bool // workspace_path or file_changes_path present
	Duplicates   int  // number of earlier rows this one replaced

	// OverwrittenBy is the target of a later row that shares this case's
	// result folder, "" when the folder is this case's own. AgentV 4.42.4
	// writes <suite>/<test_id>/ once per test, not per target, so in a
	// multi-target run the answer and grading.json there are the last
	// target's; Detail then reports them as missing for the others.
	OverwrittenBy string

	Loc RowLoc // where the winning row lives, for Detail
}

// GraderSummary is one grader's result as listed in the row.
type GraderSummary struct {
	Name    string
	Type    string
	Score   *float64 // nil when absent
	Pass    *bool    // nil when unknown or skipped
	Verdict string   // raw verdict ("pass", "fail", "skip") or "" (v5 uses pass)
	Weight  *float64
}

// Key is the documented evaluator_overrides key: "type:name".
func (g GraderSummary) Key() string { return g.Type + ":" + g.Name }

// SampleSummary is one repeat of a case (sample, attempt or trial).
type SampleSummary struct {
	Label string   // "sample-1", "run-1", "attempt-0", ...
	Score *float64 // nil when absent
	Pass  *bool    // nil when unknown / skipped
	Path  string   // sample_path / run_path relative to the result dir, "" when none
}

// RowLoc locates a row's bytes in the manifest.
type RowLoc struct {
	Line   int   // 1-based line number
	Offset int64 // byte offset of the line start
	Length int   // byte length of the line, without the newline
}

// Detail is everything known about one case, loaded on demand.
type Detail struct {
	Case    *Case
	Graders []Grader // full graders: from the row, enriched by grading.json when present
	Samples []Sample // full samples with their graders

	Answer      Text // the final answer the graders judged
	Input       Text // the input / prompt
	FileChanges Text // workspace diff, when the run has one

	WorkspacePath string
	FailureReason string // failure_reason_code
	DurationMS    *float64
	Tokens        *TokenUsage
	CostUSD       *float64
	Checks        []Check // row-level assertions / hits / misses not tied to a grader
	Reasoning     string  // row-level reasoning (legacy)
	Timestamp     string
	Sidecars      []Sidecar // every sidecar path the row names, with presence
	Warnings      []Warning // sidecars not followed or unreadable, shared folders, ...
}

// Grader is one grader's full result.
type Grader struct {
	GraderSummary
	Reason   string  // reason / reasoning
	Checks   []Check // assertions / expectations / hits+misses / component_results
	Children []Grader
}

// Check is one per-check piece of evidence.
type Check struct {
	Text     string
	Passed   bool
	Evidence string
}

// Sample is one repeat with its graders.
type Sample struct {
	SampleSummary
	Graders []Grader
}

// TokenUsage mirrors token_usage.
type TokenUsage struct {
	Input, Output, Reasoning, Cached *float64
}

// Text is a piece of text that may live inline in the row or in a sidecar
// file. Large sidecars are read only up to a limit; Path lets a pager read
// the whole file.
type Text struct {
	Present   bool   // false when the row names no source at all
	Missing   bool   // the row names a sidecar that is not on disk
	Path      string // absolute sidecar path, "" for inline text
	Content   string // (head of) the text, raw — sanitise before display
	Truncated bool   // Content is only the first part of the file
	Size      int64  // full size in bytes when known
}

// Sidecar is a path named by a row.
type Sidecar struct {
	Field   string // e.g. "grading_path"
	Path    string // absolute
	Present bool
}
