package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTranscript442(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	r := mustOpen(t, dir, Options{})
	tr, prob := r.Transcript(mustDetail(t, r, "tool-use"), 0)
	if prob != nil || tr == nil {
		t.Fatalf("transcript %+v, problem %v", tr, prob)
	}
	if tr.Format != "agentv.transcript.v1" || !tr.Complete || len(tr.Turns) != 2 || tr.ToolCalls() != 1 {
		t.Fatalf("transcript %+v", tr)
	}
	c := tr.Turns[1].Calls[0]
	if c.Name != "get_weather" || c.Arguments != `{"city":"Oslo"}` || c.Result != `{"temp_c":4,"sky":"cloudy"}` || c.Status != "ok" || *c.Duration != 12 {
		t.Fatalf("call %+v", c)
	}
	if tr.FirstUser() != "What is the weather in Oslo right now?" {
		t.Fatalf("first user %q", tr.FirstUser())
	}

	// Without transcript.jsonl, the trace beside it has the same story.
	if err := os.Remove(filepath.Join(dir, "core/tool-use/outputs/transcript.jsonl")); err != nil {
		t.Fatal(err)
	}
	tr, prob = r.Transcript(mustDetail(t, r, "tool-use"), 0)
	if prob != nil || tr.Format != "agentv.trace.v1" || tr.Source != "core/tool-use/outputs/trace.json" || len(tr.Turns) != 2 || tr.Turns[1].Calls[0].Result != `{"temp_c":4,"sky":"cloudy"}` {
		t.Fatalf("from trace: %+v, %v", tr, prob)
	}
	// Without either: missing, with the path the row names.
	if err := os.Remove(filepath.Join(dir, "core/tool-use/outputs/trace.json")); err != nil {
		t.Fatal(err)
	}
	if tr, prob = r.Transcript(mustDetail(t, r, "tool-use"), 0); tr != nil || prob.Problem != ProblemMissing || prob.Path != "core/tool-use/outputs/transcript.jsonl" {
		t.Fatalf("missing: %+v, %+v", tr, prob)
	}
}

func TestTranscriptLimit(t *testing.T) {
	dir := copyRun(t, "core-pass-fail-error")
	file := filepath.Join(dir, "core/tool-use/outputs/transcript.jsonl")
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, `{"role":"assistant","content":"step %d","tool_calls":[{"tool":"t","input":{"i":%d}}]}`+"\n", i, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, Options{})
	tr, _ := r.Transcript(mustDetail(t, r, "tool-use"), 4096)
	if tr.Complete || len(tr.Turns) == 0 || len(tr.Turns) > 100 || tr.Size != int64(b.Len()) {
		t.Fatalf("cut transcript: complete %v, %d turns, size %d", tr.Complete, len(tr.Turns), tr.Size)
	}
	if last := tr.Turns[len(tr.Turns)-1]; last.Text != fmt.Sprintf("step %d", len(tr.Turns)-1) {
		t.Fatalf("a partial last line was parsed: %+v", last)
	}
}

func TestTranscriptV5(t *testing.T) {
	r := mustOpen(t, upstream(t, "01-v5-samples-pass"), Options{})
	d, err := r.Detail(r.Cases[0])
	if err != nil {
		t.Fatal(err)
	}
	tr, prob := r.Transcript(d, 0)
	if prob != nil || tr.Format != "agentv.normalized_transcript.v1" || tr.SummaryTurns != 2 || len(tr.Turns) != 2 || tr.Turns[1].Role != "assistant" {
		t.Fatalf("v5 transcript %+v, %v", tr, prob)
	}
	if !strings.HasPrefix(tr.FirstUser(), "Source note:") {
		t.Fatalf("first user %q", tr.FirstUser())
	}
}

func TestNormalizedToolCalls(t *testing.T) {
	doc := `{"schema_version":"agentv.normalized_transcript.v1","transcript_summary":{"total_turns":3,"files_read":["a.go"],"errors":["boom"]},
	"turns":[{"type":"user","content":[{"type":"text","text":"fix it"}]},
	{"type":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"c1","name":"Read","input":{"file_path":"a.go"}},
	  {"type":"tool_use","id":"c2","tool_name":"shell","input":"ls","result":{"status":"success","output":"a.go"}}]},
	{"type":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"no such file","is_error":true}]},
	{"type":"assistant","content":[{"type":"text","text":"done"}]}]}`
	for _, cut := range []int{len(doc), strings.Index(doc, `{"type":"assistant","content":[{"type":"text","text":"done"`) + 10} {
		var tr Transcript
		tr.fromNormalized([]byte(doc[:cut]))
		if tr.SummaryTurns != 3 || tr.FilesRead[0] != "a.go" || tr.Errors[0] != "boom" || tr.ToolCalls() != 2 {
			t.Fatalf("cut at %d: %+v", cut, tr)
		}
		c1, c2 := tr.Turns[1].Calls[0], tr.Turns[1].Calls[1]
		if c1.Name != "Read" || c1.Error != "no such file" || c1.Status != "error" || c2.Name != "shell" || c2.Result != "a.go" || c2.Arguments != "ls" {
			t.Fatalf("calls %+v %+v", c1, c2)
		}
		if want := map[bool]int{true: 3, false: 2}[cut == len(doc)]; len(tr.Turns) != want {
			t.Fatalf("cut at %d: %d turns, want %d", cut, len(tr.Turns), want)
		}
	}
}
