// Package genrun writes synthetic AgentV runs for benchmarks and scale
// scripts: the 4.42.4 layout (Write442), the v5 layout (WriteV5) and a flat
// E0-style JSONL file (WriteFlat).
//
// Field names mirror real AgentV output (testdata/agentv-4.42.4 and
// ../shared/fixtures/agentv-upstream/01-v5-samples-pass). Output is
// deterministic for a given Options: no clock, no map iteration order, one
// seeded generator consumed in a fixed order.
package genrun

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Options controls the size and shape of a generated run.
type Options struct {
	Rows           int   // manifest rows, resume duplicates included (flat: at least this many rows)
	Seed           int64 // same seed, same bytes
	BigAnswers     int   // how many answers are BigAnswerBytes long
	BigAnswerBytes int   // size of a big answer; 0 means DefaultBigAnswerBytes
	FlatBytes      int64 // WriteFlat keeps adding rows until the file is at least this big
}

// DefaultBigAnswerBytes is the size of a big answer when Options leaves it 0.
const DefaultBigAnswerBytes = 5 << 20

// Stats is what the generator wrote, counted the way AgentV counts: one case
// per deduplicated (suite, test_id, target) key, the last row winning.
type Stats struct {
	Rows          int    `json:"rows"`           // manifest lines
	Cases         int    `json:"cases"`          // distinct cases after dedupe
	Duplicates    int    `json:"duplicates"`     // rows replaced by a later row for the same case
	Passed        int    `json:"passed"`         // winning rows with execution_status ok (flat: score >= 0.8)
	Failed        int    `json:"failed"`         // quality_failure (flat: score < 0.8)
	Errored       int    `json:"errored"`        // execution_error (flat rows carry no execution_status: always 0)
	MultiSample   int    `json:"multi_sample"`   // cases with more than one sample (v5 only)
	Flaky         int    `json:"flaky"`          // multi-sample cases whose samples disagree
	Manifest      string `json:"manifest"`       // path of index.jsonl / the flat file
	ManifestBytes int64  `json:"manifest_bytes"` // its size
	AnswerBytes   int64  `json:"answer_bytes"`   // bytes of answer text written (sidecars or inline)
}

// Execution statuses as AgentV writes them.
const (
	statusOK    = "ok"
	statusFail  = "quality_failure"
	statusError = "execution_error"
)

const passThreshold = 0.8

var (
	targets = []string{"gpt-5-mini", "claude-sonnet-4", "local-qwen3"}
	suites  = []string{"billing", "support-triage", "code-review", "sql-gen", "summarise", "tool-use", "safety", "extraction"}
	nouns   = []string{"refund", "invoice", "ticket", "query", "patch", "summary", "policy", "report", "schedule", "order", "account", "migration"}
	verbs   = []string{"explain", "classify", "draft", "fix", "extract", "route", "audit", "compare", "translate", "validate"}
	// baseTime is the start of every generated run (a fixed instant keeps output deterministic).
	baseTime = time.Date(2026, 7, 6, 11, 31, 36, 988_000_000, time.UTC)
)

// grader is one scores[] entry before rendering.
type grader struct {
	name, typ string
	weight    float64
	score     float64
	verdict   string // pass, fail or skip
	checks    []check
}

type check struct {
	text     string
	passed   bool
	evidence string
}

// sample is one repeat of a multi-sample v5 case.
type sample struct {
	passed  bool
	score   float64
	graders []grader
}

// row is one manifest line before rendering.
type row struct {
	seq          int // 0-based position of the case (not of the line)
	testID       string
	suite        string
	target       string
	status       string
	score        float64
	graders      []grader
	errMsg       string
	failureStage string
	failureCode  string
	samples      []sample // nil: one sample
	answerSize   int
	answerOff    int
	durationMS   int
	tokensIn     int
	tokensOut    int
	costUSD      float64
	at           time.Time
	superseded   bool // replaced by a later row for the same case (resume duplicate)
}

func (r *row) key() string { return r.suite + "/" + r.testID + "@" + r.target }

func (r *row) passed() bool { return r.status == statusOK }

// planner draws cases from one seeded generator.
type planner struct {
	o      Options
	rng    *rand.Rand
	corpus []byte
	big    map[int]bool // case seq → big answer
}

