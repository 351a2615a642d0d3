package calibrate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// Handoff is what to change next after a reviewed run, grouped by where
// the change goes (docs/handoff.md; schema/handoff.schema.json). Every text
// in it comes from the run and its feedback, raw: sanitise it for display.
type Handoff struct {
	RunID  string `json:"run_id"`
	RunDir string `json:"run_dir"`
	Cases  int    `json:"cases"`
	// Proposals are agent verdicts no human has confirmed yet: they change
	// nothing until a person confirms them, so they come first.
	Proposals      []Item    `json:"proposals"`
	Graders        []Item    `json:"graders"`
	Tests          []Item    `json:"tests"`
	Agent          []Item    `json:"agent"`
	Infrastructure []Item    `json:"infrastructure"`
	Holdout        *Withheld `json:"holdout,omitempty"`
}

// Item is one thing to change, with the cases that show it.
type Item struct {
	Kind    string      `json:"kind"`
	Title   string      `json:"title"`
	Command string      `json:"command,omitempty"` // a command for the whole item
	Grader  *GraderInfo `json:"grader,omitempty"`
	Cases   []CaseItem  `json:"cases"`
}

// GraderInfo is a grader with its calibration in the certificate.
type GraderInfo struct {
	Key    string `json:"key"`
	Config string `json:"config,omitempty"` // "" when unknown
	// Band and the rest are the calibration of this configuration; Band is
	// "" and Calibration says why when the certificate has none.
	Band        Band      `json:"band,omitempty"`
	BandWhy     string    `json:"band_why,omitempty"`
	Labels      int       `json:"labels"`
	TPR         *Rate     `json:"tpr,omitempty"`
	TNR         *Rate     `json:"tnr,omitempty"`
	Kappa       *Estimate `json:"kappa,omitempty"`
	Calibration string    `json:"calibration,omitempty"`
}

// CaseItem is one case of an item.
type CaseItem struct {
	Ref      string   `json:"ref"`
	TestID   string   `json:"test_id"`
	EvalFile string   `json:"eval_file,omitempty"`
	Verdict  string   `json:"verdict,omitempty"`
	Signals  []string `json:"signals,omitempty"`
	Notes    string   `json:"notes,omitempty"`
	Show     string   `json:"show"`              // the command to look closer
	Confirm  string   `json:"confirm,omitempty"` // proposals: the command a human runs to confirm
}

// Withheld counts the holdout cases left out, in all and by section. Only counts
// reach an agent: seeing holdout cases, it would fit the prompt to them.
type Withheld struct {
	Cases          int `json:"cases"`
	Proposals      int `json:"proposals"`
	Graders        int `json:"graders"`
	Tests          int `json:"tests"`
	Agent          int `json:"agent"`
	Infrastructure int `json:"infrastructure"`
}

// HandoffInput is what BuildHandoff reads.
type HandoffInput struct {
	Run      *run.Run
	Feedback *feedback.File // nil when unreviewed
	// Graders are the run's graders with their configurations (ReadGraders);
	// Certificate the calibration (nil when none).
	Graders     *RunGraders
	Certificate *Report
	Holdout     Holdout
	// IncludeHoldout lists holdout cases like the others.
	IncludeHoldout bool
	// Command is how commands name the program, RunArg the run.
	Command, RunArg string
}

// The item kinds besides feedback's verdicts and test defects.
const (
	KindProposal          = "proposal"
	KindGrader            = "grader"
	KindNonDiscriminating = "non_discriminating_assertion"
	KindExecutionError    = "execution_error"
)

