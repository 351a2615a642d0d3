package app

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/termtext"
)

func handoffCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "handoff",
		Usage:     "what to change next after a review: graders, tests, the agent or prompt, infrastructure",
		ArgsUsage: "[run]",
		Description: "Agent proposals still awaiting a human come first, with the command that confirms each. Then every\n" +
			"change grouped by where it goes, each with its cases and the command to look closer. Grader\n" +
			"calibrations are computed from every run in the run's folder. Holdout cases (tag \"holdout\" in the\n" +
			"test's metadata, or --holdout GLOB on test ids) appear as counts only unless --include-holdout:\n" +
			"an agent that sees them fits its prompt to them, and they stop measuring anything.",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: md (the default)", Value: "md"},
			&cli.StringSliceFlag{Name: "holdout", Usage: "test ids matching `GLOB` are holdout (repeatable)"},
			&cli.BoolFlag{Name: "include-holdout", Usage: "list holdout cases too (not for an agent's eyes)"},
		},
		Action: act(s, handoffAction, 0, 1, "[run]"),
	}
}

func handoffAction(s *Streams, c *cli.Context, args []string) error {
	if f := c.String("format"); f != "md" {
		return clierr.Usage("unknown format "+f, "formats: md; or --json")
	}
	if c.Bool("json") && c.IsSet("format") {
		return usageConflict("--json", "--format")
	}
	holdout, err := calibrate.NewHoldout(c.StringSlice("holdout"))
	if err != nil {
		return clierr.Usage(err.Error(), "a GLOB uses * ? and [...] as in shell patterns, e.g. --holdout 'held-*'")
	}
	st, err := openState(s, argOr(args, 0), "")
	if err != nil {
		return err
	}
	rg := calibrate.ReadGraders(st.run)
	for _, w := range rg.Warnings {
		fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, termtext.SanitizeLine(w))
	}
	cert, err := folderCalibration(s, st.run.Dir)
	if err != nil {
		return err
	}
	h := calibrate.BuildHandoff(calibrate.HandoffInput{
		Run: st.run, Feedback: st.own(), Graders: rg, Certificate: cert,
		Holdout: holdout, IncludeHoldout: c.Bool("include-holdout"),
		Command: prog, RunArg: cmp.Or(argOr(args, 0), st.run.Dir),
	})
	if c.Bool("json") {
		return writeJSON(s.Out, h)
	}
	writeHandoffMarkdown(s.Out, h)
	return nil
}

// folderCalibration calibrates the graders from every run in the folder
// that holds runDir, as 'calibrate' on that folder would.
func folderCalibration(s *Streams, runDir string) (*calibrate.Report, error) {
	_, srcs, err := calibrationSources(s, []string{filepath.Dir(runDir)})
	if err != nil {
		var ce *clierr.Error
		if errors.As(err, &ce) && ce.Code == clierr.CodeInvalid {
			return nil, nil // a run on its own: no calibration
		}
		return nil, err
	}
	col := calibrate.Collect(srcs)
	return calibrate.Build(col.Observations, calibrate.Options{Current: col.Current})
}

// writeHandoffMarkdown prints h as markdown. Every text from the run or
// its feedback is sanitised and escaped, and continuation lines are
// indented, so no note can end its list item or start markup of its own.
func writeHandoffMarkdown(w io.Writer, h *calibrate.Handoff) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Handoff: run %s\n\n", md(h.RunID))
	fmt.Fprintf(&b, "%d case(s) in %s.\n", h.Cases, code(h.RunDir))
	if h.Holdout != nil {
		wh := h.Holdout
		fmt.Fprintf(&b, "\n%d holdout case(s) withheld (counts only: proposals %d, graders %d, tests %d, agent %d, infrastructure %d).\n",
			wh.Cases, wh.Proposals, wh.Graders, wh.Tests, wh.Agent, wh.Infrastructure)
	}
	for _, sec := range []struct {
		title string
		items []calibrate.Item
	}{
		{"Agent proposals awaiting a human", h.Proposals},
		{"Graders", h.Graders},
		{"Tests", h.Tests},
		{"The agent or its prompt", h.Agent},
		{"Infrastructure", h.Infrastructure},
	} {
		fmt.Fprintf(&b, "\n## %s\n\n", sec.title)
		if len(sec.items) == 0 {
			b.WriteString("None.\n")
		}
		for _, it := range sec.items {
			writeItem(&b, it)
		}
	}
	io.WriteString(w, b.String())
}

