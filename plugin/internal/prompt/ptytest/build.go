package ptytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// builds holds the binaries BuildBinary made, by package, in the folder Main
// removes when the tests end.
var builds struct {
	sync.Mutex
	dir  string
	bins map[string]string
}

// Main runs the tests of a package that uses BuildBinary and removes the
// binaries afterwards. Use it as the package's TestMain:
//
//	func TestMain(m *testing.M) { ptytest.Main(m) }
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "ptytest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptytest:", err)
		os.Exit(1)
	}
	builds.dir, builds.bins = dir, map[string]string{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// BuildBinary builds the main package pkg (an import path, or a path relative
// to the test's package folder such as "./testdata/cmd") with `go build` once
// per test binary, and returns the executable's path.
func BuildBinary(t testing.TB, pkg string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if builds.dir == "" {
		t.Fatal("ptytest: BuildBinary needs func TestMain(m *testing.M) { ptytest.Main(m) }")
	}
	if bin, ok := builds.bins[pkg]; ok {
		return bin
	}
	bin := filepath.Join(builds.dir, fmt.Sprintf("bin%d", len(builds.bins)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("ptytest: go build %s: %v\n%s", pkg, err, out)
	}
	builds.bins[pkg] = bin
	return bin
}
