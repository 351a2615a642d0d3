package run

import (
	"bytes"
	"encoding/json"
	"path"
	"path/filepath"
	"strings"
)

// Transcript is what the agent did, in order: its turns and tool calls,
// from 4.42.4 outputs/transcript.jsonl (agentv.transcript.v1, one message
// per line), v5 sample-N/transcript.json (agentv.normalized_transcript.v1)
// or, when neither is on disk, 4.42.4 outputs/trace.json (agentv.trace.v1
// spans). All text is raw: sanitise it.
type Transcript struct {
	Source   string `json:"source"`           // as the row names it (relative to the run dir)
	Format   string `json:"format,omitempty"` // schema_version
	Turns    []Turn `json:"turns,omitempty"`
	Complete bool   `json:"complete"` // the whole file was read; else Turns are its start
	Size     int64  `json:"size,omitempty"`

	// From v5's transcript_summary (the whole run's, even when Turns are cut).
	SummaryTurns  int      `json:"summary_turns,omitempty"`
	FilesRead     []string `json:"files_read,omitempty"`
	FilesModified []string `json:"files_modified,omitempty"`
	ShellCommands []string `json:"shell_commands,omitempty"`
	Errors        []string `json:"errors,omitempty"` // compact JSON unless plain strings
}

// Turn is one message.
type Turn struct {
	Role  string     `json:"role"`
	Text  string     `json:"text,omitempty"`
	Calls []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is one tool call with its result.
type ToolCall struct {
	ID        string   `json:"id,omitempty"`
	Name      string   `json:"name"`
	Arguments string   `json:"arguments,omitempty"` // compact JSON unless a plain string
	Result    string   `json:"result,omitempty"`
	Status    string   `json:"status,omitempty"`
	Error     string   `json:"error,omitempty"`
	Duration  *float64 `json:"duration_ms,omitempty"`
}

// ToolCalls counts the tool calls in the turns read.
func (t *Transcript) ToolCalls() int {
	n := 0
	for _, tu := range t.Turns {
		n += len(tu.Calls)
	}
	return n
}

// FirstUser is the text of the first user turn: v5 rows without an
// inline input have it only there.
func (t *Transcript) FirstUser() string {
	for _, tu := range t.Turns {
		if tu.Role == "user" {
			return tu.Text
		}
	}
	return ""
}

// Limits for Transcript: what the case screen reads, and what a pager may.
const (
	TranscriptScreenLimit = 256 << 10
	TranscriptFullLimit   = 64 << 20
)

// Transcript reads at most limit bytes (<= 0: TranscriptFullLimit) of d's
// transcript. It returns nil, nil when the row names none, and a
// FileProblem when it names one that cannot be read.
func (r *Run) Transcript(d *Detail, limit int64) (*Transcript, *FileProblem) {
	if limit <= 0 {
		limit = TranscriptFullLimit
	}
	sc, ok := sidecar(d, "transcript_path")
	if !ok {
		return nil, nil
	}
	b, size, cut, prob := r.readSidecar(sc, limit)
	if prob != nil && prob.Problem == ProblemMissing {
		// 4.42.4 keeps the same messages in the trace beside it.
		trace := Sidecar{Field: "transcript_path", Path: filepath.Join(filepath.Dir(sc.Path), "trace.json")}
		if tb, tsize, tcut, tprob := r.readSidecar(trace, limit); tprob == nil && !tcut {
			if t := fromTrace(tb); t != nil {
				t.Source, t.Size, t.Complete = r.rel(trace.Path), tsize, true
				return t, nil
			}
		}
	}
	if prob != nil {
		return nil, prob
	}
	t := &Transcript{Source: r.rel(sc.Path), Size: size, Complete: !cut}
	if path.Ext(filepath.ToSlash(sc.Path)) == ".jsonl" {
		t.fromJSONL(b, cut)
	} else {
		t.fromNormalized(b)
	}
	return t, nil
}

// transcriptLine is one agentv.transcript.v1 line.
type transcriptLine struct {
	SchemaVersion string          `json:"schema_version"`
	Role          string          `json:"role"`
	Content       json.RawMessage `json:"content"`
	ToolCalls     []struct {
		Tool       string          `json:"tool"`
		Name       string          `json:"name"`
		ID         string          `json:"id"`
		Input      json.RawMessage `json:"input"`
		Output     json.RawMessage `json:"output"`
		Status     string          `json:"status"`
		Error      json.RawMessage `json:"error"`
		DurationMS *float64        `json:"duration_ms"`
	} `json:"tool_calls"`
}

func (t *Transcript) fromJSONL(b []byte, cut bool) {
	if cut { // the last line is partial
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
	}
	for line := range bytes.Lines(b) {
		var l transcriptLine
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &l) != nil {
			continue
		}
		t.Format = firstNonEmpty(t.Format, l.SchemaVersion)
		tu := Turn{Role: l.Role, Text: message{Content: l.Content}.text()}
		for _, c := range l.ToolCalls {
			tu.Calls = append(tu.Calls, ToolCall{
				ID: c.ID, Name: firstNonEmpty(c.Tool, c.Name), Arguments: rawText(c.Input), Result: rawText(c.Output),
				Status: c.Status, Error: rawText(c.Error), Duration: c.DurationMS,
			})
		}
		t.Turns = append(t.Turns, tu)
	}
}

