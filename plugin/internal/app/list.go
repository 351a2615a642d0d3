package app

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

var (
	scopeFlag  = &cli.StringFlag{Name: "scope", Usage: "which cases (`SCOPE`): suspicious, failures or all; the guided review also takes spot (a random sample of passes)"}
	filterFlag = &cli.StringFlag{Name: "filter", Usage: "only cases matching `EXPR`: a test id glob, target=NAME or grader=TYPE"}
)

func listCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "the cases in review order, with why each sits where it does",
		ArgsUsage: "[run]",
		Flags:     []cli.Flag{jsonFlag, scopeFlag, filterFlag, outFlag},
		Action: act(s, func(s *Streams, c *cli.Context, args []string) error {
			return runList(s, listOptions{Target: argOr(args, 0), Out: c.String("out"), JSON: c.Bool("json"), Scope: c.String("scope"), Filter: c.String("filter")})
		}, 0, 1, "[run]"),
	}
}

// caseSummary is a case as list and show describe it: who it is, the
// machine verdict, and why it sits where it does in the review order.
type caseSummary struct {
	caseRef
	Outcome run.Outcome     `json:"outcome"`
	Score   float64         `json:"score"`
	Tier    string          `json:"tier"`
	Reasons []triage.Reason `json:"reasons"`
	Samples string          `json:"samples,omitempty"`
}

func (st *runState) summary(it triage.Item) caseSummary {
	cs := caseSummary{
		caseRef: st.refOf(it.Case), Outcome: it.Case.Outcome, Score: it.Case.Score,
		Tier: it.Tier.String(), Reasons: it.Reasons(), Samples: triage.SamplePattern(it.Case.Samples),
	}
	if cs.Reasons == nil {
		cs.Reasons = []triage.Reason{}
	}
	return cs
}

// listEntry is one row of list: Rank is its place in the review order
// (1 = look at it first); Pos (from caseRef) is the #N that show and set
// accept, the same whatever the scope, filter or order.
type listEntry struct {
	Rank int `json:"rank"`
	caseSummary
	Verdict      *string `json:"verdict"`       // null when unreviewed
	ReviewerKind *string `json:"reviewer_kind"` // human or agent; null when unreviewed
	State        string  `json:"state"`         // reviewed, proposed, stale or unreviewed (see status)
}

type listReport struct {
	RunID string      `json:"run_id"`
	Scope string      `json:"scope"`
	Total int         `json:"total"` // cases in the run
	Cases []listEntry `json:"cases"`
}

// scopeOf reads --scope and --filter: a filter implies scope "filter";
// default is def.
func scopeOf(scope, filter, def string) (string, triage.Filter, error) {
	var f triage.Filter
	if expr := filter; expr != "" {
		var err error
		if f, err = triage.ParseFilter(expr); err != nil {
			return "", f, err
		}
		if scope != "" && scope != triage.ScopeFilter {
			return "", f, usageConflict("--scope", "--filter")
		}
		scope = triage.ScopeFilter
	}
	if scope == "" {
		scope = def
	}
	return scope, f, nil
}

type listOptions struct {
	Target, Out   string
	JSON          bool
	Scope, Filter string
}

func runList(s *Streams, o listOptions) error {
	scope, filter, err := scopeOf(o.Scope, o.Filter, triage.ScopeAll)
	if err != nil {
		return err
	}
	// A compact read: about 25 bytes a case, each Case made when an
	// item needs it (caseOf), so a million-case list stays small.
	st, err := openStateWith(s, o.Target, o.Out, run.Options{Outline: true, Compact: true}, nil)
	if err != nil {
		return err
	}
	// The earlier runs (regressed, errored before, flipped across runs)
	// are found and read beside the ranking.
	histories := make(chan func(*run.Case) []run.Outcome, 1)
	go func() {
		var history func(*run.Case) []run.Outcome
		if earlier, err := earlierRuns(st, "", false); err == nil {
			history = readOutcomes(earlier)
		}
		histories <- history
	}()
	ranked := triage.RankAll(st.run)
	if history := <-histories; history != nil {
		ranked = triage.WithHistoryIn(st.run, ranked, history)
	}
	items, err := triage.SelectIn(st.run, ranked, scope, filter)
	if err != nil {
		return err
	}
	// Entries are made as they are written, on every core (inOrder): a
	// 100k-case list is never whole in memory.
	rep := listReport{RunID: st.run.ID, Scope: scope, Total: st.run.Len(), Cases: []listEntry{}}
	if o.JSON {
		return writeJSONStream(s.Out, rep, len(items), func() func(b []byte, i int) ([]byte, error) {
			c := new(run.Case) // the chunk's entries are made in turn
			return func(b []byte, i int) ([]byte, error) {
				e := st.listEntry(i+1, items[i], c)
				return appendListEntry(b, &e)
			}
		})
	}
	return st.printList(s, rep, items)
}

