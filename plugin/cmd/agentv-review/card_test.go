package main

// The agentv-eval-builder card is tested as an agent would use it: every
// command of SKILL.md and references/*.md runs exactly as written (with its
// placeholders replaced by copies of corpus runs) in bash with the
// shell-init wrapper loaded, and its output is checked against the table
// below. agentv commands run the real AgentV 4.42.4 ($AGENTV_BIN).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	skill "agentv-review/skills/agentv-eval-builder"
)

// expect is what a card command must do: its exit code, substrings of its
// stdout+stderr, and fields of its JSON stdout ("path" must exist,
// "path=value" must print as value; path segments are keys or indexes).
type expect struct {
	code   int
	output []string
	fields []string
}

// cardCommands lists every command the card teaches, keyed by its exact
// text. A command of the card missing here, or listed here and gone from
// the card, fails TestCardCommands.
var cardCommands = map[string]expect{
	`eval "$(agentv-review shell-init bash)"`: {},
	`agentv review --version`:                 {output: []string{"agentv review version "}},

	`agentv validate --max-warnings 0 evals/`: {output: []string{"Valid: ", "Invalid: 0", "basic.eval.yaml", "graders.eval.yaml", "trials.eval.yaml"}},

	`agentv results summary <run>`:                     {fields: []string{"total=15", "failed_test_ids"}},
	`agentv results failures <run>`:                    {fields: []string{"0.test_id", "0.assertions.0.text"}},
	`agentv results show <run> --test-id <test-id>`:    {fields: []string{"test_id=grader-crash", "score=0.5", "assertions"}},
	`agentv results validate <run>`:                    {output: []string{"index.jsonl"}},
	`agentv compare <old-run> <new-run>`:               {output: []string{"it-regressed", "1 win, 1 loss"}},
	`agentv compare <old-run> <new-run> --json`:        {output: []string{`"it-regressed"`, `"wins": 1`}},
	`agentv review status --json <run>`:                {fields: []string{"cases=15", "passed=6", "failed=6", "errored=3", "verdicts.acceptable", "proposed", "stale"}},
	`agentv review handoff --json <run>`:               {fields: []string{"run_id=core-pass-fail-error", "proposals", "graders", "tests", "agent", "infrastructure"}},
	`agentv review calibrate <results-dir>`:            {output: []string{"grader"}},
	`agentv review list --json <run>`:                  {fields: []string{"total=15", "cases.0.pos", "cases.0.test_id", "cases.0.reasons.0.text"}},
	`agentv review list --scope failures --json <run>`: {fields: []string{"scope=failures", "cases.0.test_id"}},
	`agentv review show --json <run> <test-id>`: {fields: []string{"test_id=grader-crash",
		"evidence.graders.1.type=code-grader", "evidence.graders.1.name=broken-grader", "evidence.answer.content", "state=unreviewed"}},
	`agentv review set --verdict incorrect --note "exits before answering" --agent <run> <test-id>`: {
		output: []string{"recorded 1 judgment(s) by card-test (agent)"}},
	`agentv review set --verdict incorrect --note "grants access after a failed badge check" --agent <run> <test-id>`: {
		output: []string{"recorded 1 judgment(s) by card-test (agent)"}},
	`agentv review set --verdict acceptable --note "confirmed: the grader is at fault" <run> <test-id>`: {
		output: []string{"recorded 1 judgment(s) by card-test (human)"}},
	"agentv review apply --agent --from - <run> <<'EOF'":                      {output: []string{"recorded 1 judgment(s) by card-test (agent)"}},
	`agentv review validate <run>/feedback.json`:                              {output: []string{"feedback.json: valid"}},
	`agentv review history --json <results-dir>`:                              {fields: []string{"runs.0.run_id=core-pass-fail-error", "runs.0.proposed", "runs.0.reviewed"}},
	`agentv review status --require-complete --fail-on incorrect,flaky <run>`: {code: 1, output: []string{"unreviewed"}},
}

// placeholders are replaced in every command: the work folder holds copies
// of these corpus runs under runs/, and evals/ holds the card's examples.
var placeholders = []string{
	"<run>", "runs/core-pass-fail-error",
	"<old-run>", "runs/iterations-2",
	"<new-run>", "runs/iterations-3",
	"<results-dir>", "runs",
	"<test-id>", "grader-crash",
	"<grader>", "code-grader:broken-grader",
}

// cardCommand is one command of a ```sh block: a line, or a line opening a
// heredoc with its body.
type cardCommand struct {
	file, text, script string
	line               int
	illustrative       bool
}

