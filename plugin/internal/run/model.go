// Package run is a read-only model of an AgentV run directory, for every
// layout AgentV has written (flat JSONL of v1–v3, index.jsonl of v3.12–4.42.4,
// the late-June trials layout, and v5's .internal/index.jsonl + summary.json).
//
// Opening a run reads only the manifest: one light Case per deduplicated row.
// Everything heavy (the full row, grading.json, the answer, the input) is
// loaded on demand by Run.Detail, so listing 100k cases never reads 100k answers.
package run

import (
	"hash/maphash"
	"sync"
)

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
	Dir      string    `json:"dir,omitempty"`      // absolute run directory (for a flat file: its folder)
	ID       string    `json:"i_d,omitempty"`      // run id: the run directory's base name (flat: file name without .jsonl)
	Manifest string    `json:"manifest,omitempty"` // absolute path of the manifest that was read
	Layout   Layout    `json:"layout,omitempty"`
	Rows     int       `json:"rows,omitempty"`  // rows read from the manifest, before dedupe
	Cases    []*Case   `json:"cases,omitempty"` // deduplicated (last row wins), in manifest order of first appearance
	Warnings []Warning `json:"warnings,omitempty"`

	opts    Options
	keep    func(testID string) bool // see Read; set: the run was read tallied (Len, positions and Counts from the tally)
	located int                      // Warnings of Locate (Read keeps them)
	// counts are the passed, failed and errored counts of every case, from
	// the tally, under Read(keep) and Options.Compact; nil otherwise (Counts
	// counts Cases).
	counts *[3]int
	// Under Read(keep): the line each case first appears on, by position
	// (so len(firsts) cases); nil otherwise.
	firsts []uint32
	// Under Read(keep): where each block of lines the read took began, in
	// file order, so TestIDAt finds a line without counting every line
	// before it.
	marks []lineMark
	// Under Options.Compact: the cases (Cases is nil).
	compact *compactCases
	// spans are the spans of Cases[i]'s row ("": none), under a read that
	// records them (see parseConfig.spans); nil otherwise.
	spans []string
	ids   idIndex    // cases by test_id, for Find and Ref (built by CaseIDs)
	idsMu sync.Mutex // held while CaseIDs checks and builds ids
	// keepIndex makes a compact read keep its own index by test id for
	// CaseIDs (see KeepIndex).
	keepIndex bool
	// recycleLimit, when set, is recycleBelow (for tests).
	recycleLimit int64
}

// Warning is something a reader tolerated but the user should know
// (a truncated last line after a crash, duplicates collapsed, a summary
// count that disagrees with the manifest, ...).
type Warning struct {
	File string `json:"file,omitempty"` // path relative to the run dir when inside it
	Line int    `json:"line,omitempty"` // 1-based; 0 when not about a line
	Msg  string `json:"msg,omitempty"`
}

// Case is the light, always-in-memory view of one deduplicated result row.
// It holds what status, list and triage need; Run.Detail loads the rest.
type Case struct {
	Index    int32  `json:"index"`   // 0-based position in Run.Cases
	TestID   string `json:"test_id"` // test_id, testId or eval_id (see rowSpellings)
	Target   string `json:"target,omitempty"`
	Variant  string `json:"variant,omitempty"`
	Suite    string `json:"suite,omitempty"`     // suite, dataset or eval_set (see rowSpellings)
	EvalPath string `json:"eval_path,omitempty"` // eval_path (part of AgentV's dedupe key)

	Score           float64 `json:"score"`
	Outcome         Outcome `json:"outcome"`
	ExecutionStatus string  `json:"execution_status,omitempty"` // raw execution_status, "" when absent
	Error           string  `json:"error,omitempty"`            // one-line error for errored rows (may be long; sanitise before display)
	FailureStage    string  `json:"failure_stage,omitempty"`

	Graders []GraderSummary `json:"graders,omitempty"` // one per scores[] entry (or legacy equivalent), in row order
	Samples []SampleSummary `json:"samples,omitempty"` // samples[] / attempts[] / trials[], in order; empty when the row has none

	HasWorkspace bool  `json:"has_workspace,omitempty"` // workspace_path or file_changes_path present
	Duplicates   int32 `json:"duplicates,omitempty"`    // number of earlier rows this one replaced

	// OverwrittenBy is the target of a later row that shares this case's
	// result folder, "" when the folder is this case's own. AgentV 4.42.4
	// writes <suite>/<test_id>/ once per test, not per target, so in a
	// multi-target run the answer and grading.json there are the last
	// target's; Detail then reports them as missing for the others.
	OverwrittenBy string `json:"overwritten_by,omitempty"`

	Loc RowLoc `json:"-"` // where the winning row lives, for Detail
}

