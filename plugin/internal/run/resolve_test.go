package run

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"agentv-review/plugin/internal/clierr"
)

const okRow = `{"test_id":"a","target":"t","score":1,"execution_status":"ok"}`

// writeFiles creates files (path -> content) under root.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenResolves(t *testing.T) {
	core, err := filepath.Abs(filepath.Join(corpus, "runs", "core-pass-fail-error"))
	if err != nil {
		t.Fatal(err)
	}
	const ts1, ts2 = "2026-11-30T07-51-13-245Z", "2026-12-01T08-00-00-000Z"
	tests := []struct {
		name     string
		files    map[string]string
		target   string // relative to the temp dir; "" = use cwd
		cwd      string // relative to the temp dir
		wantDir  string // relative to the temp dir; "" = core
		wantFile string // manifest relative to the run dir
		layout   Layout
		warning  string
	}{
		{name: "run dir", target: core, wantFile: "index.jsonl", layout: LayoutIndex},
		{name: "index.jsonl path", target: filepath.Join(core, "index.jsonl"), wantFile: "index.jsonl", layout: LayoutIndex},
		{
			name:   "flat file",
			files:  map[string]string{".agentv/results/eval_2025-10-01T00-00-00-000Z.jsonl": okRow + "\n"},
			target: ".agentv/results/eval_2025-10-01T00-00-00-000Z.jsonl", wantDir: ".agentv/results",
			wantFile: "eval_2025-10-01T00-00-00-000Z.jsonl", layout: LayoutFlat,
		},
		{
			name:   "project root, one nested run",
			files:  map[string]string{".agentv/results/runs/default/" + ts1 + "/index.jsonl": okRow},
			target: ".", wantDir: ".agentv/results/runs/default/" + ts1, wantFile: "index.jsonl", layout: LayoutIndex,
		},
		{
			name:   ".agentv/results",
			files:  map[string]string{".agentv/results/runs/default/" + ts1 + "/index.jsonl": okRow},
			target: ".agentv/results", wantDir: ".agentv/results/runs/default/" + ts1, wantFile: "index.jsonl", layout: LayoutIndex,
		},
		{
			name:   "results/runs/<experiment>",
			files:  map[string]string{".agentv/results/runs/exp/" + ts1 + "/index.jsonl": okRow},
			target: ".agentv/results/runs/exp", wantDir: ".agentv/results/runs/exp/" + ts1, wantFile: "index.jsonl", layout: LayoutIndex,
		},
		{
			name: "cache.json lastRunDir from a subfolder",
			files: map[string]string{
				".agentv/cache.json":                      `{"lastRunDir":".agentv/results/` + ts2 + `","timestamp":"x"}`,
				".agentv/results/" + ts1 + "/index.jsonl": okRow,
				".agentv/results/" + ts2 + "/index.jsonl": okRow,
				"evals/x.yaml":                            "",
			},
			cwd: "evals", wantDir: ".agentv/results/" + ts2, wantFile: "index.jsonl", layout: LayoutIndex,
		},
		{
			name: "v5 summary.json index_path",
			files: map[string]string{
				"run/summary.json":          `{"index_path":"data/rows.jsonl","run_id":"run"}`,
				"run/data/rows.jsonl":       okRow,
				"run/.internal/index.jsonl": "not json",
			},
			target: "run", wantDir: "run", wantFile: "data/rows.jsonl", layout: LayoutV5,
		},
		{
			name: "legacy manifest_path",
			files: map[string]string{
				"run/summary.json":       `{"manifest_path":"run_manifest.jsonl"}`,
				"run/run_manifest.jsonl": okRow,
				"run/index.jsonl":        "not json",
			},
			target: "run", wantDir: "run", wantFile: "run_manifest.jsonl", layout: LayoutV5,
		},
		{
			name: "index_path outside the run is not followed",
			files: map[string]string{
				"run/summary.json": `{"index_path":"../elsewhere.jsonl"}`,
				"elsewhere.jsonl":  "not json",
				"run/index.jsonl":  okRow,
			},
			target: "run", wantDir: "run", wantFile: "index.jsonl", layout: LayoutTrials, warning: "outside the run directory",
		},
		{
			name: "crashed v5 run: .internal wins over root index.jsonl",
			files: map[string]string{
				"run/summary.json":          `{"run_id":"run"}`,
				"run/index.jsonl":           "not json",
				"run/.internal/index.jsonl": okRow,
			},
			target: "run", wantDir: "run", wantFile: ".internal/index.jsonl", layout: LayoutV5, warning: "root index.jsonl",
		},
		{
			name:   "run_manifest.jsonl",
			files:  map[string]string{"run/run_manifest.jsonl": okRow},
			target: "run", wantDir: "run", wantFile: "run_manifest.jsonl", layout: LayoutTrials,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			writeFiles(t, tmp, tt.files)
			target := tt.target
			if target != "" && !filepath.IsAbs(target) {
				target = filepath.Join(tmp, target)
			}
			r, err := Open(target, Options{Cwd: filepath.Join(tmp, tt.cwd)})
			if err != nil {
				t.Fatal(err)
			}
			wantDir := core
			if tt.wantDir != "" {
				wantDir = filepath.Join(tmp, tt.wantDir)
			}
			if r.Dir != wantDir || r.Manifest != filepath.Join(wantDir, tt.wantFile) || r.Layout != tt.layout {
				t.Errorf("dir %s manifest %s layout %s; want %s %s %s", r.Dir, r.Manifest, r.Layout, wantDir, tt.wantFile, tt.layout)
			}
			wantID := filepath.Base(wantDir)
			if tt.layout == LayoutFlat {
				wantID = strings.TrimSuffix(tt.wantFile, ".jsonl")
			}
			if r.ID != wantID {
				t.Errorf("id %q, want %q", r.ID, wantID)
			}
			if tt.warning != "" && !hasWarning(r.Warnings, tt.warning) {
				t.Errorf("warnings %v, want %q", r.Warnings, tt.warning)
			}
			if tt.warning == "" && len(r.Warnings) > 0 {
				t.Errorf("unexpected warnings %v", r.Warnings)
			}
		})
	}
}

