package shellinit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"agentv-review/plugin/internal/clierr"
)

// stub prints its name, each argument in brackets and its stdin, then exits
// with $STUB_EXIT, so a test sees exactly what the wrapper handed over.
const stub = `#!/bin/sh
printf '%s' "$(basename "$0")"
for a in "$@"; do printf ' [%s]' "$a"; done
printf '\nstdin=%s\n' "$(cat)"
exit "${STUB_EXIT:-0}"
`

// drivers load the wrapper the way the docs tell users to, then call the
// function with the driver's own arguments.
var drivers = map[string][]string{
	"bash": {"--norc", "--noprofile", "-c", `eval "$(cat "$WRAPPER")"; agentv "$@"`, "bash"},
	"zsh":  {"-f", "-c", `eval "$(cat "$WRAPPER")"; agentv "$@"`, "zsh"},
	"fish": {"--no-config", "-c", `cat $WRAPPER | source; agentv $argv`, "--"},
}

func TestScriptUnknownShell(t *testing.T) {
	_, err := Script("tcsh")
	if err == nil {
		t.Fatal("Script(tcsh) returned no error")
	}
	for _, sh := range Shells() {
		if !strings.Contains(err.Error(), sh) {
			t.Errorf("error %q does not list %s", err, sh)
		}
	}
	if got := clierr.Code(err); got != clierr.CodeUsage {
		t.Errorf("exit code = %d, want %d", got, clierr.CodeUsage)
	}
}

func TestWrapperInRealShells(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"agentv", "agentv-review"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tricky := []string{"a b", `"quoted"`, "it's", "*", "$HOME", "", "--json", "x\ny"}

	tests := []struct {
		name  string
		args  []string
		stdin string
		exit  int
		want  string
	}{
		{"review args pass through exactly", append([]string{"review", "show"}, tricky...), "", 0,
			"agentv-review [show] [a b] [\"quoted\"] [it's] [*] [$HOME] [] [--json] [x\ny]\nstdin=\n"},
		{"review alone", []string{"review"}, "", 0, "agentv-review\nstdin=\n"},
		{"review exit code", []string{"review", "status", "--require-complete"}, "", 3,
			"agentv-review [status] [--require-complete]\nstdin=\n"},
		{"review stdin", []string{"review", "apply", "--from", "-"}, "line one\nline two", 0,
			"agentv-review [apply] [--from] [-]\nstdin=line one\nline two\n"},
		{"version goes to agentv", []string{"--version"}, "", 0, "agentv [--version]\nstdin=\n"},
		{"no args goes to agentv", nil, "", 0, "agentv\nstdin=\n"},
		{"other commands untouched", append([]string{"eval", "run"}, tricky...), "in", 5,
			"agentv [eval] [run] [a b] [\"quoted\"] [it's] [*] [$HOME] [] [--json] [x\ny]\nstdin=in\n"},
		{"review later is not the plugin", []string{"results", "review"}, "", 0, "agentv [results] [review]\nstdin=\n"},
		{"prefix is not review", []string{"reviewx"}, "", 0, "agentv [reviewx]\nstdin=\n"},
	}

	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			path, wrapper := shellWithWrapper(t, shell, t.TempDir())
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					cmd := exec.CommandContext(ctx, path, slices.Concat(drivers[shell], tc.args)...)
					cmd.Env = append(os.Environ(),
						"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
						"WRAPPER="+wrapper, "STUB_EXIT="+strconv.Itoa(tc.exit))
					cmd.Stdin = strings.NewReader(tc.stdin)
					var stderr strings.Builder
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					code := 0
					var exitErr *exec.ExitError
					if errors.As(err, &exitErr) {
						code = exitErr.ExitCode()
					} else if err != nil {
						t.Fatalf("run %s: %v", shell, err)
					}
					if string(out) != tc.want {
						t.Errorf("output:\n%q\nwant:\n%q\nstderr: %s", out, tc.want, stderr.String())
					}
					if code != tc.exit {
						t.Errorf("exit code = %d, want %d", code, tc.exit)
					}
				})
			}
		})
	}
}

