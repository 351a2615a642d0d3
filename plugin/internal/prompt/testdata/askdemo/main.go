// Command askdemo asks one question of each kind through prompt.New on its
// terminal, prints the answers on one line and exits with clierr.Code of the
// first error. The prompt package's end-to-end tests drive it with ptytest.
package main

import (
	"fmt"
	"os"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/prompt"
)

func main() {
	fmt.Printf("can-prompt=%v\n", prompt.CanPrompt(os.Stdin, os.Stdout))
	err := ask(prompt.New(os.Stdin, os.Stdout, os.Stderr))
	if err != nil {
		fmt.Fprintln(os.Stderr, "askdemo:", err)
	}
	os.Exit(clierr.Code(err))
}

func ask(p prompt.Prompter) error {
	verdict, err := p.Select("Verdict?", []string{"acceptable", "needs improvement", "incorrect"}, 0, "how good is the answer")
	if err != nil {
		return err
	}
	signals, err := p.MultiSelect("Signals?", []string{"false positive", "flaky results", "grader miscalibration"}, []int{2}, "")
	if err != nil {
		return err
	}
	notes, err := p.Input("Notes?", "none", "")
	if err != nil {
		return err
	}
	save, err := p.Confirm("Save?", true, "")
	if err != nil {
		return err
	}
	long, err := p.Editor("Long notes?", "draft", "")
	if err != nil {
		return err
	}
	fmt.Printf("verdict=%d signals=%v notes=%q save=%v long=%q\n", verdict, signals, notes, save, long)
	return nil
}
