// Command agentv-review is the human review checkpoint for AgentV runs,
// presented to users as `agentv review`.
package main

import (
	"os"
	"runtime/debug"
	"slices"

	"agentv-review/plugin/internal/app"
)

// memoryLimit is the soft memory limit of the commands that read a whole
// run but keep little of it (status, list, show). Measured on generated
// 100k-row runs (bench/run.sh): status and list peak at 55–58 MiB RSS with
// it and 60–85 MiB without, at the same CPU time. Commands whose live data
// is the input itself (validate holds the feedback file, apply every
// answer) get no limit: under one they spend most of their time collecting
// garbage (validate of a 100k-entry file: 11 s CPU with it, 6–7.6 s without).
// Setting GOMEMLIMIT overrides it.
const memoryLimit = 50 << 20

// limited are the commands memoryLimit applies to.
var limited = []string{"status", "list", "show"}

func main() {
	if os.Getenv("GOMEMLIMIT") == "" && slices.Contains(limited, command(os.Args)) {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(app.Main(os.Args, app.Std()))
}

// command is the subcommand named in args: the first argument that is not
// a flag ("" for the guided review).
func command(args []string) string {
	for _, a := range args[min(1, len(args)):] {
		if len(a) > 0 && a[0] != '-' {
			return a
		}
	}
	return ""
}
