package app

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"agentv-review/prompts"
)

var (
	cliHeading = regexp.MustCompile("^## agentv(?: review|-review)(?: ([a-z-]+))?$")
	flagCell   = regexp.MustCompile("^\\| `(--[a-z-]+)[^`]*`")
)

// documentedFlags parses docs/cli.md: for each "## agentv review <cmd>"
// heading (the bare heading is the guided review, ""), the flags of its
// table.
func documentedFlags(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile("../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]string{}
	cmd, in := "", false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if m := cliHeading.FindStringSubmatch(line); m != nil {
			cmd, in = m[1], true
			docs[cmd] = []string{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			in = false
		}
		if m := flagCell.FindStringSubmatch(line); in && m != nil {
			docs[cmd] = append(docs[cmd], m[1])
		}
	}
	return docs
}

func flagNames(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		out = append(out, "--"+name)
	}
	sort.Strings(out)
	return out
}

// TestCLIDocMatchesApp: docs/cli.md documents every command and flag the
// app has, and nothing it does not have.
func TestCLIDocMatchesApp(t *testing.T) {
	docs := documentedFlags(t)
	a := New(&Streams{Getenv: os.Getenv})
	actual := map[string][]string{"": flagNames(a.Flags)}
	for _, c := range a.Commands {
		actual[c.Name] = flagNames(c.Flags)
	}
	for cmd, flags := range actual {
		documented, ok := docs[cmd]
		if !ok {
			t.Errorf("docs/cli.md has no section for %q", "agentv review "+cmd)
			continue
		}
		sort.Strings(documented)
		if !slices.Equal(documented, flags) {
			t.Errorf("agentv review %s: docs/cli.md documents %v, the app has %v", cmd, documented, flags)
		}
	}
	for cmd := range docs {
		if _, ok := actual[cmd]; !ok {
			t.Errorf("docs/cli.md documents %q, which the app does not have", "agentv review "+cmd)
		}
	}
}

// TestPrintedAssetsAreRepoFiles: what docs, schema and skill print (piped)
// is byte for byte the file in the repository.
func TestPrintedAssetsAreRepoFiles(t *testing.T) {
	for _, tt := range []struct {
		args []string
		file string
	}{
		{[]string{"docs", "human-review"}, "docs/human-review.md"},
		{[]string{"docs", "feedback-schema"}, "docs/feedback-schema.md"},
		{[]string{"docs", "cli"}, "docs/cli.md"},
		{[]string{"schema"}, "schema/feedback.schema.json"},
		{[]string{"skill"}, "skills/agentv-eval-builder/SKILL.md"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			want, err := os.ReadFile("../../../" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runApp(t, tt.args...)
			if code != 0 || out != string(want) {
				t.Errorf("exit %d, printed %d bytes, file has %d\n%s", code, len(out), len(want), stderr)
			}
		})
	}
}

// TestHelpIsTheCheckpoint: --help says when to review, names every signal
// and verdict of the catalog, where feedback goes and the exit codes.
func TestHelpIsTheCheckpoint(t *testing.T) {
	code, out, _ := runApp(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	cat, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"WHEN TO REVIEW", "feedback.json", "feedback.draft.json", "EXIT STATUS", "130", "agentv compare", "status", "list", "show", "validate"}
	for _, s := range cat.Signals {
		want = append(want, s.Label, s.Meaning)
	}
	for _, v := range cat.Verdicts {
		want = append(want, v.ID, v.Meaning)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("--help lacks %q", w)
		}
	}
}
