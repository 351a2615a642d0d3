package review

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"agentv-review/plugin/internal/calibrate"
	"agentv-review/plugin/internal/caseid"
	"agentv-review/plugin/internal/feedback"
	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/triage"
)

// ScopeSpot is the spot check: a seeded random sample of passed cases,
// judged in draw order, with the estimated false-pass rate after each
// verdict. Every prefix of the draw is itself a uniform sample, so the
// reviewer may stop as soon as the estimate is precise enough.
const ScopeSpot = "spot"

const (
	// DefaultSpotSample is calibrate.SampleToClaim(0.10): with none of 29
	// sampled passes wrong, the false-pass rate is ≤ 10 % at 95 %.
	DefaultSpotSample = 29
	// DefaultSpotWidth is the interval width at which the spot check
	// says the reviewer can stop: 10 percentage points.
	DefaultSpotWidth = 0.10
)

// spotCheck is the state of a spot check.
type spotCheck struct {
	seed       uint64
	size       int // cases asked for (the sample holds fewer when fewer passed)
	population int // passed cases
	width      float64
	announced  bool // the stopping point was offered
}

// spotSample draws the spot check's cases from ranked, in draw order. The
// draw names cases by their #N (their position in the run), so a recorded
// seed and size draw the same cases of the run again.
func (s *session) spotSample(ranked []triage.Item) []triage.Item {
	byRef := map[string]triage.Item{}
	var passed []string
	for _, it := range ranked {
		if it.Case.Outcome == run.Passed {
			ref := caseid.Position(int(it.Case.Index))
			byRef[ref] = it
			passed = append(passed, ref)
		}
	}
	sample := calibrate.SamplePassed(passed, s.spotSize(), *s.SpotSeed)
	items := make([]triage.Item, len(sample.Cases))
	for i, ref := range sample.Cases {
		items[i] = byRef[ref]
	}
	s.spot = &spotCheck{seed: sample.Seed, size: s.spotSize(), population: sample.Population, width: s.SpotWidth}
	if s.spot.width <= 0 {
		s.spot.width = DefaultSpotWidth
	}
	return items
}

func (s *session) spotSize() int {
	if s.SpotSample > 0 {
		return s.SpotSample
	}
	return DefaultSpotSample
}

// drawSeed settles the spot check's seed: given, recorded in the resumed
// draft, or random.
func (s *session) drawSeed() {
	if s.SpotSeed == nil {
		seed := rand.Uint64()
		s.SpotSeed = &seed
	}
}

// afterVerdict moves on after a judged case; in a spot check it first
// shows the estimate and, once it is precise enough, offers to stop.
func (s *session) afterVerdict(pos int) (move, error) {
	if s.Scope != ScopeSpot {
		return s.next(pos), nil
	}
	check, err := s.spotEstimate()
	if err != nil {
		return move{}, err
	}
	done := check.Done(s.spot.width)
	s.say("%s\n", spotLine(check, done, s.spot.width))
	if !done || s.spot.announced || pos+1 >= len(s.items) {
		return s.next(pos), nil
	}
	s.spot.announced = true
	q := s.Catalog.Q("spot_done")
	stopNow, err := s.ask.Confirm(q.Message, true, q.Help)
	if err != nil {
		return move{}, err
	}
	if stopNow {
		return move{to: finishNow}, nil
	}
	return s.next(pos), nil
}

// spotEstimate counts the sampled passes judged so far and the wrong
// ones: incorrect or needs improvement (calibrate's default labels); a
// flaky verdict has no single truth and is left out.
func (s *session) spotEstimate() (calibrate.SpotCheck, error) {
	wrong, judged := 0, 0
	for _, it := range s.items {
		e := s.workIx.Entry(int(it.Case.Index))
		if e == nil || unfinished(e) || e.Verdict == feedback.Flaky {
			continue
		}
		judged++
		if e.Verdict == feedback.Incorrect || e.Verdict == feedback.NeedsImprovement {
			wrong++
		}
	}
	return calibrate.Spot(wrong, judged)
}

// spotLine is the estimate in one line, e.g. "spot check: 0 of 29 sampled
// passes wrong → false-pass rate ≤ 9.8 % at 95 %".
func spotLine(c calibrate.SpotCheck, done bool, width float64) string {
	line := fmt.Sprintf("spot check: %d of %d sampled passes wrong → ", c.Wrong, c.Sampled)
	switch {
	case c.Sampled == 0:
		line += "no estimate yet (a flaky verdict is not counted)"
	case c.ZeroBound != nil:
		line += fmt.Sprintf("false-pass rate ≤ %s %% at 95 %%", pct(*c.ZeroBound))
	default:
		line += fmt.Sprintf("false-pass rate %s %% (95 %% interval %s–%s %%)", pct(c.Interval.P), pct(c.Low()), pct(c.High()))
	}
	if done {
		line += fmt.Sprintf(" · within %s points: precise enough to stop", pct(width))
	}
	return line
}

// pct is a rate in percent with at most one decimal.
func pct(r float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(r*100, 'f', 1, 64), ".0")
}
