package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// example is one fenced shell block from the docs.
type example struct {
	file string
	line int
	code string
}

// shellExamples returns the ```sh / ```bash blocks of a markdown file that
// call agentv review, except those marked <!-- illustrative -->.
func shellExamples(t *testing.T, path string) []example {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	var cur *example
	illustrative := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && strings.HasPrefix(line, "```"):
			if strings.Contains(cur.code, "agentv review") || strings.Contains(cur.code, "agentv-review") {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		case line == "```sh" || line == "```bash":
			if !illustrative {
				cur = &example{file: path, line: n}
			}
			illustrative = false
		case strings.TrimSpace(line) == "<!-- illustrative -->":
			illustrative = true
		case strings.TrimSpace(line) != "":
			illustrative = false
		}
	}
	return out
}

// TestDocExamplesRun runs every shell example of docs/ in bash, with
// `agentv` routed by the shell-init wrapper, from a folder holding a copy
// of testdata/ (examples name testdata paths as the repo root does).
// Blocks of one file run in order, sharing that folder.
func TestDocExamplesRun(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	bin := binary(t)
	root := "../../.."
	// The skill card's commands are run by TestCardCommands (card_test.go).
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	ran := 0
	for _, file := range files {
		examples := shellExamples(t, file)
		if len(examples) == 0 {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			work := t.TempDir()
			runs := filepath.Join("testdata", "agentv-4.42.4", "runs")
			if err := os.CopyFS(filepath.Join(work, runs), os.DirFS(filepath.Join(root, runs))); err != nil {
				t.Fatal(err)
			}
			binDir := t.TempDir()
			if err := os.Symlink(bin, filepath.Join(binDir, "agentv-review")); err != nil {
				t.Fatal(err)
			}
			for _, ex := range examples {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				script := "set -euo pipefail\neval \"$(agentv-review shell-init bash)\"\n" + ex.code
				cmd := exec.CommandContext(ctx, bash, "-c", script)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "AGENTV_REVIEWER=docs-test")
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil {
					t.Errorf("%s:%d: example failed: %v\n--- example\n%s--- output\n%s", ex.file, ex.line, err, ex.code, out)
				}
				ran++
			}
		})
	}
	if ran == 0 {
		t.Fatal("no shell examples found: the extractor is broken")
	}
}
