package feedback

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

// feedbackSeeds are the feedback files the project knows: the documented
// example, both legacy shapes and the session's golden files.
func feedbackSeeds(f *testing.F) [][]byte {
	f.Helper()
	var seeds [][]byte
	for _, glob := range []string{"testdata/*.json", "../../../testdata/golden/*.json"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, data)
		}
	}
	if len(seeds) < 4 {
		f.Fatalf("found %d feedback seeds, want the testdata and golden files", len(seeds))
	}
	return seeds
}

// FuzzFeedback: parsing any bytes never panics, and Validate agrees with
// the types: every input Validate accepts loads, encodes (Encode validates
// again) and reaches a fixed point after one round trip. Rejections are
// *clierr.Error with exit code 3, as Load promises.
func FuzzFeedback(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`{"run_id":"r","reviewer":"a","timestamp":"2026-01-01T00:00:00Z","per_case":[{"test_id":"a","verdict":"flaky"},{"test_id":"a","verdict":"flaky"}]}`))
	f.Add([]byte(`{"run_id":"r","reviewer":"a","timestamp":"x","per_case":[],"summary":{"cases":1.5,"reviewed":0,"skipped":0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		problems, verr := Validate(data)
		file, err := parse("feedback.json", data)
		if kind := Detect(data); kind != KindReview {
			path := filepath.Join(t.TempDir(), "feedback.json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, lerr := LoadLegacy(path); lerr != nil && clierr.Code(lerr) != clierr.CodeInvalid {
				t.Fatalf("legacy %s: error %v has exit code %d", kind, lerr, clierr.Code(lerr))
			}
			return
		}
		valid := verr == nil && len(problems) == 0
		if !valid {
			if err == nil || clierr.Code(err) != clierr.CodeInvalid {
				t.Fatalf("Validate rejects (%v %v) but parse returns %v (code %d)", verr, problems, err, clierr.Code(err))
			}
			return
		}
		if err != nil {
			t.Fatalf("Validate accepts but parse fails: %v", err)
		}
		once, err := Encode(file)
		if err != nil {
			t.Fatalf("Validate accepts but the loaded file does not encode: %v", err)
		}
		again, err := parse("feedback.json", once)
		if err != nil {
			t.Fatalf("encoded file does not load: %v\n%s", err, once)
		}
		twice, err := Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("no fixed point after one round trip:\n%s\n---\n%s", once, twice)
		}
	})
}
