package genrun

import (
	"os"
	"path/filepath"
)

// flatV1 is a row in the oldest vocabulary (eval_id, dataset, hits/misses).
type flatV1 struct {
	Timestamp        string            `json:"timestamp"`
	EvalID           string            `json:"eval_id"`
	Dataset          string            `json:"dataset"`
	Score            float64           `json:"score"`
	Hits             []string          `json:"hits"`
	Misses           []string          `json:"misses"`
	Target           string            `json:"target"`
	Reasoning        string            `json:"reasoning"`
	EvaluatorResults []evaluatorResult `json:"evaluator_results,omitempty"`
	Error            string            `json:"error,omitempty"`
	Output           string            `json:"output"`
}

type evaluatorResult struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Score     float64  `json:"score"`
	Weight    float64  `json:"weight"`
	Verdict   string   `json:"verdict"`
	Hits      []string `json:"hits"`
	Misses    []string `json:"misses"`
	Reasoning string   `json:"reasoning"`
}

// flatV3 is a row in the v3 wire vocabulary (test_id, suite, scores[]).
type flatV3 struct {
	Timestamp  string      `json:"timestamp"`
	TestID     string      `json:"test_id"`
	Suite      string      `json:"suite"`
	Score      float64     `json:"score"`
	Target     string      `json:"target"`
	Scores     []score442  `json:"scores,omitempty"`
	Assertions []assertion `json:"assertions"`
	Error      string      `json:"error,omitempty"`
	Output     string      `json:"output"`
}

func hitsMisses(cs []check) (hits, misses []string) {
	hits, misses = []string{}, []string{}
	for _, c := range cs {
		if c.passed {
			hits = append(hits, c.text)
		} else {
			misses = append(misses, c.text)
		}
	}
	return hits, misses
}

// legacyType maps a grader type to its pre-v3 name.
var legacyType = map[string]string{"llm-grader": "llm_judge", "code-grader": "code_judge", "contains": "contains", "regex": "regex"}

func (p *planner) flatRow(r *row, output string) any {
	if p.rng.IntN(2) == 0 {
		v := flatV1{
			Timestamp: isoTime(r.at), EvalID: r.testID, Dataset: r.suite, Score: r.score,
			Target: r.target, Error: r.errMsg, Output: output, Reasoning: "Passed the checks listed in hits.",
		}
		var all []check
		for _, g := range r.graders {
			h, m := hitsMisses(g.checks)
			v.EvaluatorResults = append(v.EvaluatorResults, evaluatorResult{
				Name: g.name, Type: legacyType[g.typ], Score: g.score, Weight: g.weight,
				Verdict: g.verdict, Hits: h, Misses: m, Reasoning: v.Reasoning,
			})
			all = append(all, g.checks...)
		}
		v.Hits, v.Misses = hitsMisses(all)
		return v
	}
	v := flatV3{
		Timestamp: isoTime(r.at), TestID: r.testID, Suite: r.suite, Score: r.score,
		Target: r.target, Error: r.errMsg, Output: output, Assertions: []assertion{},
	}
	for _, g := range r.graders {
		v.Scores = append(v.Scores, score442{
			Name: g.name, Type: g.typ, Score: g.score, Weight: g.weight, Verdict: g.verdict,
			Assertions: assertions(g.checks),
		})
		v.Assertions = append(v.Assertions, assertions(g.checks)...)
	}
	return v
}

// WriteFlat writes an E0-style results file (AgentV ≤ v3.11: one JSONL file,
// no run folder, answers inline in `output`) at path: at least o.Rows rows
// and at least o.FlatBytes bytes. Rows mix the v1 vocabulary (eval_id,
// dataset, hits/misses, evaluator_results) and the v3 one (test_id, suite,
// scores[]); none carries execution_status, so a case passes when its score
// is at least 0.8 and Stats.Errored is 0. The file has no duplicate rows.
func WriteFlat(path string, o Options) (Stats, error) {
	p := newPlanner(o, o.Rows)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Stats{}, err
	}
	st := Stats{Manifest: path}
	m, err := createJSONL(path)
	if err != nil {
		return st, err
	}
	for seq := 0; seq < o.Rows || m.c.n < o.FlatBytes; seq++ {
		r := p.next(seq)
		output := "Error occurred: " + r.errMsg
		if r.failureStage != "agent" {
			output = p.answer(r)
		}
		if err := m.write(p.flatRow(r, output)); err != nil {
			m.close()
			return st, err
		}
		st.Rows++
		st.AnswerBytes += int64(len(output))
		if r.score >= passThreshold {
			st.Passed++
		} else {
			st.Failed++
		}
	}
	st.Cases = st.Rows
	st.ManifestBytes, err = m.close()
	return st, err
}
