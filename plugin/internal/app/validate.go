package app

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/safefile"
	"agentv-review/plugin/internal/termtext"
)

func validateCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a feedback.json against the schema; every error with its JSON path (exit 3 when invalid)",
		ArgsUsage: "<feedback.json>",
		Flags:     []cli.Flag{jsonFlag},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			return runValidate(s, validateOptions{Path: args[0], JSON: c.Bool("json")})
		}, 1, 1, "<feedback.json>"),
	}
}

type validateProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

type validateReport struct {
	File     string            `json:"file"`
	Valid    bool              `json:"valid"`
	Kind     feedback.Kind     `json:"kind"`
	Problems []validateProblem `json:"problems"`
}

type validateOptions struct {
	Path string
	JSON bool
}

func runValidate(s *Streams, o validateOptions) error {
	path := o.Path
	data, err := safefile.ReadRegular(path)
	if err != nil {
		return clierr.Input(path, 0, "", "cannot read: "+clierr.Cause(err), "pass the path of a feedback.json")
	}
	kind, problems, err := feedback.Check(data)
	rep := validateReport{File: path, Kind: kind, Problems: []validateProblem{}}
	if rep.Kind != feedback.KindReview {
		rep.Problems = append(rep.Problems, validateProblem{Path: feedback.RootPath,
			Message: fmt.Sprintf("this is a %s file, not review feedback; '%s' imports its notes as earlier notes", rep.Kind, prog)})
	} else {
		var se *feedback.SyntaxError
		switch {
		case errors.As(err, &se):
			rep.Problems = append(rep.Problems, validateProblem{Path: feedback.RootPath, Message: "not JSON: " + se.Msg, Line: se.Line, Column: se.Column})
		case err != nil:
			return err
		}
		for _, p := range problems {
			rep.Problems = append(rep.Problems, validateProblem{Path: p.Path, Message: p.Msg})
		}
	}
	rep.Valid = len(rep.Problems) == 0
	if o.JSON {
		if err := writeJSON(s.Out, rep); err != nil {
			return err
		}
	} else if rep.Valid {
		fmt.Fprintf(s.Out, "%s: valid\n", termtext.SanitizeLine(path))
	} else {
		for _, p := range rep.Problems {
			loc := termtext.SanitizeLine(path)
			if p.Line > 0 {
				loc += fmt.Sprintf(":%d:%d", p.Line, p.Column)
			}
			fmt.Fprintf(s.Out, "%s: %s: %s\n", loc, termtext.SanitizeLine(p.Path), termtext.SanitizeLine(p.Message))
		}
	}
	if !rep.Valid {
		return &clierr.Error{Code: clierr.CodeInvalid, File: path, Msg: fmt.Sprintf("invalid: %d problem(s)", len(rep.Problems)),
			Hint: "the schema is printed by '" + prog + " schema'; fields are described by '" + prog + " docs feedback-schema'"}
	}
	return nil
}
