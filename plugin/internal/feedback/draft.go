package feedback

import (
	"unsafe"

	"agentv-review/plugin/internal/caseid"
)

// draft is what a View keeps of the entry being read: its identity and
// what decides its state. The light decoder fills it without reflection
// (see slot), reusing it from entry to entry.
type draft struct {
	id                     caseid.ID
	testID                 []byte // id.TestID's bytes when read by the decoder (see keepTestID)
	verdict, kind, outcome string
	score                  float64
	automated, hasScore    bool
	graders                []draftGrader
}

type draftGrader struct {
	key                     string
	score                   float64
	hasScore, pass, hasPass bool
}

// draftOf is the draft of a decoded entry.
func draftOf(c *Case) *draft {
	e := &draft{id: c.ID(), verdict: c.Verdict, kind: c.ReviewerKind}
	if a := c.Automated; a != nil {
		e.automated, e.outcome = true, a.Outcome
		if a.Score != nil {
			e.score, e.hasScore = *a.Score, true
		}
		for _, g := range a.Graders {
			dg := draftGrader{key: g.Key}
			if g.Score != nil {
				dg.score, dg.hasScore = *g.Score, true
			}
			if g.Pass != nil {
				dg.pass, dg.hasPass = *g.Pass, true
			}
			e.graders = append(e.graders, dg)
		}
	}
	return e
}

// slot names a value of an entry a draft keeps; slotNone, any other.
type slot uint8

const (
	slotNone slot = iota
	slotEntry
	slotTestID
	slotSuite
	slotTarget
	slotVariant
	slotEvalPath
	slotVerdict
	slotKind
	slotAutomated
	slotScore
	slotOutcome
	slotGraders
	slotGrader
	slotKey
	slotGraderScore
	slotPass
)

// child is the slot of member key of the object in slot s.
func (s slot) child(key string) slot {
	switch s {
	case slotEntry:
		switch key {
		case "test_id":
			return slotTestID
		case "suite":
			return slotSuite
		case "target":
			return slotTarget
		case "variant":
			return slotVariant
		case "eval_path":
			return slotEvalPath
		case "verdict":
			return slotVerdict
		case "reviewer_kind":
			return slotKind
		case "automated":
			return slotAutomated
		}
	case slotAutomated:
		switch key {
		case "score":
			return slotScore
		case "outcome":
			return slotOutcome
		case "graders":
			return slotGraders
		}
	case slotGrader:
		switch key {
		case "key":
			return slotKey
		case "score":
			return slotGraderScore
		case "pass":
			return slotPass
		}
	}
	return slotNone
}

// elem is the slot of the elements of the array in slot s.
func (s slot) elem() slot {
	if s == slotGraders {
		return slotGrader
	}
	return slotNone
}

// Each setter reports false for a value its slot cannot hold (as a Go
// field of another type cannot): the light pass then rejects the document.
// A null is taken anywhere, as an absent value (a nil pointer).

// begin starts an object (array: an array) in slot s.
func (e *draft) begin(s slot, array bool) bool {
	switch {
	case array:
		return s == slotGraders
	case s == slotEntry:
		*e = draft{graders: e.graders[:0], testID: e.testID[:0]}
	case s == slotAutomated:
		e.automated = true
	case s == slotGrader:
		e.graders = append(e.graders, draftGrader{})
	default:
		return false
	}
	return true
}

func (e *draft) str(s slot, v string) bool {
	switch s {
	case slotTestID:
		e.id.TestID = v
	case slotSuite:
		e.id.Suite = v
	case slotTarget:
		e.id.Target = v
	case slotVariant:
		e.id.Variant = v
	case slotEvalPath:
		e.id.EvalPath = v
	case slotVerdict:
		e.verdict = v
	case slotKind:
		e.kind = v
	case slotOutcome:
		e.outcome = v
	case slotKey:
		e.graders[len(e.graders)-1].key = v
	default:
		return false
	}
	return true
}

// keepTestID sets the entry's test id to b, a valid one, in e's own
// room: a test id is kept only until the entry is added to a part, which
// binds it to its case (and copies it only for the first stray), so 100k
// of them are not 100k strings for the collector.
func (e *draft) keepTestID(b []byte) {
	e.testID = append(e.testID[:0], b...)
	e.id.TestID = unsafe.String(unsafe.SliceData(e.testID), len(e.testID))
}

func (e *draft) num(s slot, v float64) bool {
	switch s {
	case slotScore:
		e.score, e.hasScore = v, true
	case slotGraderScore:
		g := &e.graders[len(e.graders)-1]
		g.score, g.hasScore = v, true
	default:
		return false
	}
	return true
}

func (e *draft) boolean(s slot, v bool) bool {
	if s != slotPass {
		return false
	}
	g := &e.graders[len(e.graders)-1]
	g.pass, g.hasPass = v, true
	return true
}