var heredoc = regexp.MustCompile(`<<-?'?([A-Z]+)'?$`)

// cardShellCommands splits the ```sh blocks of md into commands. A line
// ending in "# illustrative" is shown, not run.
func cardShellCommands(file string, md []byte) []cardCommand {
	var out []cardCommand
	inBlock := false
	var cur *cardCommand
	var end string
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil:
			cur.script += line + "\n"
			if line == end {
				out = append(out, *cur)
				cur = nil
			}
		case !inBlock:
			inBlock = line == "```sh"
		case line == "```":
			inBlock = false
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		default:
			text, illustrative := strings.CutSuffix(line, "  # illustrative")
			c := cardCommand{file: file, line: n, text: text, script: line + "\n", illustrative: illustrative}
			if m := heredoc.FindStringSubmatch(line); m != nil {
				cur, end = &c, m[1]
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// cardFiles returns SKILL.md and its references, as embedded.
func cardFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range skill.Files() {
		b, err := skill.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// cardWork lays out what the card's commands expect: a git repository with
// the card's examples in evals/ and copies of corpus runs in runs/.
func cardWork(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	for _, run := range []string{"core-pass-fail-error", "iterations-2", "iterations-3"} {
		src := filepath.Join("..", "..", "..", "testdata", "agentv-4.42.4", "runs", run)
		if err := os.CopyFS(filepath.Join(work, "runs", run), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	examples := filepath.Join("..", "..", "..", "skills", skill.Name, "examples")
	if err := os.CopyFS(filepath.Join(work, "evals"), os.DirFS(examples)); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return work
}

// cardPath is a PATH with agentv-review and, when available, the real
// agentv first; agentvOK says whether agentv is the real one.
func cardPath(t *testing.T) (path string, agentvOK bool) {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "agentv-review")); err != nil {
		t.Fatal(err)
	}
	if real := os.Getenv("AGENTV_BIN"); real != "" {
		if err := os.Symlink(real, filepath.Join(dir, "agentv")); err != nil {
			t.Fatal(err)
		}
		agentvOK = true
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), agentvOK
}

// runCard runs script in bash with the wrapper loaded, from dir.
func runCard(t *testing.T, dir, path, script string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c",
		"eval \"$(agentv-review shell-init bash)\"\n"+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, "AGENTV_REVIEWER=card-test", "NO_COLOR=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("bash: %v", err)
	}
	return code, out.String(), errOut.String()
}

func requireAgentV(t *testing.T, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("AGENTV_BIN is unset under CI: .ci/run installs agentv@4.42.4 and sets it")
	}
	t.Skip("AGENTV_BIN unset: npm install --prefix /tmp/agentv442 agentv@4.42.4 and point AGENTV_BIN at its bin/agentv")
}

func TestCardCommands(t *testing.T) {
	path, agentvOK := cardPath(t)
	seen := map[string]bool{}
	replacer := strings.NewReplacer(placeholders...)
	leftover := regexp.MustCompile(`<[a-z][a-z-]*>`)
	files := cardFiles(t)
	commands := map[string][]cardCommand{}
	for _, name := range skill.Files() {
		commands[name] = cardShellCommands(name, files[name])
		for _, c := range commands[name] {
			seen[c.text] = seen[c.text] || !c.illustrative
		}
	}
	for text := range cardCommands {
		if !seen[text] {
			t.Errorf("cardCommands lists %q, which no longer is a runnable command of the card", text)
		}
	}
	for _, name := range skill.Files() {
		t.Run(name, func(t *testing.T) {
			work := cardWork(t)
			for _, c := range commands[name] {
				if c.illustrative {
					continue
				}
				want, ok := cardCommands[c.text]
				if !ok {
					t.Errorf("%s:%d: %q has no entry in cardCommands: add what it must print", c.file, c.line, c.text)
					continue
				}
				script := replacer.Replace(c.script)
				if m := leftover.FindString(script); m != "" {
					t.Errorf("%s:%d: placeholder %s has no test value", c.file, c.line, m)
					continue
				}
				t.Run(fmt.Sprintf("line %d", c.line), func(t *testing.T) {
					if isAgentV(c.text) {
						requireAgentV(t, agentvOK)
					}
					code, stdout, stderr := runCard(t, work, path, script)
					checkCard(t, c, want, code, stdout, stderr, work)
				})
			}
		})
	}
}

// isAgentV: the command runs the real agentv, not agentv review.
func isAgentV(text string) bool {
	return strings.HasPrefix(text, "agentv ") && !strings.HasPrefix(text, "agentv review")
}

var totalFiles = regexp.MustCompile(`Total files: (\d+)`)

func checkCard(t *testing.T, c cardCommand, want expect, code int, stdout, stderr, work string) {
	t.Helper()
	all := stdout + stderr
	fail := func(format string, args ...any) {
		t.Errorf("%s:%d: %s: %s\n--- stdout\n%s--- stderr\n%s", c.file, c.line, c.text, fmt.Sprintf(format, args...), stdout, stderr)
	}
	if code != want.code {
		fail("exit %d, want %d", code, want.code)
	}
	for _, s := range want.output {
		if !strings.Contains(all, s) {
			fail("output lacks %q", s)
		}
	}
	if len(want.fields) > 0 {
		var doc any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			fail("stdout is not one JSON document: %v", err)
			return
		}
		for _, f := range want.fields {
			if msg := jsonField(doc, f); msg != "" {
				fail("%s", msg)
			}
		}
	}
	if strings.HasPrefix(c.text, "agentv validate") {
		// A validate that read no file passes silently: the count must be
		// every example the command was pointed at.
		m := totalFiles.FindStringSubmatch(all)
		examples, _ := filepath.Glob(filepath.Join(work, "evals", "*.eval.yaml"))
		if m == nil || m[1] != strconv.Itoa(len(examples)) {
			fail("validate read %v file(s), want all %d examples", m, len(examples))
		}
	}
}

