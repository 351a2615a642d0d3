package run

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// gradingSeeds returns every grading.json of the 4.42.4 corpus and, when
// present, of ../shared/fixtures/agentv-upstream (required in CI).
func gradingSeeds(f *testing.F) [][]byte {
	f.Helper()
	roots := []string{corpus}
	up := "../../../../shared/fixtures/agentv-upstream"
	if _, err := os.Stat(up); err == nil {
		roots = append(roots, up)
	} else if os.Getenv("CI") != "" {
		f.Fatalf("upstream fixtures are required in CI: %v", err)
	}
	var seeds [][]byte
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "grading.json" {
				return err
			}
			data, err := os.ReadFile(p)
			seeds = append(seeds, data)
			return err
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	if len(seeds) == 0 {
		f.Fatal("no grading.json seeds found")
	}
	return seeds
}

// gradingRows are manifest rows that read a grading.json: a v4 row with the
// file beside it (the top-level file), and a v5 multi-sample row that reads
// one per sample. Both carry a grader in scores[] so the merge is exercised.
var gradingRows = []struct {
	row, gradingAt string
}{
	{`{"test_id":"t","score":0.5,"grading_path":"t/grading.json","scores":[{"name":"g","type":"llm-grader","score":0.5,"verdict":"fail"}]}`, "t/grading.json"},
	{`{"test_id":"t","score":0.5,"result_dir":"t--0123456789ab","scores":[{"name":"g","type":"contains","score":0.5}],` +
		`"samples":[{"sample":1,"sample_path":"sample-1","score":1,"status":"passed","scores":[{"name":"g","type":"contains","score":1,"pass":true}]}]}`,
		"t--0123456789ab/sample-1/grading.json"},
}

// FuzzGradingJSON: any grading.json content (every historical shape is
// seeded) is read by Detail without a panic or an error: a malformed file is
// a warning of the Detail, never a failure of the case.
func FuzzGradingJSON(f *testing.F) {
	for _, s := range gradingSeeds(f) {
		for i := range gradingRows {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, grading []byte) {
		shape := gradingRows[int(which)%len(gradingRows)]
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"index.jsonl":   shape.row + "\n",
			shape.gradingAt: string(grading),
		})
		r := mustOpen(t, dir, Options{})
		d, err := r.Detail(r.Cases[0])
		if err != nil {
			t.Fatalf("Detail: %v", err)
		}
		for _, g := range d.Graders {
			_ = g.Key()
		}
	})
}

// FuzzManifestRow: one arbitrary manifest line is either refused by Open
// with an error or opened, and then every case's Detail works (no panic;
// an error only as a *clierr.Error, which Open's error also is). This goes
// beyond FuzzSkimRow: it runs parseRow, dedupe and Detail's full decode.
func FuzzManifestRow(f *testing.F) {
	for _, r := range skimEdgeRows {
		f.Add(r)
	}
	for _, g := range gradingRows {
		f.Add(g.row)
	}
	f.Add(`{"test_id":"a","score":1,"answer_path":"../../etc/passwd","input":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
	f.Add(`{"testId":"a","score":0,"executionStatus":"execution_error","error":"boom","trials":[{"verdict":"pass","run_path":"r"}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": line + "\n"})
		r, err := Open(dir, Options{})
		if err != nil {
			return
		}
		for _, c := range r.Cases {
			if _, err := r.Detail(c); err != nil {
				t.Fatalf("Open accepted %q but Detail fails: %v", line, err)
			}
		}
	})
}
