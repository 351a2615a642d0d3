package calibrate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
)

// GraderConfig is one grader of a case with its configuration.
type GraderConfig struct {
	Ref
	Verdict GraderVerdict
	// Unrecorded: the task bundle holds no assertion of this type and name,
	// so Config is the fingerprint of UnrecordedDef.
	Unrecorded bool
}

// UnrecordedDef is the definition fingerprinted for a grader whose task
// bundle does not record it: its type and name, marked so that it never
// equals a recorded configuration.
func UnrecordedDef(typ, name string) GraderDef {
	return GraderDef{Type: typ, Name: name, Params: map[string]any{"configuration": "not recorded"}}
}

// CaseGraders reads the graders of case c with their verdicts and
// configurations: each grader of the row (Detail's, so a run opened in
// outline mode works too) is matched by type and name with an assertion
// of the test's task bundle (run.Task). The error is for a row that can no
// longer be read.
func CaseGraders(r *run.Run, c *run.Case) ([]GraderConfig, error) {
	d, err := r.Detail(c)
	if err != nil {
		return nil, err
	}
	task, err := r.Task(d)
	if err != nil {
		return nil, err
	}
	out := make([]GraderConfig, 0, len(d.Graders))
	for _, g := range d.Graders {
		gc := GraderConfig{Ref: Ref{Key: g.Key()}, Verdict: GraderNone}
		if g.Pass != nil {
			gc.Verdict = GraderFail
			if *g.Pass {
				gc.Verdict = GraderPass
			}
		}
		def := UnrecordedDef(g.Type, g.Name)
		i := slices.IndexFunc(task.Assertions, func(a run.Assertion) bool { return a.Type == g.Type && a.Name == g.Name })
		if i >= 0 {
			def = graderDef(task.Assertions[i])
		} else {
			gc.Unrecorded = true
		}
		if gc.Config, err = Fingerprint(def); err != nil {
			return nil, err
		}
		out = append(out, gc)
	}
	return out, nil
}

// graderDef maps a task bundle's assertion onto what Fingerprint hashes.
// prompt, target and command have fields of their own; every other setting
// and a composite's member assertions are params.
func graderDef(a run.Assertion) GraderDef {
	def := GraderDef{Type: a.Type, Name: a.Name, Value: a.Value, Negate: a.Negate, Required: a.Required}
	for _, r := range a.Rubrics {
		item := RubricItem{ID: r.ID, Outcome: r.Outcome, Operator: r.Operator}
		if r.Weight != nil {
			item.Weight = *r.Weight
		}
		if r.Required {
			item.Required = "true"
		}
		def.Rubrics = append(def.Rubrics, item)
	}
	param := func(k string, v any) {
		if def.Params == nil {
			def.Params = map[string]any{}
		}
		def.Params[k] = v
	}
	for _, s := range a.Settings {
		var cmd []string
		switch {
		case s.Key == "prompt":
			def.Prompt = s.Value
		case s.Key == "target":
			def.Target = s.Value
		case s.Key == "model":
			def.Model = s.Value
		case s.Key == "command" && json.Unmarshal([]byte(s.Value), &cmd) == nil:
			def.Command = cmd
		default:
			var v any
			if json.Unmarshal([]byte(s.Value), &v) != nil {
				v = s.Value // a plain string
			}
			param(s.Key, v)
		}
	}
	if len(a.Children) > 0 {
		param("assertions", a.Children)
	}
	return def
}

// Source is one reviewed run: its feedback may be nil.
type Source struct {
	Run      *run.Run
	Feedback *feedback.File
}

// Collection is what Collect read from a set of runs.
type Collection struct {
	Observations []Observation
	// Current lists every grader configuration of the last run (all its
	// cases, reviewed or not): the configurations in use now.
	Current []Ref
	// Carried counts verdicts carried forward from an earlier run: they
	// repeat a judgment already counted there, so they are not labels again.
	Carried int
	// Warnings name cases whose graders could not be read.
	Warnings []string
}

// Collect turns the reviews of runs (oldest first) into observations: one
// per grader of each judged case, agent proposals included (Build counts
// them apart). A grader is named wrong on a case when the entry's
// evaluator_overrides has a note on its "type:name" and the entry's
// signals include one that points at a grader.
func Collect(runs []Source) *Collection {
	col := &Collection{}
	for i, src := range runs {
		last := i == len(runs)-1
		ix := feedback.Bind(src.Feedback, src.Run.CaseIDs())
		for ci, c := range src.Run.Cases {
			e := ix.Entry(ci)
			if e != nil && e.CarriedFrom != nil {
				col.Carried++
				e = nil
			}
			if e == nil && !last {
				continue
			}
			gs, err := CaseGraders(src.Run, c)
			if err != nil {
				col.Warnings = append(col.Warnings, fmt.Sprintf("run %s, case %s: graders not read: %v", src.Run.ID, src.Run.Ref(c), err))
				continue
			}
			for _, g := range gs {
				if last && !slices.Contains(col.Current, g.Ref) {
					col.Current = append(col.Current, g.Ref)
				}
				if e == nil {
					continue
				}
				o := Observation{
					RunID: src.Run.ID, Case: src.Run.Ref(c), Grader: g.Key, Config: g.Config,
					GraderVerdict: g.Verdict, Human: HumanVerdict(e.Verdict), Reviewer: kindOf(src.Feedback, e),
					Unrecorded: g.Unrecorded,
				}
				if _, named := e.EvaluatorOverrides[g.Key]; named {
					o.NamedWrong = graderSignal(e.Signals)
				}
				col.Observations = append(col.Observations, o)
			}
		}
	}
	return col
}

// kindOf is who gave entry e: its own reviewer_kind, else the file's; a
// verdict with neither is a person's (AgentV's documented file has no kind).
func kindOf(f *feedback.File, e *feedback.Case) ReviewerKind {
	if cmp.Or(e.ReviewerKind, f.ReviewerKind) == feedback.Agent {
		return Agent
	}
	return Human
}

// graderSignal is the first signal that points at a grader, or NotNamed.
func graderSignal(signals []string) Signal {
	for _, s := range signals {
		switch Signal(s) {
		case FalsePositive, FalseNegative, GraderMiscalibration:
			return Signal(s)
		}
	}
	return NotNamed
}

// IsProposal reports whether entry e of f is an agent's proposal that no
// human has confirmed.
func IsProposal(f *feedback.File, e *feedback.Case) bool { return kindOf(f, e) == Agent }
