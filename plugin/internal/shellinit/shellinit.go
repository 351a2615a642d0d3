// Package shellinit prints the shell function that makes `agentv review …`
// run agentv-review while every other agentv command reaches the real agentv
// untouched, and the tab completion of both `agentv review` and
// `agentv-review`. AgentV has no plugin dispatch, so a wrapper is the only way to
// present the plugin as an agentv subcommand.
package shellinit

import (
	"fmt"
	"strings"

	"agentv-review/plugin/internal/clierr"
)

// posix is the wrapper function for bash and zsh: both understand this
// syntax, and "$@" keeps every argument exactly as typed. `command`
// bypasses the function so the real binaries run; the function returns
// their status, and stdin is inherited untouched.
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

// Completion, for every shell, asks the binary itself: urfave/cli answers
// `agentv-review WORDS… --generate-bash-completion` with the commands or
// flags that may follow WORDS (one a line), so the candidates cannot drift
// from the app. Both `agentv review …` and `agentv-review …` complete;
// other agentv commands fall back to file names. A word being typed that
// starts with "-" is passed along so flags are offered.

const bashCompletion = `_agentv_review_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} opts
  local -a words
  if [ "${COMP_WORDS[0]}" = agentv-review ]; then
    words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  elif [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W review -- "$cur"))
    return 0
  elif [ "${COMP_WORDS[1]}" = review ]; then
    words=("${COMP_WORDS[@]:2:COMP_CWORD-2}")
  else
    return 0
  fi
  case $cur in -*) words+=("$cur") ;; esac
  opts=$(command agentv-review "${words[@]}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _agentv_review_complete agentv agentv-review
`

// zshCompletion registers only when compinit has run (compdef exists),
// so a startup file without completion stays silent.
const zshCompletion = `_agentv_review_complete() {
  local -a args opts
  if [[ $words[1] == agentv-review ]]; then
    args=("${(@)words[2,CURRENT-1]}")
  elif (( CURRENT == 2 )); then
    compadd review
    _files
    return
  elif [[ $words[2] == review ]]; then
    args=("${(@)words[3,CURRENT-1]}")
  else
    _files
    return
  fi
  [[ $words[CURRENT] == -* ]] && args+=("$words[CURRENT]")
  opts=("${(@f)$(command agentv-review "${args[@]}" --generate-bash-completion 2>/dev/null)}")
  if [[ -n $opts[1] ]]; then
    compadd -a opts
  else
    _files
  fi
}
if (( $+functions[compdef] )); then
  compdef _agentv_review_complete agentv agentv-review
fi
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

# completion: $argv[1] is how many words of the command line name the
# program (1 for agentv-review, 2 for agentv review)
function __agentv_review_complete
    set -l words (commandline -opc)
    set -l args $words[(math $argv[1] + 1)..-1]
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        set -a args $cur
    end
    command agentv-review $args --generate-bash-completion 2>/dev/null
end
function __agentv_is_review
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test "$words[2]" = review
end
complete -c agentv -n 'test (count (commandline -opc)) -eq 1' -a review -d 'human review checkpoint (agentv-review)'
complete -c agentv -n __agentv_is_review -f -a '(__agentv_review_complete 2)'
complete -c agentv-review -f -a '(__agentv_review_complete 1)'
`

var scripts = map[string]string{
	"bash": fmt.Sprintf(posix, "bash") + "\n" + bashCompletion,
	"zsh":  fmt.Sprintf(posix, "zsh") + "\n" + zshCompletion,
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
