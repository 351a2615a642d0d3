package history

import (
	"slices"

	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/feedback"
)

// Verdicts are the categories of Cohen's kappa, in the catalog's order.
var Verdicts = []string{feedback.Acceptable, feedback.NeedsImprovement, feedback.Incorrect, feedback.Flaky}

// Agreement compares two reviewers' judgments of one run. Entries are
// matched by the identity they record (suite, test_id, target, variant,
// eval_path) exactly.
type Agreement struct {
	Both     int      `json:"both"`   // cases both judged
	Agreed   int      `json:"agreed"` // of those, with the same verdict
	Observed float64  `json:"observed_agreement"`
	Expected float64  `json:"expected_agreement"`
	Kappa    *float64 `json:"kappa"` // nil when no case was judged by both
	// Matrix[i][j] counts cases A judged Verdicts[i] and B Verdicts[j].
	Matrix    [4][4]int  `json:"matrix"`
	Conflicts []Conflict `json:"conflicts"`
	OnlyA     []CaseKey  `json:"only_a"`
	OnlyB     []CaseKey  `json:"only_b"`
	// AnchoringA and AnchoringB are each reviewer's blind-first verdicts
	// and how many of them the revealed machine verdict changed.
	AnchoringA Anchoring `json:"anchoring_a"`
	AnchoringB Anchoring `json:"anchoring_b"`
}

// Anchoring counts a reviewer's blind-first verdicts (blind_verdict set)
// and those they changed once the machine's verdict was shown.
type Anchoring struct {
	Blind   int      `json:"blind"`
	Changed int      `json:"changed"`
	Rate    *float64 `json:"rate"` // Changed/Blind, nil when no blind verdict
}

func anchoringOf(f *feedback.File) Anchoring {
	var a Anchoring
	for _, c := range f.PerCase {
		if c.BlindVerdict != "" {
			a.Blind++
			if c.BlindVerdict != c.Verdict {
				a.Changed++
			}
		}
	}
	if a.Blind > 0 {
		r := float64(a.Changed) / float64(a.Blind)
		a.Rate = &r
	}
	return a
}

// CaseKey names a judged case: the identity its entries record, matched
// exactly (two files without a run to bind them to have nothing else).
type CaseKey = caseid.ID

// Conflict is a case the reviewers judged differently.
type Conflict struct {
	CaseKey
	A string `json:"a"`
	B string `json:"b"`
}

// Agree compares a's and b's per_case entries.
//
// Cohen's kappa = (po − pe) / (1 − pe) over the cases both judged, with
// po the share of cases with the same verdict and pe = Σ_k pA(k)·pB(k) the
// agreement expected by chance from each reviewer's verdict frequencies.
// When pe = 1 both reviewers gave every case the same single verdict, so
// po = 1 as well and the formula is 0/0: kappa is then defined as 1
// (perfect agreement), not left undefined.
func Agree(a, b *feedback.File) Agreement {
	ag := Agreement{Conflicts: []Conflict{}, OnlyA: []CaseKey{}, OnlyB: []CaseKey{}, AnchoringA: anchoringOf(a), AnchoringB: anchoringOf(b)}
	inB := map[CaseKey]string{}
	for _, c := range b.PerCase {
		inB[keyOfCase(c)] = c.Verdict
	}
	var countA, countB [4]int
	for _, c := range a.PerCase {
		k := keyOfCase(c)
		vb, ok := inB[k]
		if !ok {
			ag.OnlyA = append(ag.OnlyA, k)
			continue
		}
		delete(inB, k)
		i, j := slices.Index(Verdicts, c.Verdict), slices.Index(Verdicts, vb)
		ag.Both++
		ag.Matrix[i][j]++
		countA[i]++
		countB[j]++
		if i == j {
			ag.Agreed++
		} else {
			ag.Conflicts = append(ag.Conflicts, Conflict{CaseKey: k, A: c.Verdict, B: vb})
		}
	}
	for _, c := range b.PerCase {
		if k := keyOfCase(c); inB[k] != "" {
			ag.OnlyB = append(ag.OnlyB, k)
		}
	}
	if ag.Both == 0 {
		return ag
	}
	n := float64(ag.Both)
	ag.Observed = float64(ag.Agreed) / n
	for k := range Verdicts {
		ag.Expected += float64(countA[k]) / n * float64(countB[k]) / n
	}
	kappa := 1.0
	if ag.Expected < 1 {
		kappa = (ag.Observed - ag.Expected) / (1 - ag.Expected)
	}
	ag.Kappa = &kappa
	return ag
}

func keyOfCase(c feedback.Case) CaseKey { return c.ID() }
