package main

// Script-style end-to-end tests of the non-interactive commands:
// testdata/script/*.txtar, run by github.com/rogpeppe/go-internal/testscript
// (see its docs for the script language). Besides the built-in commands,
// scripts have
//
//	copyrun NAME...             copy runs of testdata/agentv-4.42.4/runs into $WORK
//	exits CODE PROGRAM ARGS...  run PROGRAM, which must exit with CODE; its
//	                            output is then checked with stdout/stderr
//
// and $AGENTV_REVIEWER is "script".
//
// The test binary is the agentv-review binary: TestMain registers main under
// that name and puts it first on $PATH, so the scripts and the other tests of
// this package (exec.LookPath, see binary) run this very code, with no
// separate go build.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// corpus holds the real AgentV 4.42.4 runs.
const corpus = "../../../testdata/agentv-4.42.4/runs"

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"agentv-review": main})
}

// binary returns the path of the agentv-review binary (this test binary).
func binary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("agentv-review")
	if err != nil {
		t.Fatalf("agentv-review is not on $PATH (TestMain puts it there): %v", err)
	}
	return bin
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		RequireUniqueNames: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("AGENTV_REVIEWER", "script")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copyrun": copyRunCmd,
			"exits":   exitsCmd,
		},
	})
}

func copyRunCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: copyrun NAME...")
	}
	for _, name := range args {
		ts.Check(os.CopyFS(ts.MkAbs(name), os.DirFS(filepath.Join(corpus, name))))
	}
}

func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
