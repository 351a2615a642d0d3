package calibrate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestLabelRules(t *testing.T) {
	base := Observation{RunID: "r", Case: "c", Grader: "contains:x", Config: "sha256:1", Reviewer: Human}
	for _, tc := range []struct {
		name    string
		grader  GraderVerdict
		human   HumanVerdict
		who     ReviewerKind
		named   Signal
		niPass  bool
		want    bool
		wantWhy Exclusion
	}{
		{"acceptable is pass", GraderFail, Acceptable, Human, NotNamed, false, true, Counted},
		{"incorrect is fail", GraderPass, Incorrect, Human, NotNamed, false, false, Counted},
		{"needs_improvement fails by default", GraderPass, NeedsImprovement, Human, NotNamed, false, false, Counted},
		{"needs_improvement can pass", GraderPass, NeedsImprovement, Human, NotNamed, true, true, Counted},
		{"flaky is no label", GraderPass, Flaky, Human, NotNamed, false, false, AsFlaky},
		{"agent never labels", GraderPass, Acceptable, Agent, NotNamed, false, false, ByAgent},
		{"agent never labels, even naming", GraderPass, Acceptable, Agent, FalsePositive, false, false, ByAgent},
		{"no grader verdict", GraderNone, Acceptable, Human, NotNamed, false, false, NoVerdict},
		{"named false positive on an acceptable case", GraderPass, Acceptable, Human, FalsePositive, false, false, Counted},
		{"named false negative on an incorrect case", GraderFail, Incorrect, Human, FalseNegative, false, true, Counted},
		{"named miscalibrated: opposite of a pass", GraderPass, Acceptable, Human, GraderMiscalibration, false, false, Counted},
		{"named miscalibrated: opposite of a fail", GraderFail, Incorrect, Human, GraderMiscalibration, false, true, Counted},
	} {
		o := base
		o.GraderVerdict, o.Human, o.Reviewer, o.NamedWrong = tc.grader, tc.human, tc.who, tc.named
		if err := o.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pass, why := LabelRules{NeedsImprovementPasses: tc.niPass}.Label(o)
		if why != tc.wantWhy || (why == Counted && pass != tc.want) {
			t.Errorf("%s: Label = %v, %q, want %v, %q", tc.name, pass, why, tc.want, tc.wantWhy)
		}
	}
}

func TestBuildRejectsBadObservations(t *testing.T) {
	good := Observation{RunID: "r", Case: "c", Grader: "contains:x", Config: "sha256:1",
		GraderVerdict: GraderPass, Human: Acceptable, Reviewer: Human}
	for _, tc := range []struct {
		change func(*Observation)
		want   string
	}{
		{func(o *Observation) { o.Human = "fine" }, `observation 1 (run "r", case "c", grader "contains:x"): human verdict "fine" is not one of`},
		{func(o *Observation) { o.Reviewer = "" }, `reviewer kind "" is not one of`},
		{func(o *Observation) { o.NamedWrong = "flaky_results" }, `named-wrong signal "flaky_results"`},
		{func(o *Observation) { o.GraderVerdict = "PASS" }, `grader verdict "PASS"`},
		{func(o *Observation) { o.Config = "" }, "config is empty"},
	} {
		bad := good
		tc.change(&bad)
		_, err := Build([]Observation{good, bad}, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build: err = %v, want it to contain %q", err, tc.want)
		}
	}
	if _, err := Build(nil, Options{Margin: 1.5}); err == nil {
		t.Error("Build accepted a margin of 1.5")
	}
}

