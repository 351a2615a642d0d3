package app

import (
	"fmt"
	"strings"

	"agentv-review/prompts"
)

// appHelpTemplate is `agentv review --help`: the documented checkpoint in
// brief. Signals and verdicts come from prompts/review.json, so the help,
// the guided review, the schema and the docs cannot drift apart.
func appHelpTemplate() string {
	cat, err := prompts.Load()
	if err != nil {
		panic(err) // the embedded catalog is checked by tests
	}
	var b strings.Builder
	b.WriteString(`agentv review — the human review checkpoint for AgentV runs

USAGE
   agentv review [flags] [run]        guided review of a run (needs a terminal)
   agentv review <command> [flags] [args]

WHEN TO REVIEW
   After automated scoring and before the next iteration: scores can be wrong.
   Skip it for routine CI gate runs. The loop: run evals → review → write
   feedback → tune prompts, graders or tests → re-run → agentv compare A B →
   review again.

WHAT TO LOOK FOR
`)
	for _, s := range cat.Signals {
		fmt.Fprintf(&b, "   %-25s %s\n", s.Label, s.Meaning)
	}
	b.WriteString("\nVERDICTS\n")
	for _, v := range cat.Verdicts {
		fmt.Fprintf(&b, "   %-25s %s\n", v.ID, v.Meaning)
	}
	b.WriteString(`
WHERE FEEDBACK GOES
   <run>/feedback.json beside index.jsonl / summary.json (never in .internal/);
   every answer is saved at once to <run>/feedback.draft.json; earlier versions
   are kept in <run>/feedback.history/. [run] is a run directory of any AgentV
   era, an index.jsonl or flat results file, .agentv/results or a project root;
   omitted, the last run in .agentv/cache.json.

COMMANDS
{{range .VisibleCommands}}   {{printf "%-12s" .Name}} {{.Usage}}
{{end}}
FLAGS (guided review)
{{range .VisibleFlags}}   {{.}}
{{end}}
EXIT STATUS
   0 ok · 1 failure (gate failed, write failed) · 2 usage (bad flags, no
   terminal) · 3 invalid input or run · 130 interrupted (Ctrl-C)

MORE
   agentv review demo               try it on a real run embedded in the binary
   agentv review docs human-review  the checkpoint in full
   agentv review docs cli           every command, flag and environment variable
   agentv review skill              the agentv-eval-builder card for coding agents
`)
	return b.String()
}
