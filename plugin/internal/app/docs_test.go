package app

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"agentv-review/docs"
	"agentv-review/prompts"
	skill "agentv-review/skills/agentv-eval-builder"
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
		{[]string{"docs", "eval-files"}, "skills/agentv-eval-builder/references/eval-files.md"},
		{[]string{"docs", "review-loop"}, "skills/agentv-eval-builder/references/review-loop.md"},
		{[]string{"docs", "running-and-results"}, "skills/agentv-eval-builder/references/running-and-results.md"},
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

// TestDocsListsEveryTopic: `docs` lists the docs and every reference of the
// skill, and no reference hides a docs topic of the same name.
func TestDocsListsEveryTopic(t *testing.T) {
	code, out, stderr := runApp(t, "docs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, topic := range append(docs.Topics(), skill.References()...) {
		if !strings.Contains(out, "agentv review docs "+topic+"\n") {
			t.Errorf("docs does not list %s:\n%s", topic, out)
		}
	}
	for _, ref := range skill.References() {
		if slices.Contains(docs.Topics(), ref) {
			t.Errorf("skill reference %s.md has the name of docs/%s.md: one of them is unreachable", ref, ref)
		}
	}
	code, _, stderr = runApp(t, "docs", "nope")
	if code != 2 || !strings.Contains(stderr, "review-loop") || !strings.Contains(stderr, "human-review") {
		t.Errorf("docs nope: exit %d, want 2 and both lists of topics:\n%s", code, stderr)
	}
}

// TestHelpCommand: `help` and `help COMMAND` print help; neither is taken
// as a run path by the guided review.
func TestHelpCommand(t *testing.T) {
	_, want, _ := runApp(t, "--help")
	code, out, stderr := runApp(t, "help")
	if code != 0 || out != want {
		t.Errorf("help: exit %d, want the --help text\n%s", code, stderr)
	}
	_, want, _ = runApp(t, "status", "--help")
	code, out, stderr = runApp(t, "help", "status")
	if code != 0 || out != want || !strings.Contains(out, "--require-complete") {
		t.Errorf("help status: exit %d, want the status --help text\n%s%s", code, out, stderr)
	}
	code, _, stderr = runApp(t, "help", "nosuch")
	if code != 2 || !strings.Contains(stderr, "nosuch") {
		t.Errorf("help nosuch: exit %d, want 2 naming the topic\n%s", code, stderr)
	}
}

func TestDescribeBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	main := debug.Module{Path: "agentv-review", Version: "(devel)"}
	for _, tt := range []struct {
		version string
		info    debug.BuildInfo
		want    string
	}{
		{"0.1.0-dev", debug.BuildInfo{Main: main, Settings: settings(
			"vcs", "git", "vcs.revision", "afa6edde9eef07d86aeb9c2bc0cb5a203e2cc2d0", "vcs.modified", "true")},
			"0.1.0-dev (module agentv-review (devel), commit afa6edde9eef, modified)"},
		{"1.2.0", debug.BuildInfo{Main: debug.Module{Path: "agentv-review", Version: "v1.2.0"}, Settings: settings(
			"vcs.revision", "afa6ed", "vcs.modified", "false")},
			"1.2.0 (module agentv-review v1.2.0, commit afa6ed)"},
		{"0.1.0-dev", debug.BuildInfo{Main: main}, "0.1.0-dev (module agentv-review (devel))"},
		{"0.1.0-dev", debug.BuildInfo{}, "0.1.0-dev"},
	} {
		if got := describeBuild(tt.version, &tt.info); got != tt.want {
			t.Errorf("describeBuild(%q, %+v) = %q, want %q", tt.version, tt.info, got, tt.want)
		}
	}
	code, out, _ := runApp(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "agentv review version "+Version) {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
