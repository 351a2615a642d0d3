package app

import (
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

func TestAgreeGolden(t *testing.T) {
	dir := t.TempDir()
	head := `{"run_id":"2026-11-30T07-51-45-414Z","timestamp":"2026-12-01T10:00:00Z",`
	a := writeFile(t, filepath.Join(dir, "ana.json"), head+`"reviewer":"ana","per_case":[
 {"test_id":"it-stable-pass","verdict":"acceptable"},
 {"test_id":"it-stable-fail","verdict":"incorrect"},
 {"test_id":"it-fixed","verdict":"acceptable"},
 {"test_id":"it-regressed","verdict":"incorrect"},
 {"test_id":"it-reworded","verdict":"needs_improvement"},
 {"test_id":"it-error-then-recovered","verdict":"flaky"}]}`)
	b := writeFile(t, filepath.Join(dir, "bob.json"), head+`"reviewer":"bob","per_case":[
 {"test_id":"it-stable-pass","verdict":"acceptable"},
 {"test_id":"it-stable-fail","verdict":"incorrect"},
 {"test_id":"it-fixed","verdict":"acceptable"},
 {"test_id":"it-regressed","verdict":"acceptable"},
 {"test_id":"it-reworded","verdict":"needs_improvement"},
 {"test_id":"extra","verdict":"acceptable"}]}`)
	// Both judged 5; agreed 4 (po = 0.8). A: acc 2, inc 2, ni 1; B: acc 3, inc 1, ni 1.
	// pe = (2·3 + 2·1 + 1·1)/25 = 9/25 = 0.36; kappa = (0.8 − 0.36)/(1 − 0.36) = 0.44/0.64 = 0.6875.
	golden(t, "agree.txt", strings.ReplaceAll(mustRun(t, "agree", a, b), dir, "<dir>"))
	golden(t, "agree.json", strings.ReplaceAll(mustRun(t, "agree", "--json", a, b), dir, "<dir>"))

	if code, _, stderr := runApp(t, "agree", a, filepath.Join(dir, "missing.json")); code != clierr.CodeInvalid {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
}
