// Command agentv-review is the human review checkpoint for AgentV runs,
// presented to users as `agentv review`.
package main

import (
	"os"
	"runtime/debug"

	"agentv-review/plugin/internal/app"
)

// memoryLimit is the default soft memory limit. Measured on generated
// 100k-row runs (bench/run.sh): status and list peak at 55–58 MiB RSS with
// it and 60–85 MiB without, at the same CPU time. Runs whose live data
// exceeds it (about 150k cases and up) trade some CPU for memory; setting
// GOMEMLIMIT overrides it.
const memoryLimit = 50 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(app.Main(os.Args, app.Std()))
}