// BuildHandoff sorts the run's reviewed and errored cases into items.
func BuildHandoff(in HandoffInput) *Handoff {
	h := &Handoff{RunID: in.Run.ID, RunDir: in.Run.Dir, Cases: len(in.Run.Cases),
		Proposals: []Item{}, Graders: []Item{}, Tests: []Item{}, Agent: []Item{}, Infrastructure: []Item{}}
	b := &handoffBuilder{in: in, h: h, holdout: map[int]bool{}, withheld: map[string]map[int]bool{}}
	ix := feedback.Bind(in.Feedback, in.Run.CaseIDs())
	for i, c := range in.Run.Cases {
		e := ix.Entry(i)
		if c.Outcome == run.Errored {
			stage := cmp.Or(c.FailureStage, "unknown stage")
			b.add(&h.Infrastructure, "infrastructure", KindExecutionError+":"+stage,
				"fix the execution error ("+stage+")", i, b.caseItem(i, e, c.Error))
		}
		switch {
		case e == nil:
		case IsProposal(in.Feedback, e):
			ci := b.caseItem(i, e, e.Notes)
			ci.Confirm = fmt.Sprintf("%s set --verdict %s %s %s", in.Command, e.Verdict, quote(in.RunArg), quote(ci.Ref))
			b.add(&h.Proposals, "proposals", KindProposal+":"+e.Verdict,
				"confirm or change the agent's proposed verdict "+e.Verdict+" (a human runs the command, or reviews them all)", i, ci)
		default:
			b.human(i, c, e)
		}
	}
	for i := range h.Proposals {
		h.Proposals[i].Command = in.Command + " " + quote(in.RunArg)
	}
	b.calibrated()
	for _, items := range [][]Item{h.Graders, h.Tests} {
		slices.SortStableFunc(items, func(a, b Item) int {
			return cmp.Or(cmp.Compare(len(b.Cases), len(a.Cases)), cmp.Compare(a.Title, b.Title))
		})
	}
	w := &Withheld{Proposals: len(b.withheld["proposals"]), Graders: len(b.withheld["graders"]), Tests: len(b.withheld["tests"]),
		Agent: len(b.withheld["agent"]), Infrastructure: len(b.withheld["infrastructure"])}
	for _, yes := range b.holdout {
		if yes && !in.IncludeHoldout {
			w.Cases++
		}
	}
	if w.Cases > 0 {
		h.Holdout = w
	}
	return h
}

type handoffBuilder struct {
	in       HandoffInput
	h        *Handoff
	holdout  map[int]bool            // case index → holdout, once known
	withheld map[string]map[int]bool // section → holdout cases left out of it
}

// human files a human verdict: its grader notes, test defect and verdict.
func (b *handoffBuilder) human(i int, c *run.Case, e *feedback.Case) {
	h := b.h
	keys := make([]string, 0, len(e.EvaluatorOverrides))
	for k := range e.EvaluatorOverrides {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.addGrader(k, i, b.caseItem(i, e, e.EvaluatorOverrides[k]))
	}
	switch e.TestDefect {
	case "":
	case "grader_config_error":
		b.add(&h.Graders, "graders", e.TestDefect, "fix the grader configuration the reviewer flagged", i, b.caseItem(i, e, e.Notes))
	default:
		b.add(&h.Tests, "tests", e.TestDefect, "fix the test: "+strings.ReplaceAll(e.TestDefect, "_", " "), i, b.caseItem(i, e, e.Notes))
	}
	if e.Verdict == feedback.Incorrect || e.Verdict == feedback.NeedsImprovement {
		notes := e.Notes
		if e.WorkspaceNotes != "" {
			notes = strings.TrimSpace(notes + "\nworkspace: " + e.WorkspaceNotes)
		}
		title := map[string]string{
			feedback.Incorrect:        "change the agent or its prompt: answers judged incorrect",
			feedback.NeedsImprovement: "improve the agent or its prompt: answers that need improvement",
		}[e.Verdict]
		b.add(&h.Agent, "agent", e.Verdict, title, i, b.caseItem(i, e, notes))
	}
}

// addGrader files case i under grader key.
func (b *handoffBuilder) addGrader(key string, i int, ci CaseItem) {
	b.add(&b.h.Graders, "graders", KindGrader+":"+key, "fix or recalibrate grader "+key, i, ci)
}