func TestOpenAmbiguous(t *testing.T) {
	tmp := t.TempDir()
	older := ".agentv/results/runs/default/2026-11-30T07-51-13-245Z"
	newer := ".agentv/results/runs/other/2026-12-01T08-00-00-000Z"
	writeFiles(t, tmp, map[string]string{older + "/index.jsonl": okRow, newer + "/index.jsonl": okRow})
	for _, target := range []string{".", ".agentv/results", ".agentv/results/runs"} {
		_, err := Open(target, Options{Cwd: tmp})
		var ae *AmbiguousError
		if !errors.As(err, &ae) {
			t.Fatalf("%s: %v, want *AmbiguousError", target, err)
		}
		want := []string{filepath.Join(tmp, newer), filepath.Join(tmp, older)}
		if strings.Join(ae.Candidates, ",") != strings.Join(want, ",") {
			t.Errorf("%s: candidates %v, want newest first %v", target, ae.Candidates, want)
		}
		if clierr.Code(err) != clierr.CodeInvalid || !strings.Contains(clierr.HintOf(err), want[0]) || !strings.Contains(err.Error(), "2 runs") {
			t.Errorf("%s: code %d hint %q msg %q", target, clierr.Code(err), clierr.HintOf(err), err)
		}
	}
	got, err := Candidates(tmp)
	if err != nil || len(got) != 2 || got[0] != filepath.Join(tmp, older) {
		t.Errorf("Candidates = %v, %v; want oldest first", got, err)
	}
}

func TestDetailPathSafety(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"secret.md": "outside",
		"run/index.jsonl": `{"test_id":"dotdot","score":1,"answer_path":"../secret.md","input_path":"x/../../secret.md"}` + "\n" +
			`{"test_id":"abs","score":1,"answer_path":"` + filepath.Join(tmp, "secret.md") + `"}` + "\n" +
			`{"test_id":"link","score":1,"answer_path":"a/answer.md"}` + "\n" +
			`{"test_id":"fallback","score":1,"answer_path":"gone.md","output":[{"role":"assistant","content":"first"},{"role":"user","content":"more?"},{"role":"assistant","content":[{"type":"text","text":"last"}]}]}` + "\n" +
			`{"test_id":"missing","score":1,"answer_path":"b/answer.md","grading_path":"b/grading.json"}` + "\n",
	})
	if err := os.MkdirAll(filepath.Join(tmp, "run", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "secret.md"), filepath.Join(tmp, "run", "a", "answer.md")); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, filepath.Join(tmp, "run"), Options{})
	for _, id := range []string{"dotdot", "abs", "link"} {
		d := mustDetail(t, r, id)
		if !d.Answer.Missing || d.Answer.Content == "outside" || !hasWarning(d.Warnings, "outside the run directory") {
			t.Errorf("%s: answer %+v warnings %v", id, d.Answer, d.Warnings)
		}
		for _, s := range d.Sidecars {
			if s.Present {
				t.Errorf("%s: sidecar %+v outside the run reported present", id, s)
			}
		}
	}
	if d := mustDetail(t, r, "fallback"); d.Answer.Content != "last" || d.Answer.Missing {
		t.Errorf("inline fallback answer %+v", d.Answer)
	}
	d := mustDetail(t, r, "missing")
	if !d.Answer.Present || !d.Answer.Missing || len(d.Warnings) != 0 || len(d.Sidecars) != 2 || d.Sidecars[0].Present {
		t.Errorf("missing sidecars: answer %+v sidecars %+v warnings %v", d.Answer, d.Sidecars, d.Warnings)
	}
}

