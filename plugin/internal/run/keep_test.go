package run

import (
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/caseid"
)

// TestKeep reads runs of every era whole and with Read(keep) for
// predicates keeping nothing, everything and about half the test ids:
// the run's size, counts, rows and warnings are the same; each kept case
// is the case Open makes without Keep (position, duplicates, shared
// folders included), found and named alike; a position whose case was
// not kept is reported as such, and TestIDAt names its test id.
func TestKeep(t *testing.T) {
	runs := readModeRuns(t)
	half := func(id string) bool {
		h := fnv.New32a()
		h.Write([]byte(id))
		return h.Sum32()%2 == 0
	}
	keeps := map[string]func(string) bool{
		"none":    func(string) bool { return false },
		"all":     func(string) bool { return true },
		"half":    half,
		"a and c": func(id string) bool { return id == "a" || id == "c" },
		"b":       func(id string) bool { return id == "b" },
	}
	for name, dir := range runs {
		for _, outline := range []bool{false, true} {
			full := mustOpen(t, dir, Options{Outline: outline})
			fp, ff, fe := full.Counts()
			for kname, keep := range keeps {
				t.Run(name+"/"+kname, func(t *testing.T) {
					r, err := Locate(dir, Options{Outline: outline})
					if err == nil {
						err = r.Read(keep)
					}
					if err != nil {
						t.Fatal(err)
					}
					p, f, e := r.Counts()
					if r.Len() != len(full.Cases) || r.Rows != full.Rows || [3]int{p, f, e} != [3]int{fp, ff, fe} {
						t.Fatalf("%d cases, %d rows, counts %d/%d/%d; want %d, %d, %d/%d/%d", r.Len(), r.Rows, p, f, e, len(full.Cases), full.Rows, fp, ff, fe)
					}
					if !reflect.DeepEqual(r.Warnings, full.Warnings) {
						t.Fatalf("warnings %v, want %v", r.Warnings, full.Warnings)
					}
					kept := 0
					for i, want := range full.Cases {
						pos := caseid.Position(i)
						if !keep(want.TestID) {
							var nk *NotKeptError
							if _, err := r.Find(pos); !errors.As(err, &nk) || nk.Pos != i {
								t.Fatalf("Find(%s) of a case not kept: %v", pos, err)
							}
							if id, err := r.TestIDAt(i); err != nil || id != want.TestID {
								t.Fatalf("TestIDAt(%d) = %q, %v; want %q", i, id, err, want.TestID)
							}
							continue
						}
						got := r.Cases[kept]
						kept++
						if !reflect.DeepEqual(*got, *want) {
							t.Fatalf("case %s:\n got %+v\nwant %+v", pos, *got, *want)
						}
						ref := full.Ref(want)
						if r.Ref(got) != ref {
							t.Errorf("%s: Ref %q, want %q", pos, r.Ref(got), ref)
						}
						for _, name := range []string{ref, pos} {
							if c, err := r.Find(name); err != nil || c != got {
								t.Errorf("Find(%q) = %v, %v; want case %s", name, c, err, pos)
							}
						}
					}
					if kept != len(r.Cases) {
						t.Errorf("%d cases kept, want %d", len(r.Cases), kept)
					}
				})
			}
		}
	}
}

