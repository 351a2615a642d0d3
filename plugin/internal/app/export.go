package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/history"
	"agentv-review/plugin/internal/run"
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
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` (atomically) instead of standard output; never inside a run, never over an existing file without --force", TakesFile: true},
			&cli.BoolFlag{Name: "force", Usage: "with --out, replace an existing file (never a run's own files)"},
			&cli.StringSliceFlag{Name: "holdout", Usage: "test ids matching `GLOB` are holdout (repeatable): their rows are left out and counted on stderr"},
			&cli.BoolFlag{Name: "include-holdout", Usage: "export holdout cases too (not for an agent's eyes)"},
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
	holdout, err := calibrate.NewHoldout(c.StringSlice("holdout"))
	if err != nil {
		return clierr.Usage(err.Error(), "a GLOB uses * ? and [...] as in shell patterns, e.g. --holdout 'held-*'")
	}
	_, runs, err := loadRuns(s, argOr(args, 0))
	if err != nil {
		return err
	}
	out := c.String("out")
	if out != "" {
		if err := guardOut(out, runs, c.Bool("force")); err != nil {
			return err
		}
	}
	rows := history.Rows(runs)
	if !c.Bool("include-holdout") {
		var withheld int
		if rows, withheld = withoutHoldout(rows, runs, holdout); withheld > 0 {
			printf(s.Err, "%s: %d row(s) of holdout cases withheld (--include-holdout exports them)\n", prog, withheld)
		}
	}
	var b bytes.Buffer
	if err := write(&b, rows); err != nil {
		return err
	}
	if out != "" {
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

// guardOut refuses an export path inside any run it reads (a manifest, a
// sidecar, a feedback file, a draft or a history copy could be replaced),
// and an existing file unless force.
func guardOut(out string, runs []history.Run, force bool) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return clierr.Usage("cannot resolve --out "+out+": "+err.Error(), "")
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	for _, r := range runs {
		root := r.Run.Dir
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		inside := abs == r.Run.Manifest
		if r.Run.Layout != run.LayoutFlat { // a flat run's folder holds other runs too
			if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
				inside = true
			}
		}
		if inside {
			return clierr.Usage(fmt.Sprintf("--out %s is inside run %s", out, r.Run.ID), "write the export outside the run directories")
		}
	}
	if fi, err := os.Lstat(abs); err == nil && !force {
		what := "exists"
		if !fi.Mode().IsRegular() {
			what = "exists and is not a plain file"
		}
		return clierr.Usage(fmt.Sprintf("--out %s %s", out, what), "pass --force to replace it, or choose another file")
	}
	return nil
}

// withoutHoldout drops the rows of holdout cases: a case of a test tagged
// holdout in its task bundle, or whose test id matches a --holdout glob.
func withoutHoldout(rows []history.Row, runs []history.Run, h calibrate.Holdout) ([]history.Row, int) {
	byID := map[string]*run.Run{}
	for _, r := range runs {
		byID[r.Run.ID] = r.Run
	}
	cache := map[string]bool{}
	isHoldout := func(row history.Row) bool {
		key := row.RunID + "\x00" + row.TestID
		if v, ok := cache[key]; ok {
			return v
		}
		v := false
		if r := byID[row.RunID]; r != nil {
			if i, _ := caseid.Match(r.CaseIDs(), caseid.ID{TestID: row.TestID, Target: row.Target, Variant: row.Variant}); i >= 0 {
				v = h.Is(r, r.Cases[i])
			}
		}
		cache[key] = v
		return v
	}
	kept := rows[:0:0]
	withheld := 0
	for _, row := range rows {
		if isHoldout(row) {
			withheld++
			continue
		}
		kept = append(kept, row)
	}
	return kept, withheld
}
