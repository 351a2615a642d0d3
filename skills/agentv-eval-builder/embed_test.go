package skill

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFiles(t *testing.T) {
	files := Files()
	if len(files) < 2 || files[0] != "SKILL.md" {
		t.Fatalf("Files() = %v, want SKILL.md first and references after it", files)
	}
	for _, f := range files[1:] {
		if filepath.Dir(f) != "references" || filepath.Ext(f) != ".md" {
			t.Errorf("unexpected embedded file %s", f)
		}
	}
	if !slices.Contains(files, "references/review-loop.md") {
		t.Errorf("references/review-loop.md not embedded: %v", files)
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	paths, err := Install(dir, false, writeFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(Files()) {
		t.Fatalf("installed %d files, want %d", len(paths), len(Files()))
	}
	card := filepath.Join(dir, Name, "SKILL.md")
	assertContent(t, card, Card())

	// Reinstalling over identical files is a no-op.
	if _, err := Install(dir, false, writeFile); err != nil {
		t.Fatalf("reinstall: %v", err)
	}

	// A locally edited file is kept, and nothing else is touched.
	ref := filepath.Join(dir, Name, "references", "review-loop.md")
	if err := os.Remove(ref); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(card, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Install(dir, false, writeFile)
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("install over an edited file: err = %v, want ErrConflict", err)
	}
	assertContent(t, card, []byte("edited"))
	if _, err := os.Stat(ref); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused install wrote %s", ref)
	}

	// force replaces it and restores the missing file.
	if _, err := Install(dir, true, writeFile); err != nil {
		t.Fatalf("forced install: %v", err)
	}
	assertContent(t, card, Card())
	want, _ := FS.ReadFile("references/review-loop.md")
	assertContent(t, ref, want)
}

func assertContent(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s has %d bytes of unexpected content, want %d bytes", path, len(got), len(want))
	}
}

func TestReferences(t *testing.T) {
	names := References()
	if !slices.Equal(names, []string{"eval-files", "review-loop", "running-and-results"}) {
		t.Errorf("References() = %v", names)
	}
	for _, name := range names {
		got, ok := Reference(name)
		want, _ := FS.ReadFile("references/" + name + ".md")
		if !ok || len(got) == 0 || string(got) != string(want) {
			t.Errorf("Reference(%q) = %d bytes, %v; want the file", name, len(got), ok)
		}
	}
	for _, bad := range []string{"SKILL", "../SKILL", "references/eval-files", "eval-files.md", ""} {
		if _, ok := Reference(bad); ok {
			t.Errorf("Reference(%q) found a file", bad)
		}
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
