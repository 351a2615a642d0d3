package calibrate

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/csvsafe"
	"agentv-review/plugin/internal/termtext"
)

// WriteText prints rep for a terminal. Every string that came from a run
// or feedback file (keys, fingerprints, run ids, cases) is sanitised.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	san := termtext.SanitizeLine
	if len(rep.Graders) == 0 {
		line("no grader has human labels yet")
	}
	for i, g := range rep.Graders {
		if i > 0 {
			line("")
		}
		state := "current"
		if !g.Current {
			state = "older configuration: history, not evidence"
		}
		if g.Unrecorded {
			state += "; configuration not recorded: the task bundle has no assertion of this type and name"
		}
		line("%s  %s  (%s)", san(g.Key), san(g.Config), state)
		line("  labels %d (not counted: %d agent, %d flaky, %d no verdict, %d replaced)",
			g.Labels, g.Excluded.Agent, g.Excluded.Flaky, g.Excluded.NoVerdict, g.Excluded.Replaced)
		c := g.Confusion
		line("  TP %d  FN %d  TN %d  FP %d", c.TP, c.FN, c.TN, c.FP)
		line("  TPR %s  (%d of %d human passes)", rateText(g.TPR), g.TPR.K, g.TPR.N)
		line("  TNR %s  (%d of %d human fails)", rateText(g.TNR), g.TNR.K, g.TNR.N)
		if g.Kappa != nil {
			line("  κ   %.3f [%.3f, %.3f]  SE %.4f", g.Kappa.Value, g.Kappa.Low, g.Kappa.High, g.Kappa.SE)
		} else {
			line("  κ   n/a: %s", g.KappaNA)
		}
		line("  band %s: %s", g.Band, g.BandWhy)
		line("  false passes (%d): %s", len(g.FalsePasses), refsText(g.FalsePasses))
		line("  false fails (%d): %s", len(g.FalseFails), refsText(g.FalseFails))
		line("  to pin TPR and TNR within ±%.2f: %d more human-pass and %d more human-fail labels",
			rep.Margin, g.Needed.Positive, g.Needed.Negative)
	}
	line("")
	line("rule: %s", rep.BandRule)
	line("needs_improvement counted as %s; 95 %% intervals (Wilson for rates), z = %g", rep.NeedsImprovementAs, rep.Z)
	_, err := io.WriteString(w, b.String())
	return err
}

func rateText(r Rate) string {
	if r.N == 0 {
		return "n/a (no labels)"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", r.P, r.Low, r.High)
}

func refsText(refs []CaseRef) string {
	if len(refs) == 0 {
		return "none"
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = termtext.SanitizeLine(r.RunID) + " " + termtext.SanitizeLine(r.Case)
	}
	return strings.Join(parts, ", ")
}

// CSVHeader names the columns WriteCSV writes.
var CSVHeader = []string{
	"key", "config", "current", "labels", "tp", "fn", "tn", "fp",
	"tpr", "tpr_low", "tpr_high", "tnr", "tnr_low", "tnr_high",
	"kappa", "kappa_low", "kappa_high", "band",
	"false_passes", "false_fails", "needed_positive", "needed_negative", "unrecorded",
}

// WriteCSV writes one row per grader configuration under CSVHeader. Rates
// have three decimals; an unknown rate or κ is empty. Text cells from files
// are neutralised against spreadsheet formula injection (csvsafe.Cell);
// the numbers are the program's own.
func WriteCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, g := range rep.Graders {
		c := g.Confusion
		row := []string{csvsafe.Cell(g.Key), csvsafe.Cell(g.Config), strconv.FormatBool(g.Current), strconv.Itoa(g.Labels),
			strconv.Itoa(c.TP), strconv.Itoa(c.FN), strconv.Itoa(c.TN), strconv.Itoa(c.FP)}
		row = append(row, rateCells(g.TPR)...)
		row = append(row, rateCells(g.TNR)...)
		if k := g.Kappa; k != nil {
			row = append(row, num(k.Value), num(k.Low), num(k.High))
		} else {
			row = append(row, "", "", "")
		}
		row = append(row, string(g.Band), strconv.Itoa(len(g.FalsePasses)), strconv.Itoa(len(g.FalseFails)),
			strconv.Itoa(g.Needed.Positive), strconv.Itoa(g.Needed.Negative), strconv.FormatBool(g.Unrecorded))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func rateCells(r Rate) []string {
	if r.N == 0 {
		return []string{"", "", ""}
	}
	return []string{num(r.P), num(r.Low), num(r.High)}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
