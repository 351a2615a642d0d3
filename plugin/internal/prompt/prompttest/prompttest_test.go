package prompttest_test

import (
	"reflect"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/prompt"
	"agentv-review/plugin/internal/prompt/internal/tbtest"
	"agentv-review/plugin/internal/prompt/prompttest"
)

var verdicts = []string{"acceptable", "needs improvement", "incorrect", "flaky"}

func TestScriptedAnswers(t *testing.T) {
	p := prompttest.New(t,
		prompttest.SelectStep("Verdict", 2),
		prompttest.SelectByLabel("Verdict", "flaky"),
		prompttest.MultiStep("Signals", "flaky", "acceptable", "flaky"),
		prompttest.MultiStep("Signals"),
		prompttest.InputStep("Notes", "fine"),
		prompttest.ConfirmStep("Save", false),
		prompttest.EditorStep("Long", "text"),
		prompttest.Enter("Verdict"),
		prompttest.Enter("Notes"),
		prompttest.Interrupt("Save"),
	)
	var got []any
	record := func(v any, err error) {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		got = append(got, v)
	}
	record(p.Select("Verdict for case 1?", verdicts, 0, ""))
	record(p.Select("Verdict for case 2?", verdicts, 0, ""))
	record(p.MultiSelect("Signals?", verdicts, nil, ""))
	record(p.MultiSelect("Signals?", verdicts, []int{1}, ""))
	record(p.Input("Notes?", "", ""))
	record(p.Confirm("Save?", true, ""))
	record(p.Editor("Long notes?", "", ""))
	record(p.Select("Verdict for case 3?", verdicts, 1, ""))
	record(p.Input("Notes?", "default notes", ""))
	want := []any{2, 3, []int{0, 3}, []int{}, "fine", false, "text", 1, "default notes"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("answers = %#v, want %#v", got, want)
	}
	if _, err := p.Confirm("Save?", true, ""); clierr.Code(err) != clierr.CodeInterrupted {
		t.Errorf("Interrupt step returned %v, want an interruption (exit 130)", err)
	}
}

func TestScriptFailures(t *testing.T) {
	tests := []struct {
		name  string
		steps []prompttest.Step
		ask   func(prompt.Prompter)
		want  []string
	}{
		{
			name: "unexpected prompt",
			ask:  func(p prompt.Prompter) { p.Input("Notes for case 7?", "", "") },
			want: []string{`unexpected input prompt "Notes for case 7?": no steps left`},
		},
		{
			name:  "wrong kind",
			steps: []prompttest.Step{prompttest.ConfirmStep("Notes", true)},
			ask:   func(p prompt.Prompter) { p.Input("Notes?", "", "") },
			want:  []string{`step 1 expects confirm prompt containing "Notes", got input prompt "Notes?"`},
		},
		{
			name:  "wrong message",
			steps: []prompttest.Step{prompttest.SelectStep("Verdict", 0)},
			ask:   func(p prompt.Prompter) { p.Select("Signals?", verdicts, 0, "") },
			want:  []string{`step 1 expects select prompt containing "Verdict", got select prompt "Signals?"`},
		},
		{
			name:  "unknown label",
			steps: []prompttest.Step{prompttest.SelectByLabel("Verdict", "great")},
			ask:   func(p prompt.Prompter) { p.Select("Verdict?", verdicts, 0, "") },
			want:  []string{`no option contains "great"`},
		},
		{
			name:  "index out of range",
			steps: []prompttest.Step{prompttest.SelectStep("Verdict", 4)},
			ask:   func(p prompt.Prompter) { p.Select("Verdict?", verdicts, 0, "") },
			want:  []string{`scripted index 4, but the select has 4 options`},
		},
		{
			name:  "unused steps",
			steps: []prompttest.Step{prompttest.Enter("Verdict"), prompttest.InputStep("Notes", "x"), prompttest.Interrupt("Save")},
			ask:   func(p prompt.Prompter) { p.Select("Verdict?", verdicts, 0, "") },
			want: []string{
				`input prompt containing "Notes" was never asked`,
				`any prompt containing "Save" was never asked`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failures := tbtest.Run(func(tb *tbtest.TB) { tt.ask(prompttest.New(tb, tt.steps...)) })
			if len(failures) != len(tt.want) {
				t.Fatalf("failures = %q, want %d", failures, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(failures[i], w) {
					t.Errorf("failure %d = %q, want it to contain %q", i, failures[i], w)
				}
			}
		})
	}
}