// locateByRel is locate as it was: every path joined to the dir, then
// made relative to it again.
func locateByRel(dir, p string) (abs, rel string, ok bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(dir, p)
	return p, rel, err == nil && (filepath.IsLocal(rel) || rel == ".")
}

// FuzzLocate: locate, which takes a local path's relative form from the
// path itself, finds what filepath.Rel does.
func FuzzLocate(f *testing.F) {
	for _, s := range [][2]string{
		{"/runs/r", "a/answer.md"}, {"/runs/r/", "./a//b/../c.md"}, {"runs/r", "."}, {"", "a"}, {".", "a/"},
		{"..", "x"}, {"/", "a"}, {"../r/./s", "a/b"}, {"/runs/r", "../r/a"}, {"/runs/r", "/runs/r/a"},
		{"/runs/r", "/elsewhere"}, {"/runs/r", "/runs/r/s/t/task/EVAL.yaml"}, {"/runs/r", "/runs/rr/a"}, {"/runs/r", "/runs/r/./a"}, {"/runs/r", "/runs/r/a/.."}, {"/runs/r", ""}, {"/runs/r", "a/../../b"}, {"r", "a\\b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, dir, p string) {
		abs, rel, ok := (&Run{Dir: dir}).locate(p)
		wantAbs, wantRel, wantOK := locateByRel(dir, p)
		if ok != wantOK || abs != wantAbs || rel != wantRel {
			t.Fatalf("locate(%q) in %q = %q, %q, %v; by Rel %q, %q, %v", p, dir, abs, rel, ok, wantAbs, wantRel, wantOK)
		}
	})
}

// FuzzClean: cleanSlash, cleanFile, joinFile and Run.rel give exactly
// what path.Clean, filepath.Clean, filepath.Join and filepath.Rel give,
// and isClean(p) only when Clean(p) is p.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "/", ".", "..", "./", "../a", "a/..", "/..", "//a", "a//b", "a/./b", "a/../b", "a/", "a/.", "/a/b", "results/suite/test-1/gpt-5-mini/response.md", "...", ".a/b.", "a/.../b"} {
		f.Add(s, "/work/run")
		f.Add(s, "/")
		f.Add(s, ".")
	}
	f.Fuzz(func(t *testing.T, p, dir string) {
		if isClean(p) && path.Clean(p) != p {
			t.Fatalf("isClean(%q), but path.Clean gives %q", p, path.Clean(p))
		}
		if got, want := cleanSlash(p), path.Clean(p); got != want {
			t.Fatalf("cleanSlash(%q) = %q, path.Clean %q", p, got, want)
		}
		if got, want := cleanFile(p), filepath.Clean(p); got != want {
			t.Fatalf("cleanFile(%q) = %q, filepath.Clean %q", p, got, want)
		}
		if got, want := joinFile(dir, p), filepath.Join(dir, p); got != want {
			t.Fatalf("joinFile(%q, %q) = %q, filepath.Join %q", dir, p, got, want)
		}
		for _, p := range []string{p, dir + "/" + p} {
			want := p // what Run.rel gave before its fast path
			if rel, err := filepath.Rel(dir, p); err == nil && filepath.IsLocal(rel) {
				want = filepath.ToSlash(rel)
			}
			if got := (&Run{Dir: dir}).rel(p); got != want {
				t.Fatalf("rel(%q) in %q = %q, filepath.Rel %q", p, dir, got, want)
			}
		}
	})
}
