package app

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionText is what --version prints after "agentv review version ":
// Version (which -ldflags may override) followed by what the Go toolchain
// recorded about the build: the module version and, for a build from a
// git checkout, the commit and whether the tree had uncommitted changes.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return describeBuild(Version, info)
}

// describeBuild formats version with the build facts of info, e.g.
// "0.1.0-dev (module agentv-review (devel), commit 3f2a9c1d0e4b, modified)".
func describeBuild(version string, info *debug.BuildInfo) string {
	var parts []string
	if mv := info.Main.Version; mv != "" {
		parts = append(parts, "module "+info.Main.Path+" "+mv)
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(len(rev), 12)])
		if modified == "true" {
			parts = append(parts, "modified")
		}
	}
	if len(parts) == 0 {
		return version
	}
	return fmt.Sprintf("%s (%s)", version, strings.Join(parts, ", "))
}
