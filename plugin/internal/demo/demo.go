// Package demo embeds one real AgentV 4.42.4 run, core-pass-fail-error
// (passes, quality failures, execution errors, every common grader type),
// as the demo run of `agentv review demo`. The bytes in the binary are the
// files in this folder, a copy of testdata/agentv-4.42.4/runs/core-pass-fail-error
// (which the docs' examples and the other packages' tests name); a test keeps
// the two identical.
package demo

import "embed"

// Run holds core-pass-fail-error/ and everything under it.
//
//go:embed all:core-pass-fail-error
var Run embed.FS

// Name is the demo run's folder inside Run.
const Name = "core-pass-fail-error"