// calibrated adds what the certificate knows: the calibration of each
// grader item, the false passes and fails of this run, and graders that
// gave one verdict on every labelled case although people judged both
// ways (non-discriminating assertions).
func (b *handoffBuilder) calibrated() {
	cert, rg := b.in.Certificate, b.in.Graders
	if rg == nil {
		return
	}
	refs := rg.Deciders()
	byKey := map[string]Ref{}
	for _, r := range refs {
		byKey[r.Key] = r
	}
	cal := map[Ref]*Grader{}
	if cert != nil {
		for i := range cert.Graders {
			cal[Ref{cert.Graders[i].Key, cert.Graders[i].Config}] = &cert.Graders[i]
		}
	}
	pos := map[string]int{} // case ref → index
	for i, c := range b.in.Run.Cases {
		pos[b.in.Run.Ref(c)] = i
	}
	for _, ref := range refs {
		g := cal[ref]
		if g == nil {
			continue
		}
		for _, fp := range g.FalsePasses {
			if i, ok := pos[fp.Case]; ok && fp.RunID == b.in.Run.ID && !b.inItem(KindGrader+":"+ref.Key, fp.Case) {
				b.addGrader(ref.Key, i, b.caseItem(i, nil, "false pass: the grader passed, a reviewer failed the case"))
			}
		}
		for _, ff := range g.FalseFails {
			if i, ok := pos[ff.Case]; ok && ff.RunID == b.in.Run.ID && !b.inItem(KindGrader+":"+ref.Key, ff.Case) {
				b.addGrader(ref.Key, i, b.caseItem(i, nil, "false fail: the grader failed, a reviewer passed the case"))
			}
		}
		if g.Confusion.TP+g.Confusion.FN > 0 && g.Confusion.TN+g.Confusion.FP > 0 &&
			(g.Confusion.TP+g.Confusion.FP == g.Labels || g.Confusion.TN+g.Confusion.FN == g.Labels) {
			verdict := "passed"
			if g.Confusion.TN+g.Confusion.FN == g.Labels {
				verdict = "failed"
			}
			title := fmt.Sprintf("make assertion %s discriminate: it %s all %d labelled cases, which people judged both ways", ref.Key, verdict, g.Labels)
			for i, gs := range rg.Cases {
				if slices.ContainsFunc(gs, func(c GraderConfig) bool { return c.Ref == ref }) {
					b.add(&b.h.Tests, "tests", KindNonDiscriminating+":"+ref.Key, title, i, b.caseItem(i, nil, ""))
				}
			}
		}
	}
	for _, items := range [][]Item{b.h.Graders, b.h.Tests} {
		for j := range items {
			key, ok := strings.CutPrefix(items[j].Kind, KindGrader+":")
			if !ok {
				key, ok = strings.CutPrefix(items[j].Kind, KindNonDiscriminating+":")
			}
			if ok {
				items[j].Grader = graderInfo(key, byKey, cal)
			}
		}
	}
}

func graderInfo(key string, byKey map[string]Ref, cal map[Ref]*Grader) *GraderInfo {
	ref, decides := byKey[key]
	gi := &GraderInfo{Key: key, Config: ref.Config}
	g := cal[ref]
	switch {
	case !decides:
		gi.Calibration = "the grader gave no verdict in this run"
	case g == nil:
		gi.Calibration = "no calibration for its current configuration in the certificate"
	default:
		tpr, tnr := g.TPR, g.TNR
		gi.Band, gi.BandWhy, gi.Labels, gi.TPR, gi.TNR, gi.Kappa = g.Band, g.BandWhy, g.Labels, &tpr, &tnr, g.Kappa
	}
	return gi
}

// inItem reports whether the item of kind already lists case ref.
func (b *handoffBuilder) inItem(kind, ref string) bool {
	for _, it := range b.h.Graders {
		if it.Kind == kind {
			return slices.ContainsFunc(it.Cases, func(c CaseItem) bool { return c.Ref == ref })
		}
	}
	return false
}

// add files ci under the item of kind in items, or notes case i as
// withheld from section when it is holdout.
func (b *handoffBuilder) add(items *[]Item, section, kind, title string, i int, ci CaseItem) {
	if b.isHoldout(i) {
		if b.withheld[section] == nil {
			b.withheld[section] = map[int]bool{}
		}
		b.withheld[section][i] = true
		return
	}
	for j := range *items {
		if (*items)[j].Kind == kind {
			(*items)[j].Cases = append((*items)[j].Cases, ci)
			return
		}
	}
	*items = append(*items, Item{Kind: kind, Title: title, Cases: []CaseItem{ci}})
}

func (b *handoffBuilder) isHoldout(i int) bool {
	if known, ok := b.holdout[i]; ok {
		return known && !b.in.IncludeHoldout
	}
	yes := b.in.Holdout.Is(b.in.Run, b.in.Run.Cases[i])
	b.holdout[i] = yes
	return yes && !b.in.IncludeHoldout
}

// caseItem describes case i with entry e (nil when none) and a note.
func (b *handoffBuilder) caseItem(i int, e *feedback.Case, notes string) CaseItem {
	r := b.in.Run
	c := r.Cases[i]
	ci := CaseItem{Ref: r.Ref(c), TestID: c.TestID, EvalFile: c.EvalPath, Notes: notes}
	if e != nil {
		ci.Verdict, ci.Signals = e.Verdict, e.Signals
	}
	ci.Show = fmt.Sprintf("%s show %s %s", b.in.Command, quote(b.in.RunArg), quote(ci.Ref))
	return ci
}

// quote makes s one shell word: as is when it holds only characters no
// shell treats specially, else in single quotes.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" && s[0] != '-' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
