package app

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/docs"
	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/shellinit"
	"agentv-review/schema"
	skill "agentv-review/skills/agentv-eval-builder"
)

func docsCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name: "docs",
		Usage: "print the embedded docs (topics: " + strings.Join(docs.Topics(), ", ") +
			"; the skill's references: " + strings.Join(skill.References(), ", ") + ")",
		ArgsUsage: "[topic]",
		Action:    act(s, docsAction, 0, 1, "[topic]"),
	}
}

func docsAction(s *Streams, _ *cli.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(s.Out, "topics:")
		for _, t := range docs.Topics() {
			fmt.Fprintf(s.Out, "  %s docs %s\n", prog, t)
		}
		fmt.Fprintf(s.Out, "references of the %s skill (%s skill):\n", skill.Name, prog)
		for _, t := range skill.References() {
			fmt.Fprintf(s.Out, "  %s docs %s\n", prog, t)
		}
		return nil
	}
	if md, ok := skill.Reference(args[0]); ok {
		return s.markdown(md)
	}
	md, err := docs.Read(args[0])
	if err != nil {
		return clierr.Usage(err.Error()+"; skill references: "+strings.Join(skill.References(), ", "),
			"run '"+prog+" docs' for the list")
	}
	return s.markdown(md)
}

func skillCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:  "skill",
		Usage: "print the agentv-eval-builder skill card for coding agents, or install it with --install",
		Description: "Install into a project's agent skills folder, for example:\n" +
			"  agentv review skill --install .claude/skills\n" +
			"  agentv review skill --install .agents/skills",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "install", Usage: "write SKILL.md and references/ into `DIR`/" + skill.Name + "/"},
			&cli.BoolFlag{Name: "force", Usage: "with --install, replace files that differ from this version"},
		},
		Action: act(s, skillAction, 0, 0, ""),
	}
}

func skillAction(s *Streams, c *cli.Context, _ []string) error {
	dir := c.String("install")
	if dir == "" {
		if c.Bool("force") {
			return clierr.Usage("--force needs --install DIR", "agentv review skill --install .claude/skills --force")
		}
		return s.markdown(skill.Card())
	}
	paths, err := skill.Install(dir, c.Bool("force"), atomicfile.WriteFile)
	if errors.Is(err, skill.ErrConflict) {
		return &clierr.Error{Code: clierr.CodeFailure, Msg: err.Error(), Hint: "pass --force to replace it with this version"}
	}
	if err != nil {
		return clierr.Failure(err, "cannot install the skill: "+err.Error(), "check that "+dir+" is writable")
	}
	for _, p := range paths {
		fmt.Fprintln(s.Out, p)
	}
	return nil
}

func schemaCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:   "schema",
		Usage:  "print the feedback.json JSON Schema (draft-07)",
		Action: act(s, func(s *Streams, _ *cli.Context, _ []string) error { _, err := s.Out.Write(schema.JSON); return err }, 0, 0, ""),
	}
}

func shellInitCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "shell-init",
		Usage:     "print a shell wrapper that sends 'agentv review …' to agentv-review and everything else to agentv, with tab completion",
		ArgsUsage: "bash|zsh|fish",
		Description: "Add one line to your shell's startup file:\n" +
			"  bash  ~/.bashrc                  eval \"$(agentv-review shell-init bash)\"\n" +
			"  zsh   ~/.zshrc                   eval \"$(agentv-review shell-init zsh)\"\n" +
			"  fish  ~/.config/fish/config.fish agentv-review shell-init fish | source",
		Action: act(s, func(s *Streams, _ *cli.Context, args []string) error {
			script, err := shellinit.Script(args[0])
			if err != nil {
				return err
			}
			_, err = io.WriteString(s.Out, script)
			return err
		}, 1, 1, "bash|zsh|fish"),
	}
}

// markdown prints embedded markdown: raw when stdout is not a terminal
// (agents and pipes read the file byte for byte), lightly styled on one.
func (s *Streams) markdown(md []byte) error {
	if s.TTYOut == nil || s.Getenv("NO_COLOR") != "" {
		_, err := s.Out.Write(md)
		return err
	}
	const bold, dim, reset = "\x1b[1m", "\x1b[2m", "\x1b[0m"
	inCode := false
	for _, line := range strings.Split(string(md), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
			continue
		case inCode:
			line = "    " + dim + line + reset
		case strings.HasPrefix(line, "#"):
			line = bold + strings.TrimLeft(line, "# ") + reset
		}
		if _, err := fmt.Fprintln(s.Out, line); err != nil {
			return err
		}
	}
	return nil
}
