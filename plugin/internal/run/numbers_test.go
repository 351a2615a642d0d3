package run

import (
	"path/filepath"
	"strings"
	"testing"
)

// wholeSpellings are JSON spellings of the integer 2 that JavaScript, and so
// AgentV, reads as 2; notWhole are numbers that are no integer.
var (
	wholeSpellings = []string{"2", "2.0", "2.000", "2e0", "2E0", "2e+0", "0.2e1", "20e-1", "200E-2"}
	notWhole       = []string{"2.5", "1e400", "-1e400", "9.3e18"}
)

// TestIntegersAsAgentVReads puts every spelling in every field that means
// an integer: samples[].sample, attempts[].attempt, a normalized
// transcript's total_turns and a trace span's agentv.message.index.
func TestIntegersAsAgentVReads(t *testing.T) {
	for _, n := range append(wholeSpellings, notWhole...) {
		want := strings.Contains(strings.Join(wholeSpellings, " ")+" ", n+" ")
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": `{"test_id":"s","score":1,"samples":[{"sample":` + n + `,"score":1}]}` + "\n" +
			`{"test_id":"a","score":1,"attempts":[{"attempt":` + n + `,"score":1}]}` + "\n"})
		r := mustOpen(t, filepath.Join(dir, "index.jsonl"), Options{})
		for i, label := range []string{"sample-2", "attempt-2"} {
			got := r.Cases[i].Samples[0].Label
			if (got == label) != want {
				t.Errorf("%s %s: label %q, want %q: %v", r.Cases[i].TestID, n, got, label, want)
			}
		}
		if (len(r.Warnings) == 0) != want {
			t.Errorf("%s: warnings %v", n, r.Warnings)
		}

		var tr Transcript
		tr.fromNormalized([]byte(`{"schema_version":"agentv.normalized_transcript.v1","transcript_summary":{"total_turns":` + n + `,"files_read":["a.go"]},"turns":[]}`))
		if (tr.SummaryTurns == 2) != want || len(tr.FilesRead) != 1 && want {
			t.Errorf("total_turns %s: %d turns, files %q", n, tr.SummaryTurns, tr.FilesRead)
		}

		trace := fromTrace([]byte(`{"schema_version":"agentv.trace.v1","trace":{"spans":[
			{"name":"m","events":[{"name":"agentv.transcript.message","attributes":{"agentv.transcript.message":{"role":"user","content":"a"}}},
			  {"name":"agentv.transcript.message","attributes":{"agentv.transcript.message":{"role":"assistant","content":"b"}}},
			  {"name":"agentv.transcript.message","attributes":{"agentv.transcript.message":{"role":"user","content":"c"}}},
			  {"name":"agentv.transcript.message","attributes":{"agentv.transcript.message":{"role":"assistant","content":"d"}}}]},
			{"name":"execute_tool Read","attributes":{"agentv.message.index":` + n + `}}]}}`))
		if trace == nil || len(trace.Turns) != 4 || (len(trace.Turns[2].Calls) == 1) != want {
			t.Errorf("agentv.message.index %s: %+v", n, trace)
		}
	}
}

// TestExponentScores puts exponent spellings of 1 (and 0.5) in every
// number of a row: score, grader score and weight, sample score,
// duration_ms, cost_usd and token_usage.
func TestExponentScores(t *testing.T) {
	for _, one := range []string{"1", "1.0", "1e0", "1E0", "1e+0", "1E-0", "0.1e1", "10e-1", "100E-2"} {
		half := "5e-1"
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": `{"test_id":"x","score":` + one + `,"duration_ms":` + one +
			`,"cost_usd":` + one + `,"token_usage":{"input":` + one + `},"scores":[{"name":"g","type":"contains","score":` + one +
			`,"weight":` + half + `}],"samples":[{"sample":1,"score":` + one + `}]}` + "\n"})
		r := mustOpen(t, filepath.Join(dir, "index.jsonl"), Options{})
		c := r.Cases[0]
		if len(r.Warnings) != 0 || c.Score != 1 || c.Outcome != Passed || *c.Graders[0].Score != 1 || *c.Graders[0].Weight != 0.5 || *c.Samples[0].Score != 1 {
			t.Errorf("%s: %+v, warnings %v", one, c, r.Warnings)
			continue
		}
		d := mustDetail(t, r, "x")
		if *d.DurationMS != 1 || *d.CostUSD != 1 || *d.Tokens.Input != 1 || *d.Graders[0].Score != 1 {
			t.Errorf("%s: detail %+v", one, d)
		}
	}
}