// newPlanner picks the big answers among the first cases: each on a test's
// last target, whose row owns the 4.42.4 test folder that all targets share.
func newPlanner(o Options, cases int) *planner {
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x5eed))
	p := &planner{o: o, rng: rng, corpus: newCorpus(rng), big: map[int]bool{}}
	tests := cases / len(targets)
	for _, t := range rng.Perm(tests)[:min(o.BigAnswers, tests)] {
		p.big[t*len(targets)+len(targets)-1] = true
	}
	return p
}

func (o Options) bigBytes() int {
	if o.BigAnswerBytes > 0 {
		return o.BigAnswerBytes
	}
	return DefaultBigAnswerBytes
}

// caseIdentity maps a case number to its test, suite and target: every test
// runs on every target, so test_id repeats across targets as in real runs.
func caseIdentity(seq int) (testID, suite, target string) {
	t := seq / len(targets)
	testID = fmt.Sprintf("%s-%s-%06d", verbs[t%len(verbs)], nouns[(t/len(verbs))%len(nouns)], t)
	return testID, suites[t%len(suites)], targets[seq%len(targets)]
}

// next draws case seq with a final status from the ≈70/25/5 mix.
func (p *planner) next(seq int) *row {
	status := statusOK
	switch u := p.rng.Float64(); {
	case u >= 0.95:
		status = statusError
	case u >= 0.70:
		status = statusFail
	}
	return p.draw(seq, status)
}

// draw builds case seq with the given status.
func (p *planner) draw(seq int, status string) *row {
	r := &row{seq: seq, status: status}
	r.testID, r.suite, r.target = caseIdentity(seq)
	r.at = baseTime.Add(time.Duration(seq) * 317 * time.Millisecond)
	r.durationMS = 200 + p.rng.IntN(30_000)
	r.tokensIn = 40 + p.rng.IntN(4000)
	r.tokensOut = 10 + p.rng.IntN(2000)
	r.costUSD = float64(r.tokensIn)*0.0000025 + float64(r.tokensOut)*0.00001
	r.answerSize = p.answerSize(seq)
	r.answerOff = p.rng.IntN(len(p.corpus))
	switch status {
	case statusError:
		p.drawError(r)
	default:
		r.graders = p.drawGraders(status == statusOK)
		r.score = weightedScore(r.graders)
	}
	return r
}

// answerSize: mostly 1–4 KB, some up to 32 KB, a few up to 256 KB, and the
// chosen big ones.
func (p *planner) answerSize(seq int) int {
	if p.big[seq] {
		return p.o.bigBytes()
	}
	switch u := p.rng.Float64(); {
	case u < 0.95:
		return 1024 + p.rng.IntN(3*1024)
	case u < 0.995:
		return 4096 + p.rng.IntN(28*1024)
	default:
		return 32*1024 + p.rng.IntN(224*1024)
	}
}

func (p *planner) drawError(r *row) {
	r.score = 0
	if p.rng.IntN(2) == 0 && !p.big[r.seq] { // a big answer needs an agent that answered
		r.failureStage, r.failureCode = "agent", "provider_error"
		r.errMsg = fmt.Sprintf("CLI provider timed out after %ds", 60+p.rng.IntN(240))
		return
	}
	r.failureStage, r.failureCode = "evaluator", "evaluator_error"
	r.graders = p.drawGraders(true)
	judge := &r.graders[len(r.graders)-1]
	msg := "Grader parse failure after 3 attempts: Failed to parse evaluator response after 3 attempts and 1 structure-fix attempt: Unexpected token 'I', \"I cannot g\"... is not valid JSON"
	judge.score, judge.verdict = 0, "skip"
	judge.checks = []check{{text: msg}}
	r.errMsg = judge.name + ": " + msg
}