// listEntry is the entry of r, ranked rank: its Case is made in c from the
// compact read, its test id a view of the run's (CaseViewAt), as the
// entry is written before the next one is made.
func (st *runState) listEntry(rank int, r triage.Ranked, c *run.Case) listEntry {
	st.run.CaseViewAt(int(r.Pos), c)
	it := triage.Item{Case: c, Ranked: r}
	e := listEntry{Rank: rank, caseSummary: st.summary(it)}
	state, j, _ := st.state(it.Case, false) // reads no file: cannot fail
	e.State = state
	if j != nil {
		kind := cmp.Or(j.ReviewerKind, feedback.Human)
		e.Verdict, e.ReviewerKind = &j.Verdict, &kind
	}
	return e
}

// printList prints the entries of items (rep.Cases is not used), reading
// the items twice: once to size the ref column, once to print.
func (st *runState) printList(s *Streams, rep listReport, items []triage.Ranked) error {
	refWidth := 8
	inOrder(len(items), func(lo, hi int, w *int) error {
		*w = 0
		for _, it := range items[lo:hi] {
			*w = max(*w, min(40, termtext.Width(termtext.SanitizeLine(st.run.RefAt(int(it.Pos))))))
		}
		return nil
	}, func(w *int) error {
		refWidth = max(refWidth, *w)
		return nil
	})
	err := inOrder(len(items), func(lo, hi int, b *[]byte) error {
		*b = (*b)[:0]
		c := new(run.Case)
		for i := lo; i < hi; i++ {
			*b = appendListLine(*b, st.listEntry(i+1, items[i], c), refWidth)
		}
		return nil
	}, func(b *[]byte) error {
		_, err := s.Out.Write(*b) // a reader gone: stop formatting
		return err
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.Out, "%d of %d cases (scope %s)\n", len(items), rep.Total, rep.Scope)
	return err
}

// appendListLine appends e as a line of list's text output, its ref
// padded or cut to refWidth.
func appendListLine(b []byte, e listEntry, refWidth int) []byte {
	verdict := "-"
	switch {
	case e.Verdict == nil:
	case e.State == stateReviewed:
		verdict = *e.Verdict
	default: // proposed or stale: not a current human verdict
		verdict = *e.Verdict + " (" + e.State + ")"
	}
	ref := termtext.Truncate(termtext.SanitizeLine(e.Ref), refWidth, "…")
	reasons := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		reasons[i] = r.Text
	}
	return fmt.Appendf(b, "%6s  %s%s  %-8s %5s  %-28s %s\n", "#"+strconv.Itoa(e.Pos), ref,
		strings.Repeat(" ", refWidth-termtext.Width(ref)), e.Outcome, triage.FormatScore(e.Score),
		verdict, termtext.SanitizeLine(strings.Join(reasons, "; ")))
}

// writeJSONStream writes doc exactly as writeJSON would, except that doc's
// last member, an empty array in doc, is filled with n items, item i
// written by an appendItem as encoding/json would write it at that depth
// (without the trailing newline), on every core (inOrder): the document is
// never whole in memory. Each chunk of items is written by the appendItem
// newAppend gives it, so an appendItem may reuse room from item to item.
func writeJSONStream(w io.Writer, doc any, n int, newAppend func() (appendItem func(b []byte, i int) ([]byte, error))) error {
	var buf bytes.Buffer
	if err := writeJSON(&buf, doc); err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte("[]\n}\n"))
	if !ok {
		return errors.New("writeJSONStream: the document's last member is not an empty array")
	}
	if n == 0 {
		_, err := w.Write(append(head, "[]\n}\n"...))
		return err
	}
	out := bufio.NewWriterSize(w, 64<<10)
	out.Write(head)
	err := inOrder(n, func(lo, hi int, b *[]byte) (err error) {
		*b = (*b)[:0]
		appendItem := newAppend()
		for i := lo; i < hi && err == nil; i++ {
			sep := ",\n    "
			if i == 0 {
				sep = "[\n    "
			}
			*b, err = appendItem(append(*b, sep...), i)
		}
		return err
	}, func(b *[]byte) error {
		_, err := out.Write(*b)
		return err
	})
	if err != nil {
		return err
	}
	out.WriteString("\n  ]\n}\n")
	return out.Flush()
}