// GraderSummary is one grader's result as listed in the row.
type GraderSummary struct {
	Name    string   `json:"name,omitempty"`
	Type    string   `json:"type,omitempty"`
	Score   *float64 `json:"score"`             // nil when absent
	Pass    *bool    `json:"pass,omitempty"`    // nil when unknown or skipped
	Verdict string   `json:"verdict,omitempty"` // raw verdict ("pass", "fail", "skip") or "" (v5 uses pass)
	Weight  *float64 `json:"weight,omitempty"`
}

// Key is the documented evaluator_overrides key: "type:name".
func (g GraderSummary) Key() string { return g.Type + ":" + g.Name }

// SampleSummary is one repeat of a case (sample, attempt or trial).
type SampleSummary struct {
	Label string   `json:"label,omitempty"` // "sample-1", "run-1", "attempt-0", ...
	Score *float64 `json:"score"`           // nil when absent
	Pass  *bool    `json:"pass,omitempty"`  // nil when unknown / skipped
	Path  string   `json:"path,omitempty"`  // sample_path / run_path relative to the result dir, "" when none
}

// RowLoc locates a row's bytes in the manifest (24 bytes: one per case).
type RowLoc struct {
	Offset int64 `json:"offset,omitempty"` // byte offset of the line start
	Length int32 `json:"length,omitempty"` // byte length of the line, without the newline
	Line   int32 `json:"line,omitempty"`   // 1-based line number
	// Sum is rowSum of the line's bytes: Bases tells by it that a row it
	// reads again is the one Read decoded, without decoding it again. An
	// Options.Outline read leaves it 0 (Bases then checks the row whole).
	Sum uint64 `json:"-"`
}

// rowSum hashes a manifest line for RowLoc.Sum, with one seed for the
// process (so the Cases of two Reads of a file are equal).
func rowSum(line []byte) uint64 { return maphash.Bytes(rowSeed, line) }

var rowSeed = maphash.MakeSeed()

// Detail is everything known about one case, loaded on demand.
type Detail struct {
	Case    *Case    `json:"-"`
	Graders []Grader `json:"graders,omitempty"` // full graders: from the row, enriched by grading.json when present
	Samples []Sample `json:"samples,omitempty"` // full samples with their graders

	Answer      Text `json:"answer,omitempty"`       // the final answer the graders judged
	Input       Text `json:"input,omitempty"`        // the input / prompt
	FileChanges Text `json:"file_changes,omitempty"` // workspace diff, when the run has one

	WorkspacePath string      `json:"workspace_path,omitempty"`
	FailureReason string      `json:"failure_reason,omitempty"` // failure_reason_code
	DurationMS    *float64    `json:"duration_ms,omitempty"`
	Tokens        *TokenUsage `json:"tokens,omitempty"`
	CostUSD       *float64    `json:"cost_usd,omitempty"`
	Checks        []Check     `json:"checks,omitempty"`    // row-level assertions / hits / misses not tied to a grader
	Reasoning     string      `json:"reasoning,omitempty"` // row-level reasoning (legacy)
	Timestamp     string      `json:"timestamp,omitempty"`
	Sidecars      []Sidecar   `json:"sidecars,omitempty"` // every sidecar path the row names, with presence
	Warnings      []Warning   `json:"warnings,omitempty"` // sidecars not followed or unreadable, shared folders, ...
}

// Grader is one grader's full result.
type Grader struct {
	GraderSummary
	Reason   string   `json:"reason,omitempty"` // reason / reasoning
	Checks   []Check  `json:"checks,omitempty"` // assertions / expectations / hits+misses / component_results
	Children []Grader `json:"children,omitempty"`
}

// Check is one per-check piece of evidence.
type Check struct {
	Text     string `json:"text,omitempty"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence,omitempty"`
}

// Sample is one repeat with its graders.
type Sample struct {
	SampleSummary
	Graders []Grader `json:"graders,omitempty"`
}

// TokenUsage mirrors token_usage.
type TokenUsage struct {
	Input     *float64 `json:"input,omitempty"`
	Output    *float64 `json:"output,omitempty"`
	Reasoning *float64 `json:"reasoning,omitempty"`
	Cached    *float64 `json:"cached,omitempty"`
}

// Text is a piece of text that may live inline in the row or in a sidecar
// file. Large sidecars are read only up to a limit; Path lets a pager read
// the whole file.
type Text struct {
	Present   bool   `json:"present"`             // false when the row names no source at all
	Missing   bool   `json:"missing"`             // the row names a sidecar that is not on disk
	Path      string `json:"path,omitempty"`      // absolute sidecar path, "" for inline text
	Content   string `json:"content,omitempty"`   // (head of) the text, raw — sanitise before display
	Truncated bool   `json:"truncated,omitempty"` // Content is only the first part of the file
	Size      int64  `json:"size,omitempty"`      // full size in bytes when known

	dir string // the run directory Path was read beneath (see Open)
}

// Sidecar is a path named by a row.
type Sidecar struct {
	Field   string `json:"field,omitempty"` // e.g. "grading_path"
	Path    string `json:"path,omitempty"`  // absolute
	Present bool   `json:"present"`
}
