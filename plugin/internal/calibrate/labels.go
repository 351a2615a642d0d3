package calibrate

import "fmt"

// GraderVerdict is a grader's verdict on one case.
type GraderVerdict string

// Grader verdicts. GraderNone: the grader gave none (skipped, errored).
const (
	GraderPass GraderVerdict = "pass"
	GraderFail GraderVerdict = "fail"
	GraderNone GraderVerdict = ""
)

// HumanVerdict is a reviewer's verdict on a case (feedback.json's verdict).
type HumanVerdict string

// The human verdicts.
const (
	Acceptable       HumanVerdict = "acceptable"
	NeedsImprovement HumanVerdict = "needs_improvement"
	Incorrect        HumanVerdict = "incorrect"
	Flaky            HumanVerdict = "flaky"
)

// ReviewerKind says whether a verdict came from a person or an agent.
type ReviewerKind string

// The reviewer kinds.
const (
	Human ReviewerKind = "human"
	Agent ReviewerKind = "agent"
)

// Signal is a review signal that points at a grader.
type Signal string

// The grader-pointing signals; NotNamed means the reviewer did not name the
// grader as wrong.
const (
	NotNamed             Signal = ""
	FalsePositive        Signal = "false_positive"
	FalseNegative        Signal = "false_negative"
	GraderMiscalibration Signal = "grader_miscalibration"
)

// Observation is one grader's verdict on one case of one run beside the
// review of that case.
type Observation struct {
	RunID         string
	Case          string // the case reference, as the caller prints it
	Grader        string // grader key "type:name"
	Config        string // Fingerprint of the grader's definition in that run
	GraderVerdict GraderVerdict
	Human         HumanVerdict
	Reviewer      ReviewerKind
	// NamedWrong is the grader-pointing signal of a reviewer's note that
	// names this grader as wrong on this case, or NotNamed.
	NamedWrong Signal
	// Unrecorded says the run's task bundle did not record the grader's
	// definition, so Config fingerprints its type and name only.
	Unrecorded bool
}

// Exclusion says why an observation is not a label.
type Exclusion string

// The reasons an observation is not a label; Counted means it is one.
const (
	Counted   Exclusion = ""
	ByAgent   Exclusion = "agent"      // an agent's proposal never calibrates a grader
	AsFlaky   Exclusion = "flaky"      // no single truth
	NoVerdict Exclusion = "no_verdict" // the grader gave none
)

// LabelRules are the configurable label rules.
type LabelRules struct {
	// NeedsImprovementPasses counts needs_improvement as a human pass. By
	// default it is a fail: the grader passed something a person says is
	// not good enough.
	NeedsImprovementPasses bool
}

// Label returns the human label of o's grader on o's case (true = pass),
// or why o is not a label. A reviewer who named the grader as wrong
// labels it the opposite of its verdict; otherwise the label is the
// case's human pass/fail. o must be valid (see Validate).
func (r LabelRules) Label(o Observation) (pass bool, why Exclusion) {
	switch {
	case o.Reviewer == Agent:
		return false, ByAgent
	case o.Human == Flaky:
		return false, AsFlaky
	case o.GraderVerdict == GraderNone:
		return false, NoVerdict
	case o.NamedWrong != NotNamed:
		return o.GraderVerdict == GraderFail, Counted
	}
	return o.Human == Acceptable || (o.Human == NeedsImprovement && r.NeedsImprovementPasses), Counted
}

// Validate reports the first field of o that holds a value outside its set,
// or an empty run id, case, grader or config.
func (o Observation) Validate() error {
	for _, f := range []struct{ name, value string }{
		{"run id", o.RunID}, {"case", o.Case}, {"grader", o.Grader}, {"config", o.Config},
	} {
		if f.value == "" {
			return fmt.Errorf("%s is empty", f.name)
		}
	}
	if err := oneOf("grader verdict", o.GraderVerdict, GraderPass, GraderFail, GraderNone); err != nil {
		return err
	}
	if err := oneOf("human verdict", o.Human, Acceptable, NeedsImprovement, Incorrect, Flaky); err != nil {
		return err
	}
	if err := oneOf("reviewer kind", o.Reviewer, Human, Agent); err != nil {
		return err
	}
	return oneOf("named-wrong signal", o.NamedWrong, NotNamed, FalsePositive, FalseNegative, GraderMiscalibration)
}

func oneOf[T ~string](field string, v T, allowed ...T) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s %q is not one of %q", field, string(v), allowed)
}