// readModeRuns are the runs TestKeep and TestCompact read in every mode:
// runs of every era, generated runs with duplicate rows and multi-target
// shared folders, and folders shared across test ids.
func readModeRuns(t *testing.T) map[string]string {
	gen := func(write func(string, genrun.Options) (genrun.Stats, error), rows int) string {
		dir := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
		if _, err := write(dir, genrun.Options{Rows: rows, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	runs := map[string]string{
		"generated 4.42.4": gen(genrun.Write442, 1000), // duplicate rows, multi-target shared folders
		"generated v5":     gen(genrun.WriteV5, 500),
		"v5 samples":       upstream(t, "01-v5-samples-pass"),
		"trials":           upstream(t, "04-v5next-trials-22rows-root-index"),
		"flat v1":          upstream(t, "07-flat-jsonl-v1-legacy"),
	}
	for _, name := range []string{"core-pass-fail-error", "multi-target-v1-v2", "rerun-failed-duplicate-rows", "trials-mean-flaky"} {
		runs[name] = filepath.Join(corpus, "runs", name)
	}
	// Folders shared across test ids, the last writer kept or not, and a
	// duplicate row whose first copy comes before other cases.
	shared := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	writeFiles(t, shared, map[string]string{"index.jsonl": "" +
		`{"test_id":"a","target":"x","score":1,"result_dir":"one"}` + "\n" +
		`{"test_id":"b","target":"y","score":0,"result_dir":"one"}` + "\n" +
		`{"test_id":"c","target":"x","score":1,"result_dir":"two"}` + "\n" +
		`{"test_id":"a","target":"x","score":0.5,"result_dir":"two"}` + "\n" +
		`{"test_id":"d","target":"z","score":1,"result_dir":"one"}` + "\n"})
	runs["shared folders"] = shared
	return runs
}

// TestCompact reads the runs of TestKeep whole and under Options.Compact
// in each of its ways (compactWays), which read the same run (sameCompact).
func TestCompact(t *testing.T) {
	for name, dir := range readModeRuns(t) {
		t.Run(name, func(t *testing.T) {
			full := mustOpen(t, dir, Options{Outline: true})
			for _, way := range compactWays {
				r, err := openCompact(dir, way)
				if err != nil {
					t.Fatalf("%+v: %v", way, err)
				}
				sameCompact(t, full, r)
			}
		})
	}
}

// compactWay is a way of reading a run under Options.Compact: keeping its
// index by test id (Run.KeepIndex) or not, handing merged rows back to
// the workers (parseConfig.recycle) or not.
type compactWay struct{ index, recycle bool }

var compactWays = []compactWay{{false, true}, {true, true}, {false, false}, {true, false}}

// openCompact is Open under Options.Compact, read the way way says.
func openCompact(target string, way compactWay) (*Run, error) {
	r, err := Locate(target, Options{Outline: true, Compact: true})
	if err != nil {
		return nil, err
	}
	if way.index {
		r.KeepIndex()
	}
	if !way.recycle {
		r.recycleLimit = 1 // no manifest is smaller than a byte that has a row
	}
	if err := r.Read(nil); err != nil {
		return nil, err
	}
	if way.index && r.Len() > 0 && !r.compact.indexed() {
		return nil, fmt.Errorf("a compact read with KeepIndex kept no index")
	}
	return r, nil
}

// FuzzCompact: for any manifest, a compact read fails as the full read
// does, or reads the same run (sameCompact): duplicates, blank lines, a
// truncated last line and bad rows included.
func FuzzCompact(f *testing.F) {
	f.Add("{\"test_id\":\"a\",\"score\":1}\n\n{\"test_id\":\"b\",\"target\":\"x\",\"score\":0.5,\"result_dir\":\"one\"}\n{\"test_id\":\"a\",\"score\":0}\n{\"test_id\":\"b\"")
	f.Add("{\"test_id\":\"a\",\"score\":1,\"scores\":[{\"type\":\"t\",\"verdict\":\"fail\"}]}\n{\"test_id\":\"a\",\"variant\":\"v\",\"score\":1,\"samples\":[{\"status\":\"pass\"}]}\n")
	f.Add("{\"test_id\":\"a\",\"score\":1}\n{\"test_id\":\"a\"}\n")
	f.Add("{\"test_id\":\"a\",\"eval_path\":\"x\",\"score\":1}\n{\"test_id\":\"a\",\"eval_path\":\"y\",\"score\":-0}\n{\"test_id\":\"a\",\"eval_path\":\"y\",\"score\":0}\n{\"test_id\":\"a\",\"eval_path\":\"x\",\"target\":\"t\",\"score\":0.5}\n")
	f.Fuzz(func(t *testing.T, manifest string) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": manifest})
		full, ferr := Open(dir, Options{Outline: true})
		for _, way := range compactWays {
			r, err := openCompact(dir, way)
			if ferr != nil || err != nil {
				if fmt.Sprint(err) != fmt.Sprint(ferr) {
					t.Fatalf("compact read %+v: %v; full read: %v", way, err, ferr)
				}
				continue
			}
			sameCompact(t, full, r)
		}
	})
}

// sameCompact checks that r, a compact read, read the run full read: the
// run's size, counts, rows and warnings are the same, and the Case At
// makes for each position is full's but for what a compact read does not
// keep (Loc, Error, Duplicates, OverwrittenBy), and so are the ones CaseAt
// and CaseViewAt set; the cases are named (Ref, RefAt), found and indexed
// alike.
func sameCompact(t *testing.T, full, r *Run) {
	t.Helper()
	if r.Cases != nil {
		t.Fatalf("a compact read keeps Cases")
	}
	fp, ff, fe := full.Counts()
	p, f, e := r.Counts()
	if r.Len() != len(full.Cases) || r.Rows != full.Rows || [3]int{p, f, e} != [3]int{fp, ff, fe} {
		t.Fatalf("%d cases, %d rows, counts %d/%d/%d; want %d, %d, %d/%d/%d", r.Len(), r.Rows, p, f, e, len(full.Cases), full.Rows, fp, ff, fe)
	}
	if !reflect.DeepEqual(r.Warnings, full.Warnings) {
		t.Fatalf("warnings %v, want %v", r.Warnings, full.Warnings)
	}
	ids := r.CaseIDs()
	for i, c := range full.Cases {
		want := *c
		want.Loc, want.Error, want.Duplicates, want.OverwrittenBy = RowLoc{}, "", 0, ""
		got := r.At(i)
		var at, view Case
		r.CaseAt(i, &at)
		r.CaseViewAt(i, &view)
		if !reflect.DeepEqual(*got, want) || !reflect.DeepEqual(at, want) || !reflect.DeepEqual(view, want) {
			t.Fatalf("case %d:\n got %+v\n and %+v\n and %+v\nwant %+v", i, *got, at, view, want)
		}
		if ids.ID(i) != full.CaseIDs().ID(i) {
			t.Errorf("case %d: ID %+v, want %+v", i, ids.ID(i), full.CaseIDs().ID(i))
		}
		ref := full.Ref(c)
		if r.Ref(got) != ref || r.RefAt(i) != ref {
			t.Errorf("case %d: Ref %q, RefAt %q, want %q", i, r.Ref(got), r.RefAt(i), ref)
		}
		wantFound, wantErr := full.Find(ref)
		if found, err := r.Find(ref); fmt.Sprint(err) != fmt.Sprint(wantErr) || err == nil && found.Index != wantFound.Index {
			t.Errorf("Find(%q) = %v, %v; want %v, %v", ref, found, err, wantFound, wantErr)
		}
		if id, err := r.TestIDAt(i); err != nil || id != c.TestID {
			t.Errorf("TestIDAt(%d) = %q, %v", i, id, err)
		}
		if !slices.Equal(slices.Collect(ids.WithTestID(c.TestID)), slices.Collect(full.CaseIDs().WithTestID(c.TestID))) {
			t.Errorf("case %d: cases with its test id differ", i)
		}
	}
	if n := len(slices.Collect(ids.WithTestID("\x00no such test"))); n > 0 {
		t.Errorf("%d cases with a test id the run does not have", n)
	}
}
