package run

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"agentv-review/bench/gen/genrun"
)

// TestOutline opens runs of every era with and without Options.Outline:
// the cases are the same except that graders keep only Type and Pass and
// samples only Pass, one shared copy per distinct outline, and EvalPath is
// empty.
func TestOutline(t *testing.T) {
	gen := func(write func(string, genrun.Options) (genrun.Stats, error)) string {
		dir := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
		if _, err := write(dir, genrun.Options{Rows: 300, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	runs := map[string]string{
		"generated 4.42.4": gen(genrun.Write442),
		"generated v5":     gen(genrun.WriteV5),
		"v5 samples":       upstream(t, "01-v5-samples-pass"),
		"trials":           upstream(t, "04-v5next-trials-22rows-root-index"),
		"flat v1":          upstream(t, "07-flat-jsonl-v1-legacy"),
	}
	for _, name := range []string{"core-pass-fail-error", "multi-target-v1-v2", "rerun-failed-duplicate-rows", "trials-mean-flaky"} {
		runs[name] = filepath.Join(corpus, "runs", name)
	}
	for name, dir := range runs {
		t.Run(name, func(t *testing.T) {
			full := mustOpen(t, dir, Options{})
			out := mustOpen(t, dir, Options{Outline: true})
			if len(out.Cases) != len(full.Cases) || !reflect.DeepEqual(out.Warnings, full.Warnings) {
				t.Fatalf("%d cases, warnings %v; want %d, %v", len(out.Cases), out.Warnings, len(full.Cases), full.Warnings)
			}
			copies := map[string]map[*GraderSummary]bool{} // outline -> its copies
			for i, c := range out.Cases {
				want := *full.Cases[i]
				want.Graders, want.Samples, want.EvalPath, want.Loc.Sum = nil, nil, "", 0
				for _, g := range full.Cases[i].Graders {
					want.Graders = append(want.Graders, GraderSummary{Type: g.Type, Pass: g.Pass})
				}
				for _, s := range full.Cases[i].Samples {
					want.Samples = append(want.Samples, SampleSummary{Pass: s.Pass})
				}
				if !reflect.DeepEqual(*c, want) {
					t.Errorf("case %d:\n got %+v\nwant %+v", i, *c, want)
				}
				if len(c.Graders) > 0 {
					key := fmt.Sprint(want.Graders)
					if copies[key] == nil {
						copies[key] = map[*GraderSummary]bool{}
					}
					copies[key][&c.Graders[0]] = true
				}
			}
			for key, cs := range copies {
				if len(cs) > parseWorkers { // each worker keeps its own copy
					t.Errorf("outline %s has %d copies, want at most %d", key, len(cs), parseWorkers)
				}
			}
		})
	}
}

// TestDedupeClashes makes every key hash alike: cases are still told
// apart by their whole key.
func TestDedupeClashes(t *testing.T) {
	d := newDedupe()
	d.hash = func(dedupeKey) uint64 { return 7 }
	rows := []struct {
		c    Case
		eval uint64
	}{
		{Case{TestID: "a", Target: "x"}, 0},
		{Case{TestID: "a", Target: "y"}, 0},
		{Case{TestID: "a", Target: "x"}, 0},
		{Case{TestID: "b", Target: "x"}, 5},
		{Case{TestID: "a", Target: "y"}, 0},
		{Case{TestID: "b", Target: "x"}, 0},
		{Case{TestID: "b", Target: "x"}, 5},
	}
	want := []int{0, 1, 0, 2, 1, 3, 2}
	var cases []*Case
	for n := range rows {
		c := &rows[n].c
		i, dup := d.index(c, rows[n].eval, cases)
		if i != want[n] || dup != (i < len(cases)) {
			t.Errorf("row %d: index %d (dup %v), want %d", n, i, dup, want[n])
		}
		if !dup {
			cases = append(cases, c)
		}
	}
}