// completionStub answers like urfave/cli's --generate-bash-completion and
// appends the arguments it got, one a line, to $ARGS_FILE.
const completionStub = `#!/bin/sh
printf '%s\n' "$*" >>"$ARGS_FILE"
printf 'status\nshow\nset\n--json\n--help\n'
`

// completers ask each shell's completion for the candidates of a command
// line ($LINE, completing its last word; "" for a new word) with the
// shell's own machinery, or with compadd/_files stubbed out in zsh, whose
// completion system only runs inside an interactive line editor.
var completers = map[string][]string{
	"bash": {"--norc", "--noprofile", "-c", `eval "$(cat "$WRAPPER")"
read -ra COMP_WORDS <<<"$LINE"
case $LINE in *' ') COMP_WORDS+=("") ;; esac
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_agentv_review_complete
printf '%s\n' "${COMPREPLY[@]}"`},
	"zsh": {"-f", "-c", `autoload -Uz compinit && compinit -u -D
eval "$(cat "$WRAPPER")"
(( $+_comps[agentv] && $+_comps[agentv-review] )) || { echo "compdef did not register"; exit 1; }
compadd() { [[ $1 == -a ]] && print -l -- "${(@P)2}" || print -l -- "$@"; }
_files() { print -- FILES; }
words=("${(@s: :)LINE}")
[[ $LINE == *' ' ]] && words+=("")
CURRENT=${#words}
_agentv_review_complete | grep -- "^${words[CURRENT]}"`},
	"fish": {"--no-config", "-c", `cat $WRAPPER | source; complete -C "$LINE" | string replace -r '\t.*' ''; true`},
}

func TestCompletionInRealShells(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "agentv-review"), []byte(completionStub), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line     string
		want     []string // candidates, sorted (fish sorts them)
		wantArgs string   // what agentv-review was asked; "" when not asked
	}{
		{"agentv review s", []string{"set", "show", "status"}, "--generate-bash-completion"},
		{"agentv review show --j", []string{"--json"}, "show --j --generate-bash-completion"},
		{"agentv-review st", []string{"status"}, "--generate-bash-completion"},
		{"agentv rev", []string{"review"}, ""},
	}
	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			dir := t.TempDir()
			path, wrapper := shellWithWrapper(t, shell, dir)
			for _, tc := range tests {
				t.Run(tc.line, func(t *testing.T) {
					argsFile := filepath.Join(dir, strings.ReplaceAll(tc.line, " ", "_")+".args")
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					cmd := exec.CommandContext(ctx, path, completers[shell]...)
					cmd.Dir = dir
					cmd.Env = append(os.Environ(),
						"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
						"WRAPPER="+wrapper, "LINE="+tc.line, "ARGS_FILE="+argsFile, "HOME="+dir)
					out, err := cmd.CombinedOutput()
					if err != nil {
						t.Fatalf("%s: %v\n%s", shell, err, out)
					}
					var got []string
					for _, c := range strings.Split(strings.TrimSpace(string(out)), "\n") {
						if c != "" && c != "FILES" {
							got = append(got, c)
						}
					}
					slices.Sort(got)
					if !slices.Equal(got, tc.want) {
						t.Errorf("candidates for %q = %q, want %q", tc.line, got, tc.want)
					}
					asked, _ := os.ReadFile(argsFile)
					if tc.wantArgs == "" && len(asked) > 0 || tc.wantArgs != "" && !strings.Contains(string(asked), tc.wantArgs+"\n") {
						t.Errorf("agentv-review was asked %q, want %q", asked, tc.wantArgs)
					}
				})
			}
		})
	}
}

// shellWithWrapper finds shell (skipping the test when it is not bash and
// not installed) and writes its wrapper script into dir.
func shellWithWrapper(t *testing.T, shell, dir string) (path, wrapper string) {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		if shell == "bash" {
			t.Fatal("bash not found on PATH")
		}
		t.Skipf("%s not installed", shell)
	}
	script, err := Script(shell)
	if err != nil {
		t.Fatal(err)
	}
	wrapper = filepath.Join(dir, "wrapper."+shell)
	if err := os.WriteFile(wrapper, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, wrapper
}
