package app

import (
	"bytes"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/history"
	"agentv-review/plugin/internal/termtext"
)

func exportCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "one row per case judgment across runs, as CSV or JSON Lines, for spreadsheets",
		ArgsUsage: "[results-dir|run]",
		Description: "Columns: " + strings.Join(history.Header, ", ") + ".\n" +
			"Signals are joined by \";\" and grader overrides are one \"type:name: note\" line each in CSV;\n" +
			"JSON Lines keeps them as an array and an object. Notes from older feedback shapes have verdict \"note\".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: csv or jsonl"},
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` (atomically) instead of standard output", TakesFile: true},
		},
		Action: act(s, exportAction, 0, 1, "[results-dir|run]"),
	}
}

func exportAction(s *Streams, c *cli.Context, args []string) error {
	if err := requireFlag(c, "format"); err != nil {
		return err
	}
	write := map[string]func(*bytes.Buffer, []history.Row) error{
		"csv":   func(b *bytes.Buffer, rows []history.Row) error { return history.WriteCSV(b, rows) },
		"jsonl": func(b *bytes.Buffer, rows []history.Row) error { return history.WriteJSONL(b, rows) },
	}[c.String("format")]
	if write == nil {
		return clierr.Usage("unknown format "+c.String("format"), "formats: csv, jsonl")
	}
	_, runs, err := loadRuns(s, argOr(args, 0))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := write(&b, history.Rows(runs)); err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		if err := atomicfile.WriteFile(out, b.Bytes()); err != nil {
			return &clierr.Error{Code: clierr.CodeFailure, File: out, Msg: "cannot write: " + clierr.Cause(err), Err: err}
		}
		return nil
	}
	if s.TTYOut != nil {
		// Notes reach a terminal: show escape sequences, never run them.
		_, err := s.Out.Write([]byte(termtext.Sanitize(b.String())))
		return err
	}
	_, err = s.Out.Write(b.Bytes())
	return err
}
