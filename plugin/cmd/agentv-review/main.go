// Command agentv-review is the human review checkpoint for AgentV runs,
// presented to users as `agentv review`.
package main

import (
	"os"
	"runtime/debug"
	"slices"

	"agentv-review/plugin/internal/app"
)

// memoryLimit is the soft memory limit of status and show, the commands
// that read a whole run but keep little of it. Without it they stay under
// 64 MiB too at a million rows (status and show 38 MiB peak RSS on the
// 4.42.4 layout, 44 MiB on the flat one, with GOMEMLIMIT=off); it holds
// status of a run reviewed case by case (100k entries) at 56 MiB instead
// of 63-67 MiB, at about the same CPU time. list has no limit: at a
// million cases it keeps about 25 bytes a case (run.Options.Compact), most
// of it outside the Go heap, and a limit made it collect garbage without
// end when that was all on the heap (1M cases: 24.7 s with 50 MiB, 17-18 s
// without). Commands whose live data is the input itself (validate holds
// the feedback file, apply every answer) get none either. Setting
// GOMEMLIMIT overrides it.
const memoryLimit = 50 << 20

// limited are the commands memoryLimit applies to.
var limited = []string{"status", "show"}

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
