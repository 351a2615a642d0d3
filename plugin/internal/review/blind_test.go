package review

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"agentv-review/plugin/internal/feedback"
	pt "agentv-review/plugin/internal/prompt/prompttest"
	"agentv-review/plugin/internal/triage"
)

// screenAt records what the screen held when the verdict question came.
type screenAt struct {
	*pt.Prompter
	out    *bytes.Buffer
	asked  []string
	before []string
}

func (s *screenAt) Select(msg string, options []string, def int, help string) (int, error) {
	s.asked = append(s.asked, msg)
	s.before = append(s.before, s.out.String())
	return s.Prompter.Select(msg, options, def, help)
}

// TestBlindFirst: the machine's verdict stays hidden until the reviewer
// commits one; then it is shown and the reviewer keeps or changes the
// verdict; both are recorded.
func TestBlindFirst(t *testing.T) {
	cfg := fixture(t, "core-pass-fail-error")
	cfg.Filter, _ = triage.ParseFilter("haiku")
	cfg.Scope, cfg.Blind = triage.ScopeFilter, true
	out := cfg.Out.(*bytes.Buffer)
	asker := &screenAt{out: out, Prompter: pt.New(t,
		pt.SelectByLabel("Verdict", "Acceptable"),
		pt.SelectByLabel("before seeing the machine's verdict", "Incorrect"),
		pt.MultiStep("notice"), pt.InputStep("Notes", ""),
		pt.InputStep("Overall", ""), pt.ConfirmStep("Write", true))}
	res, err := Run(cfg, asker)
	if err != nil {
		t.Fatal(err)
	}
	first := asker.before[0]
	for _, hidden := range []string{"score 0.65", "FAILED", "graders disagree", "Second line has 6 syllables", "✗"} {
		if strings.Contains(first, hidden) {
			t.Errorf("before the blind verdict the screen shows %q:\n%s", hidden, first)
		}
	}
	if !strings.Contains(first, "hidden until you commit a verdict") || !strings.Contains(first, "Autumn moonlight") {
		t.Errorf("the blind screen should say what is hidden and show the answer:\n%s", first)
	}
	if !strings.Contains(asker.before[1], "revealed: the machine's verdict") || !strings.Contains(asker.before[1], "score 0.65") {
		t.Errorf("the machine's verdict should be revealed before the second question:\n%s", asker.before[1])
	}
	var f feedback.File
	if err := json.Unmarshal(written(t, res.Written), &f); err != nil {
		t.Fatal(err)
	}
	if e := entryOf(t, &f, cfg.Run, "haiku"); e == nil || e.BlindVerdict != feedback.Acceptable || e.Verdict != feedback.Incorrect {
		t.Errorf("entry %+v: want blind_verdict acceptable, verdict incorrect", e)
	}
}
