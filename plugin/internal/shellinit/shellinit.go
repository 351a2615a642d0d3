// Package shellinit prints the shell function that makes `agentv review …`
// run agentv-review while every other agentv command reaches the real agentv
// untouched. AgentV has no plugin dispatch, so a wrapper is the only way to
// present the plugin as an agentv subcommand.
package shellinit

import (
	"fmt"
	"strings"

	"agentv-review/plugin/internal/clierr"
)

// posix serves bash and zsh: both understand this function syntax, and
// "$@" keeps every argument exactly as typed. `command` bypasses the
// function so the real binaries run; the function returns their status,
// and stdin is inherited untouched.
const posix = `# agentv review wrapper (%[1]s): add to your shell startup file:
#   eval "$(agentv-review shell-init %[1]s)"
agentv() {
  if [ "$#" -gt 0 ] && [ "$1" = review ]; then
    shift
    command agentv-review "$@"
  else
    command agentv "$@"
  fi
}
`

// fish erases the first argument instead of slicing, which behaves the
// same on every fish 3 release whatever the argument count.
const fish = `# agentv review wrapper (fish): add to ~/.config/fish/config.fish:
#   agentv-review shell-init fish | source
function agentv --description 'agentv, with "agentv review" handled by agentv-review'
    if test (count $argv) -gt 0; and test "$argv[1]" = review
        set -e argv[1]
        command agentv-review $argv
    else
        command agentv $argv
    end
end
`

var scripts = map[string]string{
	"bash": fmt.Sprintf(posix, "bash"),
	"zsh":  fmt.Sprintf(posix, "zsh"),
	"fish": fish,
}

// Shells lists the supported shells in the order help texts show them.
func Shells() []string { return []string{"bash", "zsh", "fish"} }

// Script returns the wrapper for shell, or a usage error naming the
// supported shells.
func Script(shell string) (string, error) {
	if s, ok := scripts[shell]; ok {
		return s, nil
	}
	supported := strings.Join(Shells(), ", ")
	return "", clierr.Usage(
		fmt.Sprintf("unsupported shell %q (supported: %s)", shell, supported),
		"run: agentv-review shell-init bash   (or zsh, fish)",
	)
}