func writeItem(b *strings.Builder, it calibrate.Item) {
	fmt.Fprintf(b, "### %s (%d case(s))\n\n", md(it.Title), len(it.Cases))
	if it.Command != "" {
		fmt.Fprintf(b, "Review them all: %s\n\n", code(it.Command))
	}
	if g := it.Grader; g != nil {
		switch {
		case g.Band != "":
			fmt.Fprintf(b, "Calibration: band **%s** (%s); %d label(s); TPR %s; TNR %s; κ %s.\n\n", g.Band, md(g.BandWhy), g.Labels,
				rateMD(g.TPR), rateMD(g.TNR), kappaMD(g.Kappa))
		default:
			fmt.Fprintf(b, "Calibration: %s.\n\n", md(g.Calibration))
		}
	}
	for _, c := range it.Cases {
		fmt.Fprintf(b, "- %s: test %s", code(c.Ref), code(c.TestID))
		if c.EvalFile != "" {
			fmt.Fprintf(b, " in %s", code(c.EvalFile))
		}
		if c.Verdict != "" {
			fmt.Fprintf(b, ", verdict %s", md(c.Verdict))
		}
		if len(c.Signals) > 0 {
			fmt.Fprintf(b, ", signals %s", md(strings.Join(c.Signals, ", ")))
		}
		b.WriteString("\n")
		if c.Notes != "" {
			fmt.Fprintf(b, "  notes: %s\n", indent(md(c.Notes), "  "))
		}
		if c.Confirm != "" {
			fmt.Fprintf(b, "  confirm (a human): %s\n", code(c.Confirm))
		}
		fmt.Fprintf(b, "  look closer: %s\n", code(c.Show))
	}
	b.WriteString("\n")
}

func rateMD(r *calibrate.Rate) string {
	if r == nil || r.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f] (%d of %d)", r.P, r.Low, r.High, r.K, r.N)
}

func kappaMD(k *calibrate.Estimate) string {
	if k == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", k.Value, k.Low, k.High)
}

// mdInline are the characters that can start or end inline markdown
// (emphasis, code, links, HTML, entities, tables, strikethrough).
const mdInline = "\\`*_[]<>|~&"

// md sanitises s and escapes it so it reads as the text it is: every
// inline markup character, and at the start of a line what would start a
// block (heading, list, quote, setext underline, numbered list). Line
// breaks stay (see indent).
func md(s string) string {
	lines := strings.Split(termtext.Sanitize(s), "\n")
	for i, line := range lines {
		var b strings.Builder
		body := strings.TrimLeft(line, " ")
		b.WriteString(line[:len(line)-len(body)])
		if body != "" && strings.ContainsRune("#-+=>", rune(body[0])) {
			b.WriteByte('\\')
		}
		digits := len(body) - len(strings.TrimLeft(body, "0123456789"))
		for j, r := range body {
			if (r < 128 && strings.ContainsRune(mdInline, r)) || (j == digits && digits > 0 && (r == '.' || r == ')')) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// indent indents every line of s after the first, so a multi-line note
// stays inside its list item; blank lines become an escaped space so the
// item does not end there.
func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			lines[i] = "&#32;"
		}
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// code is s sanitised to one line as a code span, fenced with one more
// backtick than the longest run of backticks in it.
func code(s string) string {
	s = termtext.SanitizeLine(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
