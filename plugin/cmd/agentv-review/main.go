// Command agentv-review is the human review checkpoint for AgentV runs,
// presented to users as `agentv review`.
package main

import (
	"os"

	"agentv-review/plugin/internal/app"
)

func main() {
	os.Exit(app.Main(os.Args, app.Std()))
}
