package app

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/safefile"
	"agentv-review/plugin/internal/termtext"
)

// certificateName is the judge certificate's file name in a results folder.
const certificateName = "calibration.json"

func calibrateCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "calibrate",
		Usage:     "measure each grader against human verdicts: TPR, TNR, Cohen's kappa, fitness band, false passes",
		ArgsUsage: "[results-dir | run...]",
		Description: "Reads every reviewed run in [results-dir] (default: as for history), or the runs given, oldest first.\n" +
			"Only human verdicts are labels; agent proposals, flaky cases and verdicts carried from an earlier run\n" +
			"are counted apart. Each grader configuration (fingerprint of its assertion in the run's task bundle)\n" +
			"is calibrated on its own. --write stores the judge certificate as <results-dir>/" + certificateName + "\n" +
			"(for runs given as arguments: the folder of the newest), which status --require-calibrated reads.\n" +
			"See 'agentv review docs calibration'.",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: text or csv (one row per grader configuration)", Value: "text"},
			&cli.BoolFlag{Name: "write", Usage: "store the judge certificate in the results folder (atomically)"},
			&cli.BoolFlag{Name: "needs-improvement-passes", Usage: "count needs_improvement as a human pass (default: a fail)"},
			&cli.Float64Flag{Name: "margin", Usage: "± `MARGIN` the labels-needed counts aim for", Value: calibrate.DefaultMargin},
		},
		Action: act(s, calibrateAction, 0, -1, "[results-dir | run...]"),
	}
}

func calibrateAction(s *Streams, c *cli.Context, args []string) error {
	format := c.String("format")
	if format != "text" && format != "csv" {
		return clierr.Usage("unknown format "+format, "formats: text, csv")
	}
	if c.Bool("json") && c.IsSet("format") {
		return usageConflict("--json", "--format")
	}
	dir, srcs, err := calibrationSources(s, args)
	if err != nil {
		return err
	}
	col := calibrate.Collect(srcs)
	for _, w := range col.Warnings {
		fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, termtext.SanitizeLine(w))
	}
	rep, err := calibrate.Build(col.Observations, calibrate.Options{
		LabelRules: calibrate.LabelRules{NeedsImprovementPasses: c.Bool("needs-improvement-passes")},
		Margin:     c.Float64("margin"), Current: col.Current, Now: s.now(),
	})
	if err != nil {
		return clierr.Usage(err.Error(), "pass a margin between 0 and 1")
	}
	if col.Carried > 0 {
		fmt.Fprintf(s.Err, "%s: note: %d verdict(s) carried forward from an earlier run are not counted again\n", prog, col.Carried)
	}
	if c.Bool("write") {
		path := filepath.Join(dir, certificateName)
		if err := writeCertificate(path, rep); err != nil {
			return err
		}
		fmt.Fprintf(s.Err, "%s: wrote %s\n", prog, termtext.SanitizeLine(path))
	}
	switch {
	case c.Bool("json"):
		return writeJSON(s.Out, rep)
	case format == "csv":
		var b bytes.Buffer
		if err := calibrate.WriteCSV(&b, rep); err != nil {
			return err
		}
		out := b.String()
		if s.TTYOut != nil {
			out = termtext.Sanitize(out)
		}
		_, err := s.Out.Write([]byte(out))
		return err
	}
	return calibrate.WriteText(s.Out, rep)
}

// calibrationSources opens the runs to calibrate from, oldest first, and
// names the folder the certificate belongs in: one argument (or none) is a
// results folder or a run, read as history reads it; several are runs.
func calibrationSources(s *Streams, args []string) (string, []calibrate.Source, error) {
	var srcs []calibrate.Source
	if len(args) <= 1 {
		root, runs, err := loadRuns(s, argOr(args, 0))
		if err != nil {
			return "", nil, err
		}
		for _, r := range runs {
			srcs = append(srcs, calibrate.Source{Run: r.Run, Feedback: r.Feedback})
		}
		if len(runs) == 1 && runs[0].Run.Dir == root { // a run, not a folder of runs
			root = filepath.Dir(root)
		}
		return root, srcs, nil
	}
	byDir := map[string]*runState{}
	var dirs []string
	for _, a := range args {
		st, err := openState(s, a, "")
		if err != nil {
			return "", nil, err
		}
		if byDir[st.run.Dir] == nil {
			byDir[st.run.Dir] = st
			dirs = append(dirs, st.run.Dir)
		}
	}
	run.SortByRanAt(dirs)
	for _, d := range dirs {
		srcs = append(srcs, calibrate.Source{Run: byDir[d].run, Feedback: byDir[d].own()})
	}
	return filepath.Dir(dirs[len(dirs)-1]), srcs, nil
}

