//go:build unix

package run

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// metaNames are run folder names made of glob and shell metacharacters,
// with siblings each pattern would match if it were used as one.
var metaNames = []string{"[ab]*?", "a", "b", "ab", "*", "?", "{a,b}", `back\slash`, `\*`, "[!a]", "x]["}

// TestMetacharactersAreLiteral opens each run by its path, directly and
// through its manifest, its cache.json and its results folder: every path
// names exactly its own folder, and each folder's sidecars are its own.
func TestMetacharactersAreLiteral(t *testing.T) {
	tmp := t.TempDir()
	results := filepath.Join(tmp, "[ab]*?", ".agentv", "results")
	files := map[string]string{}
	for _, name := range metaNames {
		row, _ := json.Marshal(map[string]any{"test_id": name, "score": 1, "output_path": "out/answer.md"})
		files["[ab]*?/.agentv/results/"+name+"/index.jsonl"] = string(row) + "\n"
		files["[ab]*?/.agentv/results/"+name+"/out/answer.md"] = "answer of " + name
	}
	writeFiles(t, tmp, files)
	var want []string
	for _, name := range metaNames {
		dir := filepath.Join(results, name)
		want = append(want, dir)
		cache, _ := json.Marshal(map[string]string{"lastRunDir": ".agentv/results/" + name})
		writeFiles(t, tmp, map[string]string{"[ab]*?/.agentv/cache.json": string(cache)})
		for _, target := range []string{dir, filepath.Join(dir, "index.jsonl"), ""} {
			r, err := Open(target, Options{Cwd: filepath.Join(tmp, "[ab]*?")})
			if err != nil {
				t.Errorf("Open(%q): %v", target, err)
				continue
			}
			if r.Dir != dir || r.ID != name || len(r.Cases) != 1 || r.Cases[0].TestID != name {
				t.Errorf("Open(%q) read %s (id %q, %d cases), want %s", target, r.Dir, r.ID, len(r.Cases), dir)
				continue
			}
			d, err := r.Detail(r.Cases[0])
			if err != nil || d.Answer.Content != "answer of "+name {
				t.Errorf("Open(%q): answer %q, err %v", target, d.Answer.Content, err)
			}
		}
	}
	got, err := Candidates(results)
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Candidates = %q, %v; want %q", got, err, want)
	}
}