// fromNormalized reads an agentv.normalized_transcript.v1 document, as far
// as it goes when only its start was read.
func (t *Transcript) fromNormalized(b []byte) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch tok {
		case "schema_version":
			_ = dec.Decode(&t.Format)
		case "transcript_summary":
			var s struct {
				TotalTurns    whole             `json:"total_turns"`
				FilesRead     []string          `json:"files_read"`
				FilesModified []string          `json:"files_modified"`
				ShellCommands []string          `json:"shell_commands"`
				Errors        []json.RawMessage `json:"errors"`
			}
			if dec.Decode(&s) != nil {
				return
			}
			t.SummaryTurns, t.FilesRead, t.FilesModified, t.ShellCommands = int(s.TotalTurns), s.FilesRead, s.FilesModified, s.ShellCommands
			for _, e := range s.Errors {
				t.Errors = append(t.Errors, rawText(e))
			}
		case "turns":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return
			}
			for dec.More() {
				var tu normalizedTurn
				if dec.Decode(&tu) != nil {
					return
				}
				t.addNormalized(tu)
			}
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return
			}
		}
	}
}

type normalizedTurn struct {
	Type    string `json:"type"`
	Content []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Name      string          `json:"name"`
		ToolName  string          `json:"tool_name"`
		Input     json.RawMessage `json:"input"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
		Result    *struct {
			Status string          `json:"status"`
			Output json.RawMessage `json:"output"`
			Error  json.RawMessage `json:"error"`
		} `json:"result"`
	} `json:"content"`
}

// addNormalized appends a v5 turn: text parts join into Text, tool_use
// parts become calls, a tool_result part fills the call it answers.
func (t *Transcript) addNormalized(nt normalizedTurn) {
	tu := Turn{Role: nt.Type}
	var text []string
	for _, c := range nt.Content {
		switch c.Type {
		case "text":
			text = append(text, c.Text)
		case "tool_use":
			call := ToolCall{ID: c.ID, Name: firstNonEmpty(c.Name, c.ToolName), Arguments: rawText(c.Input)}
			if res := c.Result; res != nil {
				call.Status, call.Result, call.Error = res.Status, rawText(res.Output), rawText(res.Error)
			}
			tu.Calls = append(tu.Calls, call)
		case "tool_result":
			if call := t.call(c.ToolUseID); call != nil {
				call.Result = rawText(c.Content)
				if c.IsError {
					call.Status, call.Error = "error", call.Result
				}
			}
		}
	}
	tu.Text = strings.Join(text, "\n")
	if tu.Text != "" || len(tu.Calls) > 0 {
		t.Turns = append(t.Turns, tu)
	}
}

// call finds an earlier tool call by id.
func (t *Transcript) call(id string) *ToolCall {
	for i := len(t.Turns) - 1; i >= 0 && id != ""; i-- {
		for j := range t.Turns[i].Calls {
			if t.Turns[i].Calls[j].ID == id {
				return &t.Turns[i].Calls[j]
			}
		}
	}
	return nil
}

// fromTrace reads the messages and tool spans of an agentv.trace.v1 file.
func fromTrace(b []byte) *Transcript {
	var tr struct {
		SchemaVersion string `json:"schema_version"`
		Trace         struct {
			Spans []struct {
				Name       string                     `json:"name"`
				Attributes map[string]json.RawMessage `json:"attributes"`
				Status     struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
				Events []struct {
					Name       string `json:"name"`
					Attributes struct {
						Message struct {
							Role    string          `json:"role"`
							Content json.RawMessage `json:"content"`
						} `json:"agentv.transcript.message"`
					} `json:"attributes"`
				} `json:"events"`
			} `json:"spans"`
		} `json:"trace"`
	}
	if json.Unmarshal(b, &tr) != nil || !strings.HasPrefix(tr.SchemaVersion, "agentv.trace") {
		return nil
	}
	t := &Transcript{Format: tr.SchemaVersion}
	for _, s := range tr.Trace.Spans {
		for _, e := range s.Events {
			if e.Name == "agentv.transcript.message" {
				m := e.Attributes.Message
				t.Turns = append(t.Turns, Turn{Role: m.Role, Text: message{Content: m.Content}.text()})
			}
		}
	}
	for _, s := range tr.Trace.Spans {
		if !strings.HasPrefix(s.Name, "execute_tool ") {
			continue
		}
		var idx whole
		var name, id string
		_ = json.Unmarshal(s.Attributes["agentv.message.index"], &idx)
		_ = json.Unmarshal(s.Attributes["gen_ai.tool.name"], &name)
		_ = json.Unmarshal(s.Attributes["gen_ai.tool.call.id"], &id)
		call := ToolCall{ID: id, Name: firstNonEmpty(name, strings.TrimPrefix(s.Name, "execute_tool ")),
			Arguments: rawText(s.Attributes["gen_ai.tool.call.arguments"]), Result: rawText(s.Attributes["gen_ai.tool.call.result"]),
			Status: strings.ToLower(s.Status.Code)}
		if call.Status == "error" {
			call.Error = s.Status.Message
		}
		i := int(idx)
		if i < 0 || i >= len(t.Turns) {
			i = len(t.Turns) - 1
		}
		if i >= 0 {
			t.Turns[i].Calls = append(t.Turns[idx].Calls, call)
		}
	}
	return t
}

// rawText is a JSON value as text: a string as itself, null as "",
// anything else compact.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