func TestBuildWorkedExample(t *testing.T) {
	rep, err := Build(cells("run-1", "g:x", "sha256:a", worked), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Graders) != 1 {
		t.Fatalf("%d graders, want 1", len(rep.Graders))
	}
	g := rep.Graders[0]
	if g.Confusion != worked || g.Labels != 100 || g.Band != Trend || !g.Current || g.Kappa == nil || g.Kappa.Value != 0.7 {
		t.Errorf("grader = %+v", g)
	}
	if len(g.FalsePasses) != 10 || len(g.FalseFails) != 5 {
		t.Errorf("%d false passes, %d false fails, want 10, 5", len(g.FalsePasses), len(g.FalseFails))
	}
	if g.FalsePasses[0] != (CaseRef{"run-1", "g:x/fp-0"}) {
		t.Errorf("first false pass = %+v", g.FalsePasses[0])
	}
	// ±0.05: TPR 0.9 needs 139 (has 50), TNR 0.8 needs 246 (has 50).
	if g.Needed != (Needed{Positive: 89, Negative: 196}) {
		t.Errorf("needed = %+v, want 89 and 196 more", g.Needed)
	}
	rep, _ = Build(cells("run-1", "g:x", "sha256:a", worked), Options{Margin: 0.10})
	if g := rep.Graders[0]; g.Needed != (Needed{Positive: 0, Negative: 12}) {
		t.Errorf("needed at ±0.10 = %+v, want 0 (35 ≤ 50) and 12 (62 − 50)", g.Needed)
	}
}

func TestBuildEdges(t *testing.T) {
	rep, err := Build(nil, Options{})
	if err != nil || len(rep.Graders) != 0 || len(rep.Runs) != 0 {
		t.Fatalf("empty Build = %+v, %v", rep, err)
	}
	// One class only: every label a human pass, all agreed.
	rep, _ = Build(cells("r", "g:x", "sha256:a", Confusion{TP: 10}), Options{})
	g := rep.Graders[0]
	if g.Kappa != nil || g.KappaNA == "" || g.Band != Exploration || g.TNR.N != 0 {
		t.Errorf("one-class grader = %+v", g)
	}
	// All ten agree: the need uses the Wilson bound, not a rate of 1 (which
	// would claim none); no negatives: the worst case p = 0.5 → 385.
	if g.Needed.Positive == 0 || g.Needed.Negative != 385 {
		t.Errorf("needed = %+v, want > 0 and 385", g.Needed)
	}
	// Only excluded observations: a grader with no labels is still listed.
	o := Observation{RunID: "r", Case: "c", Grader: "g:y", Config: "sha256:b", GraderVerdict: GraderPass, Human: Flaky, Reviewer: Human}
	rep, _ = Build([]Observation{o}, Options{})
	if g := rep.Graders[0]; g.Labels != 0 || g.Excluded.Flaky != 1 || g.Band != Exploration {
		t.Errorf("flaky-only grader = %+v", g)
	}
}

func TestBuildOneLabelPerCase(t *testing.T) {
	o := Observation{RunID: "r", Case: "c", Grader: "g:x", Config: "sha256:a", GraderVerdict: GraderPass, Human: Incorrect, Reviewer: Human}
	later := o
	later.Human = Acceptable
	agent := o
	agent.Reviewer, agent.Human = Agent, Incorrect
	rep, _ := Build([]Observation{o, later, agent}, Options{})
	g := rep.Graders[0]
	if g.Confusion != (Confusion{TP: 1}) || g.Excluded.Replaced != 1 || g.Excluded.Agent != 1 {
		t.Errorf("grader = %+v, want the later human label only, the agent's proposal not counted", g)
	}
}

// cells makes observations of one grader configuration with confusion c,
// one case per label, reaching each cell in more than one way: some
// through a named-wrong grader, some through needs_improvement.
func cells(run, key, config string, c Confusion) []Observation {
	var obs []Observation
	add := func(cell string, count int, gv GraderVerdict, plain, named HumanVerdict, signal Signal) {
		for i := range count {
			o := Observation{RunID: run, Case: fmt.Sprintf("%s/%s-%d", key, cell, i), Grader: key, Config: config,
				GraderVerdict: gv, Human: plain, Reviewer: Human}
			if i%3 == 2 { // every third: the reviewer named the grader
				o.Human, o.NamedWrong = named, signal
			}
			obs = append(obs, o)
		}
	}
	add("tp", c.TP, GraderPass, Acceptable, Acceptable, NotNamed)
	add("fn", c.FN, GraderFail, Acceptable, Incorrect, FalseNegative)
	add("tn", c.TN, GraderFail, Incorrect, NeedsImprovement, NotNamed)
	add("fp", c.FP, GraderPass, NeedsImprovement, Acceptable, FalsePositive)
	return obs
}