// jsonField checks one "path[=value]" against doc; "" when it holds.
func jsonField(doc any, field string) string {
	path, value, hasValue := strings.Cut(field, "=")
	cur := doc
	for _, seg := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[seg]
			if !ok {
				return fmt.Sprintf("JSON has no %s (at %q)", path, seg)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i >= len(v) {
				return fmt.Sprintf("JSON has no %s (at %q)", path, seg)
			}
			cur = v[i]
		default:
			return fmt.Sprintf("JSON has no %s (%q is not an object or array)", path, seg)
		}
	}
	if hasValue && fmt.Sprint(cur) != value {
		return fmt.Sprintf("JSON %s = %v, want %s", path, cur, value)
	}
	return ""
}

// TestCardAgentVFacts checks what the card says about AgentV 4.42.4's
// validate against the real thing: it skips EVAL.yaml, and an empty folder
// passes with zero files.
func TestCardAgentVFacts(t *testing.T) {
	path, agentvOK := cardPath(t)
	requireAgentV(t, agentvOK)
	work := cardWork(t)
	for _, tt := range []struct {
		setup, command string
		code           int
		output         []string
	}{
		{"cp evals/basic.eval.yaml EVAL.yaml", "agentv validate EVAL.yaml", 0,
			[]string{"Eval files must end in .eval.yaml", "Skipping validation"}},
		{"cp evals/basic.eval.yaml EVAL.yaml", "agentv validate --max-warnings 0 EVAL.yaml", 1,
			[]string{"Eval files must end in .eval.yaml"}},
		{"mkdir -p empty", "agentv validate --max-warnings 0 empty", 0, []string{"Total files: 0"}},
		{"", "command agentv review status", 1, []string{"Not a valid subcommand name"}},
	} {
		code, stdout, stderr := runCard(t, work, path, tt.setup+"\n"+tt.command)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.command, code, tt.code, stdout, stderr)
		}
		for _, s := range tt.output {
			if !strings.Contains(stdout+stderr, s) {
				t.Errorf("%s: output lacks %q\n%s%s", tt.command, s, stdout, stderr)
			}
		}
	}
}

// TestShellInitCompletion: the wrapper's completion asks the real binary,
// for `agentv review …` and `agentv-review …` alike.
func TestShellInitCompletion(t *testing.T) {
	path, _ := cardPath(t)
	for line, want := range map[string]string{
		"agentv review sta":                  "status",
		"agentv-review sho":                  "show",
		"agentv review status --require-com": "--require-complete",
		"agentv review he":                   "help",
	} {
		script := `read -ra COMP_WORDS <<<"$LINE"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_agentv_review_complete
printf '%s\n' "${COMPREPLY[@]}"`
		code, stdout, stderr := runCard(t, t.TempDir(), path, "LINE='"+line+"'\n"+script)
		if code != 0 || strings.TrimSpace(stdout) != want {
			t.Errorf("complete %q: exit %d, got %q, want %q\n%s", line, code, stdout, want, stderr)
		}
	}
}
