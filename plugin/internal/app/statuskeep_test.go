package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"agentv-review/bench/gen/genrun"
)

// TestStatusCountsWithoutCases: status of a run nothing judges reads its
// cases only to count them (statusOptions.keep); its report is the one
// status gives when it reads every case whole (as --require-complete
// makes it), gate aside — duplicates, errors and warnings included.
func TestStatusCountsWithoutCases(t *testing.T) {
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		dirs = append(dirs, filepath.Join(corpus, e.Name()))
	}
	gen := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	if _, err := genrun.Write442(gen, genrun.Options{Rows: 600, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, gen)
	report := func(args ...string) map[string]any {
		t.Helper()
		_, out, stderr := runApp(t, args...)
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
		}
		delete(rep, "gate")
		delete(rep, "verified") // --require-complete checks fingerprints
		return rep
	}
	for _, dir := range dirs {
		none := filepath.Join(t.TempDir(), "none.json")
		counted := report("status", "--json", "--out", none, dir)
		whole := report("status", "--json", "--out", none, "--require-complete", dir)
		if !reflect.DeepEqual(counted, whole) {
			t.Errorf("%s: counted\n%v\nread whole\n%v", dir, counted, whole)
		}
	}
}