// TestThreeIterations scripts a review history: a judge whose definition
// stays put over three runs, and a contains check whose value changed
// before the third run.
func TestThreeIterations(t *testing.T) {
	judge, containsA, containsB := "sha256:j", "sha256:a", "sha256:b"
	var obs []Observation
	obs = append(obs, cells("it-1", "llm-grader:judge", judge, Confusion{TP: 8, FN: 1, TN: 9, FP: 2})...)
	obs = append(obs, cells("it-1", "contains:contains-42", containsA, Confusion{TP: 6, FN: 2, TN: 8, FP: 4})...)
	obs = append(obs, cells("it-2", "llm-grader:judge", judge, Confusion{TP: 30, FN: 1, TN: 28, FP: 1})...)
	obs = append(obs, cells("it-2", "contains:contains-42", containsA, Confusion{TP: 10, TN: 7, FP: 3})...)
	obs = append(obs, cells("it-3", "llm-grader:judge", judge, Confusion{TP: 40, TN: 39, FP: 1})...)
	obs = append(obs, cells("it-3", "contains:contains-42", containsB, Confusion{TP: 5, TN: 5})...)
	// it-3 also has agent proposals and a flaky case: none may count.
	for i := range 5 {
		obs = append(obs, Observation{RunID: "it-3", Case: fmt.Sprint("agent-", i), Grader: "llm-grader:judge", Config: judge,
			GraderVerdict: GraderPass, Human: Incorrect, Reviewer: Agent})
	}
	obs = append(obs, Observation{RunID: "it-3", Case: "flaky", Grader: "llm-grader:judge", Config: judge,
		GraderVerdict: GraderPass, Human: Flaky, Reviewer: Human})

	rep, err := Build(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Runs, []string{"it-1", "it-2", "it-3"}) {
		t.Errorf("runs = %v", rep.Runs)
	}
	var keys []string
	for _, g := range rep.Graders {
		keys = append(keys, fmt.Sprintf("%s %s %v", g.Key, g.Config, g.Current))
	}
	wantKeys := []string{"contains:contains-42 sha256:b true", "contains:contains-42 sha256:a false", "llm-grader:judge sha256:j true"}
	if !slices.Equal(keys, wantKeys) {
		t.Fatalf("graders = %q, want %q (current configuration first, never pooled)", keys, wantKeys)
	}
	for _, tc := range []struct {
		g                          Grader
		confusion                  Confusion
		tprLow, tprHigh            float64
		tnrLow, tnrHigh            float64
		kappa, kappaLow, kappaHigh float64
		band                       Band
	}{
		{rep.Graders[2], Confusion{TP: 78, FN: 2, TN: 76, FP: 4}, 0.913, 0.993, 0.878, 0.980, 0.925, 0.866, 0.984, Gating},
		{rep.Graders[1], Confusion{TP: 16, FN: 2, TN: 15, FP: 7}, 0.672, 0.969, 0.473, 0.836, 0.557, 0.302, 0.812, Exploration},
		{rep.Graders[0], Confusion{TP: 5, TN: 5}, 0.566, 1, 0.566, 1, 1, 1, 1, Exploration},
	} {
		g := tc.g
		if g.Confusion != tc.confusion {
			t.Errorf("%s %s: confusion %+v, want %+v", g.Key, g.Config, g.Confusion, tc.confusion)
			continue
		}
		checkInterval(t, g.Key+" TPR", g.TPR.Low, g.TPR.High, tc.tprLow, tc.tprHigh)
		checkInterval(t, g.Key+" TNR", g.TNR.Low, g.TNR.High, tc.tnrLow, tc.tnrHigh)
		if g.Kappa == nil || !near(g.Kappa.Value, tc.kappa, 0.0005) {
			t.Errorf("%s %s: κ = %+v, want %.3f", g.Key, g.Config, g.Kappa, tc.kappa)
		} else {
			checkInterval(t, g.Key+" κ", g.Kappa.Low, g.Kappa.High, tc.kappaLow, tc.kappaHigh)
		}
		if g.Band != tc.band {
			t.Errorf("%s %s: band %s (%s), want %s", g.Key, g.Config, g.Band, g.BandWhy, tc.band)
		}
	}
	if ex := rep.Graders[2].Excluded; ex.Agent != 5 || ex.Flaky != 1 {
		t.Errorf("judge excluded = %+v, want 5 agent, 1 flaky", ex)
	}

	// Gate it-4, decided by the judge and the changed contains check, and
	// a third configuration nobody has labelled yet.
	deciders := []Ref{{"llm-grader:judge", judge}, {"contains:contains-42", containsB}, {"contains:contains-42", "sha256:c"}}
	results, err := Gate(rep, deciders, Gating)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		pass   bool
		reason string
		more   Needed
		note   string
	}{
		{true, "band gating meets gating", Needed{}, ""},
		{false, "band exploration is below gating: not gating: TPR lower bound 0.566 < 0.8; TNR lower bound 0.566 < 0.8", Needed{11, 11}, ""},
		{false, "no calibration for its current configuration sha256:c (2 other configuration(s) of contains:contains-42 are history, not evidence)", Needed{16, 16}, "no human-pass labels yet: at least this many"},
	} {
		r := results[i]
		if r.Ref != deciders[i] || r.Pass != want.pass || !strings.HasPrefix(r.Reason, want.reason) || r.More != want.more || !strings.HasPrefix(r.MoreNote, want.note) {
			t.Errorf("gate %d = %+v, want pass %v, reason %q, more %+v, note %q", i, r, want.pass, want.reason, want.more, want.note)
		}
	}
	// As a trend gate the changed check still fails, on TNR only.
	results, _ = Gate(rep, deciders[1:2], Trend)
	if r := results[0]; r.Pass || r.More != (Needed{Negative: 1}) {
		t.Errorf("trend gate = %+v, want a fail needing 1 more human-fail label (6 in all)", r)
	}
	// The older configuration's labels are history: naming it current
	// makes it current, and it fails on its own TNR.
	rep, _ = Build(obs, Options{Current: []Ref{{"contains:contains-42", containsA}}})
	for _, g := range rep.Graders {
		if g.Current != (g.Config == containsA) {
			t.Errorf("%s %s current = %v with Options.Current naming only %s", g.Key, g.Config, g.Current, containsA)
		}
	}
	results, _ = Gate(rep, []Ref{{"contains:contains-42", containsA}}, Trend)
	if r := results[0]; r.Pass || r.More != (Needed{Negative: 116}) || r.MoreNote != "" {
		t.Errorf("trend gate on the old check = %+v, want 116 more human-fail labels (138 at TNR 0.682)", r)
	}
	results, _ = Gate(rep, []Ref{{"contains:contains-42", containsA}}, Gating)
	if r := results[0]; r.Pass || r.More != (Needed{Positive: 60}) || !strings.Contains(r.MoreNote, "rate on human-fail labels (0.682) is not above 0.8: more labels cannot lift the bound") {
		t.Errorf("gating gate on the old check = %+v, want 60 more human-pass labels and TNR beyond help", r)
	}
	if _, err := Gate(rep, nil, Exploration); err == nil {
		t.Error("Gate accepted exploration as a required band")
	}
}
