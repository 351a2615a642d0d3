// Package skill embeds the agentv-eval-builder Agent Skill (SKILL.md and
// references/) and installs it into an agent's skills folder.
//
// examples/ is not embedded: it holds every EVAL.yaml shown in the card and
// its references as a file of its own, so tests in plugin/internal/assets
// can check that each fenced yaml block equals an example file and that
// `agentv validate` accepts every example.
package skill

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Name is the skill's name and the folder Install creates.
const Name = "agentv-eval-builder"

// FS holds SKILL.md and references/.
//
//go:embed SKILL.md references
var FS embed.FS

// ErrConflict is wrapped by Install when an installed file differs from
// the embedded one and force is false.
var ErrConflict = errors.New("file exists with different content")

// Card returns SKILL.md.
func Card() []byte {
	b, err := FS.ReadFile("SKILL.md")
	if err != nil {
		panic(err) // embedded at build time
	}
	return b
}

// Files returns the embedded file paths, slash-separated, SKILL.md first.
func Files() []string {
	var files []string
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		panic(err) // embedded at build time
	}
	return files // WalkDir order puts SKILL.md before references/
}

// References returns the names of the reference files (references/*.md
// without the extension), sorted: the card's `docs` topics.
func References() []string {
	var names []string
	for _, f := range Files() {
		if name, ok := strings.CutPrefix(f, "references/"); ok {
			names = append(names, strings.TrimSuffix(name, path.Ext(name)))
		}
	}
	return names
}

// Reference returns references/<name>.md, and false when there is none.
func Reference(name string) ([]byte, bool) {
	if !slices.Contains(References(), name) {
		return nil, false
	}
	b, err := FS.ReadFile("references/" + name + ".md")
	return b, err == nil
}

// Install writes the skill into dir/agentv-eval-builder/ with write (the
// tool's one durable writer, which lives where this package may not import
// it) and returns the paths of its files. Unless force is set, nothing is
// written when an existing file differs from the embedded one; identical
// files are left alone.
func Install(dir string, force bool, write func(path string, data []byte) error) ([]string, error) {
	type file struct {
		path string
		data []byte
	}
	var paths []string
	var pending []file
	for _, name := range Files() {
		f := file{path: filepath.Join(dir, Name, filepath.FromSlash(name))}
		f.data, _ = FS.ReadFile(name) // listed by Files, so present
		paths = append(paths, f.path)
		have, err := os.ReadFile(f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			pending = append(pending, f)
		case err != nil:
			return nil, err
		case bytes.Equal(have, f.data):
		case !force:
			return nil, fmt.Errorf("%s: %w", f.path, ErrConflict)
		default:
			pending = append(pending, f)
		}
	}
	for _, f := range pending {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return nil, err
		}
		if err := write(f.path, f.data); err != nil {
			return nil, err
		}
	}
	return paths, nil
}
