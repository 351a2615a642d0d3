// Package runs embeds one real AgentV 4.42.4 run, core-pass-fail-error
// (passes, quality failures, execution errors, every common grader type),
// as the demo run of `agentv review demo`. The bytes in the binary are the
// files in this folder.
package runs

import "embed"

// Demo holds core-pass-fail-error/ and everything under it.
//
//go:embed all:core-pass-fail-error
var Demo embed.FS

// DemoName is the demo run's folder inside Demo.
const DemoName = "core-pass-fail-error"
