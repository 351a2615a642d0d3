package genrun_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agentv-review/bench/gen/genrun"
)

// small writes 200 rows with two big answers, larger than any other answer
// (those stop at 256 KiB).
var small = genrun.Options{Rows: 200, Seed: 7, BigAnswers: 2, BigAnswerBytes: 300 << 10}

type layout struct {
	name  string
	write func(string, genrun.Options) (genrun.Stats, error)
	dest  string // relative to the temp dir
	dedup bool   // rows are deduplicated by case key
}

var layouts = []layout{
	{"442", genrun.Write442, "2026-07-06T11-31-36-988Z", true},
	{"v5", genrun.WriteV5, "2026-07-06T11-31-36-988Z", true},
	{"flat", genrun.WriteFlat, "eval_2026-07-06T11-31-36-988Z.jsonl", false},
}

// manifestRow holds the fields the checks below read, in every vocabulary.
type manifestRow struct {
	TestID          string   `json:"test_id"`
	EvalID          string   `json:"eval_id"`
	Suite           string   `json:"suite"`
	Target          string   `json:"target"`
	Variant         string   `json:"variant"`
	EvalPath        string   `json:"eval_path"`
	Score           *float64 `json:"score"`
	ExecutionStatus string   `json:"execution_status"`
	Output          *string  `json:"output"`
	GradingPath     string   `json:"grading_path"`
	AnswerPath      string   `json:"answer_path"`
	InputPath       string   `json:"input_path"`
	TimingPath      string   `json:"timing_path"`
	ResultDir       string   `json:"result_dir"`
	Samples         []struct {
		SamplePath string `json:"sample_path"`
		Status     string `json:"status"`
	} `json:"samples"`
}

func readManifest(t *testing.T, path string) []manifestRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []manifestRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var r manifestRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if r.Score == nil || *r.Score < 0 || *r.Score > 1 {
			t.Fatalf("%s:%d: score %v not in 0..1", path, n, r.Score)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// tally counts cases the way AgentV does: last row per
// (eval_path, suite, test_id, target, variant) wins.
func tally(rows []manifestRow, dedup bool) (cases []manifestRow, st genrun.Stats) {
	last := map[string]int{}
	for i, r := range rows {
		k := strings.Join([]string{r.EvalPath, r.Suite, r.TestID + r.EvalID, r.Target, r.Variant}, "\x00")
		if !dedup {
			k = strconv.Itoa(i)
		}
		if j, ok := last[k]; ok {
			cases[j] = r
			st.Duplicates++
			continue
		}
		last[k] = len(cases)
		cases = append(cases, r)
	}
	st.Rows, st.Cases = len(rows), len(cases)
	for _, r := range cases {
		switch {
		case r.ExecutionStatus == "execution_error":
			st.Errored++
		case r.ExecutionStatus == "ok", r.ExecutionStatus == "" && *r.Score >= 0.8:
			st.Passed++
		default:
			st.Failed++
		}
		flips := map[string]bool{}
		for _, s := range r.Samples {
			flips[s.Status] = true
		}
		if len(r.Samples) > 1 {
			st.MultiSample++
			if len(flips) > 1 {
				st.Flaky++
			}
		}
	}
	return cases, st
}

func TestLayouts(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), l.dest)
			got, err := l.write(dest, small)
			if err != nil {
				t.Fatal(err)
			}
			rows := readManifest(t, got.Manifest)
			cases, want := tally(rows, l.dedup)
			if got.Rows != small.Rows || want.Rows != small.Rows {
				t.Errorf("rows: stats %d, manifest %d, want %d", got.Rows, want.Rows, small.Rows)
			}
			for _, c := range []struct {
				name      string
				got, want int
			}{
				{"cases", got.Cases, want.Cases}, {"duplicates", got.Duplicates, want.Duplicates},
				{"passed", got.Passed, want.Passed}, {"failed", got.Failed, want.Failed},
				{"errored", got.Errored, want.Errored}, {"multi-sample", got.MultiSample, want.MultiSample},
				{"flaky", got.Flaky, want.Flaky},
			} {
				if c.got != c.want {
					t.Errorf("%s: generator says %d, manifest has %d", c.name, c.got, c.want)
				}
			}
			if fi, err := os.Stat(got.Manifest); err != nil || fi.Size() != got.ManifestBytes {
				t.Errorf("manifest size: stats %d, file %v (%v)", got.ManifestBytes, fi, err)
			}
			checkMix(t, got, l.name != "flat")
			checkScores(t, cases)
			checkSidecars(t, filepath.Dir(got.Manifest), cases)
			checkJSONFiles(t, dest)
		})
	}
}

// checkMix: about 70% pass, 25% fail, 5% error (flat rows have no errors).
func checkMix(t *testing.T, st genrun.Stats, errors bool) {
	t.Helper()
	pass := float64(st.Passed) / float64(st.Cases)
	errs := float64(st.Errored) / float64(st.Cases)
	if pass < 0.6 || pass > 0.8 {
		t.Errorf("pass share %.2f, want about 0.70", pass)
	}
	if errors && (errs < 0.01 || errs > 0.12) {
		t.Errorf("error share %.2f, want about 0.05", errs)
	}
	if st.Duplicates == 0 && errors {
		t.Error("no resume duplicates")
	}
}