// writeCertificate checks rep against the certificate schema and replaces
// path with it atomically and durably.
func writeCertificate(path string, rep *calibrate.Report) error {
	data, err := calibrate.Encode(rep)
	if err == nil {
		var problems []string
		if problems, err = calibrate.Validate(data); err == nil && len(problems) > 0 {
			err = errors.New("invalid certificate: " + strings.Join(problems, "; "))
		}
	}
	if err != nil {
		return &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "not written: " + err.Error(), Err: err}
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "cannot write: " + clierr.Cause(err), Err: err}
	}
	return nil
}

// certificateFor finds the judge certificate that covers the run in
// runDir: calibration.json in the run's folder or one above it, up to the
// enclosing .agentv/results (only the run's own folder when the run is not
// inside one). found is false when there is none; path is then where
// calibrate --write on the run's folder would put it.
func certificateFor(runDir string) (path string, found bool) {
	first := filepath.Join(filepath.Dir(runDir), certificateName)
	sep := string(filepath.Separator)
	marker := sep + ".agentv" + sep + "results"
	i := strings.LastIndex(runDir+sep, marker+sep)
	for dir := filepath.Dir(runDir); ; dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, certificateName); exists(p) {
			return p, true
		}
		if i < 0 || len(dir) <= i+len(marker) || dir == filepath.Dir(dir) {
			return first, false
		}
	}
}

// loadCertificate reads and checks a judge certificate. A missing one is a
// failure (exit 1) with the command that writes it.
func loadCertificate(path string) (*calibrate.Report, error) {
	data, err := safefile.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "no judge certificate",
			Hint: "compute it with '" + prog + " calibrate --write " + filepath.Dir(path) + "'"}
	}
	if err != nil {
		return nil, clierr.Input(path, 0, "", "cannot read: "+clierr.Cause(err), "")
	}
	rep, err := calibrate.Decode(path, data)
	if err != nil {
		return nil, clierr.Input("", 0, "", err.Error(), "recompute it with '"+prog+" calibrate --write'")
	}
	return rep, nil
}

// parseBand reads --band: gating or trend.
func parseBand(s string) (calibrate.Band, error) {
	b := calibrate.Band(s)
	if b != calibrate.Gating && b != calibrate.Trend {
		return "", clierr.Usage(fmt.Sprintf("--band %q is not gating or trend", s), "gating: the grader may decide a run; trend: watch it")
	}
	return b, nil
}

// calibrationGate is status --require-calibrated: each grader that decides
// rg's cases, with its current configuration, must be calibrated in cert
// to at least band ("gating" or "trend"). The error is a usage error (exit
// 2) for a bad band, and a failure (exit 1) when a grader fails or the
// graders of some case could not be read; the results say why per grader.
func calibrationGate(rg *calibrate.RunGraders, cert *calibrate.Report, band string) ([]calibrate.GateResult, error) {
	b, err := parseBand(band)
	if err != nil {
		return nil, err
	}
	results, err := calibrate.CalibrationGate(rg, cert, b)
	if err != nil {
		return nil, clierr.Usage(err.Error(), "")
	}
	failed := slices.IndexFunc(results, func(r calibrate.GateResult) bool { return !r.Pass })
	switch {
	case len(rg.Warnings) > 0:
		return results, clierr.Failure(nil, fmt.Sprintf("calibration gate failed: the graders of %d case(s) could not be read", len(rg.Warnings)), "")
	case failed >= 0:
		n := 0
		for _, r := range results {
			if !r.Pass {
				n++
			}
		}
		return results, clierr.Failure(nil, fmt.Sprintf("calibration gate failed: %d of %d deciding grader(s) not calibrated to %s; first: %s: %s",
			n, len(results), b, results[failed].Key, results[failed].Reason), "label more cases with '"+prog+"', then '"+prog+" calibrate --write'")
	}
	return results, nil
}
