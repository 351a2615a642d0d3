//go:build linux || darwin

package prompt_test

import (
	"os"
	"os/exec"
	"testing"

	"agentv-review/plugin/internal/prompt"
	"agentv-review/plugin/internal/prompt/ptytest"
)

func TestMain(m *testing.M) { ptytest.Main(m) }

// step waits for a prompt and answers it with keys.
type step struct {
	expect string
	keys   []string
}

func TestPromptEndToEnd(t *testing.T) {
	t.Setenv("VISUAL", "")
	tests := []struct {
		name   string
		editor string // $EDITOR for the program
		steps  []step
		want   string
	}{
		{
			name: "enter accepts every default",
			steps: []step{
				{"Verdict?", []string{ptytest.Enter}},
				{"Signals?", []string{ptytest.Enter}},
				{"Notes?", []string{ptytest.Enter}},
				{"Save?", []string{ptytest.Enter}},
				{"Long notes?", []string{ptytest.Enter, ptytest.Enter}},
			},
			want: `verdict=0 signals=[2] notes="none" save=true long="draft"`,
		},
		{
			name: "arrows, space and typing",
			steps: []step{
				{"Verdict?", []string{ptytest.Down, ptytest.Enter}},
				{"Signals?", []string{ptytest.Space, ptytest.Down, ptytest.Space, ptytest.Enter}},
				{"Notes?", []string{"looks fine", ptytest.Enter}},
				{"Save?", []string{"n", ptytest.Enter}},
				{"Long notes?", []string{"first", ptytest.Enter, "second", ptytest.Enter, ptytest.Enter, ptytest.Enter}},
			},
			want: `verdict=1 signals=[0 1 2] notes="looks fine" save=false long="first\nsecond"`,
		},
		{
			name: "number shortcuts",
			steps: []step{
				{"Verdict?", []string{"3", ptytest.Enter}},
				{"Signals?", []string{"3", ptytest.Space, "2", ptytest.Space, ptytest.Enter}},
				{"Notes?", []string{ptytest.Enter}},
				{"Save?", []string{"y", ptytest.Enter}},
				{"Long notes?", []string{ptytest.Enter, ptytest.Enter}},
			},
			want: `verdict=2 signals=[1] notes="none" save=true long="draft"`,
		},
		{
			name:   "editor",
			editor: `sh -c 'printf " and more" >> "$0"'`,
			steps: []step{
				{"Verdict?", []string{ptytest.Enter}},
				{"Signals?", []string{ptytest.Enter}},
				{"Notes?", []string{ptytest.Enter}},
				{"Save?", []string{ptytest.Enter}},
				{"Enter to launch editor", []string{ptytest.Enter}},
			},
			want: `verdict=0 signals=[2] notes="none" save=true long="draft and more"`,
		},
	}
	bin := ptytest.BuildBinary(t, "./testdata/askdemo")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("EDITOR", tt.editor)
			term := ptytest.Start(t, exec.Command(bin), 100, 30)
			term.ExpectString("can-prompt=true")
			for _, s := range tt.steps {
				term.ExpectString(s.expect)
				for _, k := range s.keys {
					term.Send(k)
				}
			}
			term.ExpectString(tt.want)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit code %d, want 0; screen:\n%s", code, term.Screen())
			}
		})
	}
}

func TestPromptCtrlC(t *testing.T) {
	term := ptytest.Start(t, exec.Command(ptytest.BuildBinary(t, "./testdata/askdemo")), 80, 24)
	term.ExpectString("Verdict?")
	term.Send(ptytest.CtrlC)
	term.ExpectString("askdemo: interrupted: ctrl-c")
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit code %d, want 130; screen:\n%s", code, term.Screen())
	}
}

// TestKeysNotLostBehindCursorAnswer: a program that is slow to read the
// answer to its cursor-position request still gets the key typed after it
// (ptytest.Send waits until the answer has been read instead of for a
// quiet period; survey drops keys that arrive in the same read as the
// answer).
func TestKeysNotLostBehindCursorAnswer(t *testing.T) {
	term := ptytest.Start(t, exec.Command(ptytest.BuildBinary(t, "./testdata/slowreader")), 80, 24)
	term.ExpectString("ready")
	term.Send("x")
	term.ExpectString("cursor at 1,2")
	term.ExpectString(`key='x' err=<nil>`)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit code %d, want 0; screen:\n%s", code, term.Screen())
	}
}

func TestCanPromptPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if prompt.CanPrompt(r, w) {
		t.Error("CanPrompt(pipe, pipe) = true, want false")
	}
}