// drawGraders returns 1–3 cheap deterministic graders plus an llm-grader
// last. For passing cases every grader passes, except that sometimes one
// low-weight check fails (graders disagree: a suspicious pass). For failing
// cases at least one grader fails.
func (p *planner) drawGraders(pass bool) []grader {
	n := nouns[p.rng.IntN(len(nouns))]
	gs := []grader{
		binary("contains-"+n, "contains", 1, fmt.Sprintf("Output contains %q", n)),
	}
	if p.rng.IntN(2) == 0 {
		gs = append(gs, binary("regex-^## ", "regex", 2, "Output matches pattern /^## /"))
	}
	if p.rng.IntN(3) == 0 {
		gs = append(gs, grader{name: "format-check", typ: "code-grader", weight: 1, score: 1, verdict: "pass", checks: []check{
			{text: "Answer is non-empty", passed: true},
			{text: "Answer has a heading", passed: true, evidence: "1 heading"},
		}})
	}
	judge := grader{name: "judge", typ: "llm-grader", weight: 1, verdict: "pass"}
	judge.score = 0.8 + float64(p.rng.IntN(21))/100
	judge.checks = []check{
		{text: "Answer addresses the question", passed: true, evidence: "Covers the requested " + n + "."},
		{text: "Answer is concise", passed: true},
	}
	gs = append(gs, judge)
	if pass {
		if p.rng.IntN(10) == 0 {
			// The judge disagrees with the deterministic checks; the weighted
			// score still reaches the threshold: contains (1) + judge (>= 0.6).
			j := &gs[len(gs)-1]
			j.score, j.verdict = 0.6+float64(p.rng.IntN(20))/100, "fail"
			j.checks[1] = check{text: "Answer is concise", evidence: "Repeats the question before answering."}
		}
		return gs
	}
	for i := range gs {
		if i == 0 || p.rng.IntN(2) == 0 {
			fail(&gs[i])
		}
	}
	if weightedScore(gs) >= passThreshold {
		for i := range gs {
			fail(&gs[i])
		}
	}
	return gs
}

func binary(name, typ string, weight float64, text string) grader {
	return grader{name: name, typ: typ, weight: weight, score: 1, verdict: "pass", checks: []check{{text: text, passed: true}}}
}

func fail(g *grader) {
	g.verdict = "fail"
	g.score = 0
	if g.typ == "llm-grader" {
		g.score = 0.3
	}
	g.checks = slices.Clone(g.checks)
	g.checks[0].passed = false
	g.checks[0].evidence = "Not found in the answer."
}

func weightedScore(gs []grader) float64 {
	var sum, w float64
	for _, g := range gs {
		sum += g.score * g.weight
		w += g.weight
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

// plan draws the rows of a directory layout: o.Rows lines of which about 2%
// are earlier attempts later re-run (AgentV's --resume / --rerun-failed
// appends the new row at the end). withSamples adds multi-sample cases
// (about 5%, half of them flaky).
func plan(o Options, withSamples bool) (*planner, []*row) {
	dups := o.Rows / 50
	cases := o.Rows - dups
	p := newPlanner(o, cases)
	rows := make([]*row, 0, o.Rows)
	var rerun []*row
	for seq := range cases {
		r := p.next(seq)
		if withSamples && r.status != statusError && p.rng.IntN(20) == 0 {
			p.addSamples(r)
		}
		if len(rerun) < dups && p.rng.IntN(cases) < dups*2 {
			early := p.draw(seq, []string{statusFail, statusError}[p.rng.IntN(2)])
			early.superseded = true
			rows = append(rows, early)
			rerun = append(rerun, r)
			continue
		}
		rows = append(rows, r)
	}
	rows = append(rows, rerun...)
	// Top up with fresh cases when the random pick chose fewer duplicates.
	for seq := cases; len(rows) < o.Rows; seq++ {
		rows = append(rows, p.next(seq))
	}
	return p, rows
}

// addSamples turns r into a three-sample case. A flaky case's odd samples
// have the opposite outcome; a stable one repeats the case's outcome.
func (p *planner) addSamples(r *row) {
	flaky := p.rng.IntN(2) == 0
	r.samples = make([]sample, 3)
	for i := range r.samples {
		r.samples[i] = sample{passed: r.passed(), score: r.score, graders: r.graders}
		if flaky && i%2 == 0 {
			r.samples[i] = flipped(r)
		}
	}
}

// flipped is a sample of r with the opposite outcome.
func flipped(r *row) sample {
	gs := slices.Clone(r.graders)
	for i := range gs {
		if r.passed() {
			fail(&gs[i])
		} else {
			gs[i] = binary(gs[i].name, gs[i].typ, gs[i].weight, gs[i].checks[0].text)
		}
	}
	return sample{passed: !r.passed(), score: weightedScore(gs), graders: gs}
}

// count tallies rows the way a reader that dedupes by case key does.
func count(rows []*row, withSamples bool) Stats {
	s := Stats{Rows: len(rows)}
	for _, r := range rows {
		if r.superseded {
			s.Duplicates++
			continue
		}
		s.Cases++
		switch r.status {
		case statusOK:
			s.Passed++
		case statusFail:
			s.Failed++
		default:
			s.Errored++
		}
		if withSamples && len(r.samples) > 1 {
			s.MultiSample++
			if r.samples[0].passed != r.samples[1].passed {
				s.Flaky++
			}
		}
	}
	return s
}
