package evidence

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
	"agentv-review/plugin/internal/termtext"
	"agentv-review/plugin/internal/triage"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const (
	corpus   = "../../../testdata/agentv-4.42.4/runs"
	upstream = "../../../../shared/fixtures/agentv-upstream"
)

// collect opens dir and collects the evidence of the case ref.
func collect(t *testing.T, dir, ref string, opt CollectOptions) *Evidence {
	t.Helper()
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Find(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Detail(c)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Collect(r, d, triage.Classify(c), opt)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("../../../testdata/golden", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestGoldenScreens draws the case screen of one case per fixture era as
// the guided review does (80 cells, 8 answer lines, 4 input lines).
func TestGoldenScreens(t *testing.T) {
	cases := []struct{ name, dir, ref string }{
		{"required-gate", corpus + "/core-pass-fail-error", "required-gate"},
		{"haiku", corpus + "/core-pass-fail-error", "haiku"},
		{"composite-gate", corpus + "/core-pass-fail-error", "composite-gate"},
		{"rubric-explain", corpus + "/core-pass-fail-error", "rubric-explain"},
		{"tool-use", corpus + "/core-pass-fail-error", "tool-use"},
		{"crash", corpus + "/core-pass-fail-error", "crash"},
		{"workspace-file-changes", corpus + "/workspace-file-changes", "ws-add-docs"},
		{"trials", corpus + "/trials-mean-flaky", "flaky-alternating"},
		{"v5-samples", upstream + "/01-v5-samples-pass", "finance-summary-operator-guards"},
		{"v5next-trials", upstream + "/04-v5next-trials-22rows-root-index", "exp-med-001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.dir, upstream) {
				if _, err := os.Stat(tc.dir); err != nil && os.Getenv("CI") == "" {
					t.Skipf("upstream fixtures absent: %v", err)
				}
			}
			ev := collect(t, tc.dir, tc.ref, CollectOptions{})
			var b bytes.Buffer
			ev.Render(&b, Options{Width: 80, AnswerLines: 8, InputLines: 4, PagerHint: "choose 'Read the whole answer'"})
			golden(t, "evidence-"+tc.name+".txt", b.Bytes())
			for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if w := termtext.Width(line); w > 80 {
					t.Errorf("line %d is %d cells wide: %q", i+1, w, line)
				}
			}
		})
	}
}

func TestRequiredGateExplained(t *testing.T) {
	ev := collect(t, corpus+"/core-pass-fail-error", "required-gate", CollectOptions{})
	if g := ev.Graders[0]; g.Gate == "" || g.Config == nil || g.Config.Required != "true" {
		t.Fatalf("the failed required grader is not marked: %+v", g)
	}
	for _, g := range ev.Graders[1:] {
		if g.Gate != "" {
			t.Errorf("passing grader %s marked as gate: %q", g.Name, g.Gate)
		}
	}
	var b bytes.Buffer
	ev.Render(&b, Options{Width: 100})
	if !strings.Contains(b.String(), "required gate failed") || !strings.Contains(b.String(), "criteria: Must deny access") {
		t.Fatalf("screen does not say why:\n%s", b.String())
	}
}

func TestErroredJSON(t *testing.T) {
	ev := collect(t, corpus+"/core-pass-fail-error", "judge-unparseable", CollectOptions{})
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Error   *Error `json:"error"`
		Graders []struct {
			Name string `json:"name"`
		} `json:"graders"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Error == nil || got.Error.Stage != "evaluator" || got.Error.Code != "evaluator_error" || got.Error.Message == "" || len(got.Graders) == 0 {
		t.Fatalf("errored case JSON: %s", b)
	}
}

func TestWholeDiffColor(t *testing.T) {
	ev := collect(t, corpus+"/workspace-file-changes", "ws-add-docs", CollectOptions{Whole: true})
	var plain, color bytes.Buffer
	ev.Render(&plain, Options{Width: 80, Whole: true})
	ev.Render(&color, Options{Width: 80, Whole: true, Color: true})
	if strings.ContainsRune(plain.String(), '\x1b') || !strings.Contains(plain.String(), "  +# Usage") {
		t.Fatalf("plain whole diff:\n%s", plain.String())
	}
	if !strings.Contains(color.String(), "\x1b[32m+# Usage\x1b[0m") || !strings.Contains(color.String(), "\x1b[31m-obsolete notes - delete me\x1b[0m") {
		t.Fatalf("coloured diff:\n%q", color.String())
	}
	if ColorAllowed(true, "1") || ColorAllowed(false, "") || !ColorAllowed(true, "") {
		t.Fatal("NO_COLOR or a non-terminal must turn colour off")
	}
}

// TestHazardsLeakNothing draws every terminal-hazards case, screen and
// whole, and checks that no control byte reaches the output.
func TestHazardsLeakNothing(t *testing.T) {
	dir := corpus + "/terminal-hazards"
	r, err := run.Open(dir, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Cases {
		for _, whole := range []bool{false, true} {
			d, err := r.Detail(c)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Collect(r, d, triage.Classify(c), CollectOptions{Whole: whole})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			ev.Render(&b, Options{Width: 60, AnswerLines: 6, InputLines: 3, Whole: whole})
			if ev.Task == nil || ev.Trace == nil {
				t.Fatalf("%s: no task or transcript to test", c.TestID)
			}
			for i, r := range b.String() {
				if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
					t.Fatalf("%s (whole %v): control %U at byte %d:\n%s", c.TestID, whole, r, i, b.String())
				}
			}
		}
	}
}
