package demo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// corpusCopy is the same run in the repository's corpus.
var corpusCopy = filepath.Join("..", "..", "..", "testdata", "agentv-4.42.4", "runs", Name)

// files maps every regular file under root in fsys to its bytes.
func files(t *testing.T, fsys fs.FS, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := fs.ReadFile(fsys, path)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSameAsCorpus: the embedded demo run is byte for byte the corpus run
// the docs and the other tests use.
func TestSameAsCorpus(t *testing.T) {
	embedded := files(t, Run, Name)
	corpus := files(t, os.DirFS(corpusCopy), ".")
	if len(embedded) < 10 {
		t.Fatalf("only %d files embedded", len(embedded))
	}
	for name, data := range corpus {
		got, ok := embedded[name]
		switch {
		case !ok:
			t.Errorf("%s is in %s but not embedded (copy it into plugin/internal/demo/%s)", name, corpusCopy, Name)
		case !bytes.Equal(got, data):
			t.Errorf("%s differs between %s and plugin/internal/demo/%s", name, corpusCopy, Name)
		}
	}
	for name := range embedded {
		if _, ok := corpus[name]; !ok {
			t.Errorf("%s is embedded but not in %s", name, corpusCopy)
		}
	}
}