// checkScores: a row's status agrees with AgentV's 0.8 threshold.
func checkScores(t *testing.T, cases []manifestRow) {
	t.Helper()
	for _, r := range cases {
		if (r.ExecutionStatus == "ok" && *r.Score < 0.8) || (r.ExecutionStatus == "quality_failure" && *r.Score >= 0.8) {
			t.Errorf("%s@%s: %s with score %v", r.TestID, r.Target, r.ExecutionStatus, *r.Score)
		}
	}
}

// checkSidecars: every file a winning row names for review is on disk, and
// flat rows carry their answer inline.
func checkSidecars(t *testing.T, manifestDir string, cases []manifestRow) {
	t.Helper()
	runDir := manifestDir
	if filepath.Base(runDir) == ".internal" {
		runDir = filepath.Dir(runDir)
	}
	for _, r := range cases {
		paths := []string{r.GradingPath, r.AnswerPath, r.InputPath, r.TimingPath}
		for _, s := range r.Samples {
			paths = append(paths, r.ResultDir+"/"+s.SamplePath+"/grading.json", r.ResultDir+"/"+s.SamplePath+"/outputs/answer.md")
		}
		for _, p := range paths {
			if p == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(runDir, filepath.FromSlash(p))); err != nil {
				t.Errorf("%s: %v", r.TestID, err)
			}
		}
		if r.ResultDir == "" && r.GradingPath == "" && (r.Output == nil || *r.Output == "") {
			t.Errorf("%s%s: no answer inline or in a sidecar", r.TestID, r.EvalID)
		}
	}
}

// checkJSONFiles parses every .json file under root.
func checkJSONFiles(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !json.Valid(b) {
			t.Errorf("%s: invalid JSON", path)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

func TestV5SummaryNamesTheManifest(t *testing.T) {
	dir := t.TempDir()
	st, err := genrun.WriteV5(dir, small)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		IndexPath string `json:"index_path"`
		Counts    struct {
			TotalTests int `json:"total_tests"`
		} `json:"counts"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if filepath.Join(dir, s.IndexPath) != st.Manifest || s.Counts.TotalTests != st.Cases {
		t.Errorf("summary.json: index_path %q, total_tests %d; want %q, %d", s.IndexPath, s.Counts.TotalTests, st.Manifest, st.Cases)
	}
}

func TestDeterministic(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			var manifests [2][]byte
			for i := range manifests {
				st, err := l.write(filepath.Join(t.TempDir(), l.dest), small)
				if err != nil {
					t.Fatal(err)
				}
				if manifests[i], err = os.ReadFile(st.Manifest); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(manifests[0], manifests[1]) {
				t.Error("same options, different manifests")
			}
		})
	}
}

func TestFlatReachesTargetSize(t *testing.T) {
	o := small
	o.FlatBytes = 4 << 20
	st, err := genrun.WriteFlat(filepath.Join(t.TempDir(), "big.jsonl"), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.ManifestBytes < o.FlatBytes || st.Rows <= o.Rows {
		t.Errorf("wrote %d bytes in %d rows, want at least %d bytes and more than %d rows", st.ManifestBytes, st.Rows, o.FlatBytes, o.Rows)
	}
}

func BenchmarkWrite(b *testing.B) {
	o := genrun.Options{Rows: 10_000, Seed: 1, BigAnswers: 1}
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := l.write(filepath.Join(b.TempDir(), l.dest), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestRefusesToOverwrite(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), l.dest)
			o := genrun.Options{Rows: 5, Seed: 1}
			if _, err := l.write(dest, o); err != nil {
				t.Fatal(err)
			}
			if _, err := l.write(dest, o); err == nil {
				t.Error("second write into the same place succeeded")
			}
		})
	}
}

// TestBigAnswers counts the answers of exactly BigAnswerBytes: one
// answer.md per case (sample-1 in v5), or one inline output per flat row.
func TestBigAnswers(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), l.dest)
			st, err := l.write(dest, small)
			if err != nil {
				t.Fatal(err)
			}
			big := 0
			if l.name == "flat" {
				for _, r := range readManifest(t, st.Manifest) {
					if len(*r.Output) == small.BigAnswerBytes {
						big++
					}
				}
			} else {
				err = filepath.WalkDir(dest, func(path string, d fs.DirEntry, err error) error {
					if err != nil || d.Name() != "answer.md" || strings.Contains(path, "sample-") && !strings.Contains(path, "sample-1") {
						return err
					}
					if fi, err := d.Info(); err == nil && fi.Size() == int64(small.BigAnswerBytes) {
						big++
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if big != small.BigAnswers {
				t.Errorf("%d answers of %d bytes, want %d", big, small.BigAnswerBytes, small.BigAnswers)
			}
		})
	}
}
