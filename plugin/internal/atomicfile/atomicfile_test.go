package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileReplacesByRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := WriteFile(path, []byte("v1")); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := WriteFile(path, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := old.Read(buf)
	if string(buf[:n]) != "v1" {
		t.Errorf("old file was modified in place: %q", buf[:n])
	}
	if got := readString(t, path); got != "v2" {
		t.Errorf("file = %q, want v2", got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"out.csv"}) {
		t.Errorf("folder holds %v, want only out.csv", names)
	}
}

// parts is a fill that writes each of ss in turn.
func parts(ss ...string) func(w io.Writer) error {
	return func(w io.Writer) error {
		for _, s := range ss {
			if _, err := io.WriteString(w, s); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestWriteFromFails: what WriteFrom's fill writes is the file; when fill
// fails, the old file stays, no temp file is left, and the error is fill's.
func TestWriteFromFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := WriteFrom(path, parts("{", "", `"a": 1`, "}\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "{\"a\": 1}\n" {
		t.Errorf("file = %q", got)
	}
	err := WriteFrom(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return errInjected
	})
	if !errors.Is(err, errInjected) || readString(t, path) != "{\"a\": 1}\n" || !slices.Equal(dirNames(t, dir), []string{"f.json"}) {
		t.Errorf("a failed fill: %v, file %q, folder %v", err, readString(t, path), dirNames(t, dir))
	}
}

func TestRefusesSymlinkAndNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, write := range []func(string, []byte) error{WriteFile, Create} {
		if err := write(link, []byte("through")); !errors.Is(err, ErrSymlink) {
			t.Errorf("write through a symlink: %v, want ErrSymlink", err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link was replaced: %v %v", fi, err)
	}
	if readString(t, target) != "target" {
		t.Error("link target was modified")
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("write over a folder: %v, want ErrNotRegular", err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"elsewhere", "link", "sub"}) {
		t.Errorf("folder holds %v: a temp file was left", names)
	}
}

func TestCreateNeverReplaces(t *testing.T) {
	for _, name := range []string{"link", "no link"} {
		t.Run(name, func(t *testing.T) {
			fsys := fileSystem(osFS{})
			if name == "no link" {
				fsys = failingFS{step: "link", err: &os.LinkError{Op: "link", Err: syscall.EPERM}}
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "h.json")
			if err := write(fsys, path, bytesOf([]byte("first")), true); err != nil {
				t.Fatal(err)
			}
			if err := write(fsys, path, bytesOf([]byte("second")), true); !errors.Is(err, fs.ErrExist) {
				t.Errorf("second Create = %v, want fs.ErrExist", err)
			}
			if got := readString(t, path); got != "first" {
				t.Errorf("file = %q, want first", got)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"h.json"}) {
				t.Errorf("folder holds %v, want only h.json", names)
			}
		})
	}
}

// A target that appears between the check and the link (another writer)
// is not replaced either, with or without hard links.
func TestCreateRace(t *testing.T) {
	for _, linkErr := range []error{nil, &os.LinkError{Op: "link", Err: syscall.ENOTSUP}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "h.json")
		fsys := failingFS{step: "link", err: linkErr, beforeLink: func() { os.WriteFile(path, []byte("theirs"), 0o644) }}
		if err := write(fsys, path, bytesOf([]byte("ours")), true); !errors.Is(err, fs.ErrExist) {
			t.Errorf("link error %v: Create = %v, want fs.ErrExist", linkErr, err)
		}
		if got := readString(t, path); got != "theirs" {
			t.Errorf("link error %v: file = %q, want theirs", linkErr, got)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"h.json"}) {
			t.Errorf("link error %v: folder holds %v", linkErr, names)
		}
	}
}

var errInjected = errors.New("injected failure")

func TestFailureKeepsOldFile(t *testing.T) {
	diskFull := &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	tests := []struct {
		step      string
		err       error
		noReplace bool
		want      string // the file afterwards; "" when absent
		wantErr   bool
	}{
		{"create", &fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, false, "old", true},
		{"write", diskFull, false, "old", true},
		{"sync", errInjected, false, "old", true},
		{"close", errInjected, false, "old", true},
		{"rename", errInjected, false, "old", true},
		{"syncdir", errInjected, false, "new", true},
		{"sync", &fs.PathError{Op: "sync", Path: "x", Err: syscall.EINVAL}, false, "new", false},
		{"sync", &fs.PathError{Op: "sync", Path: "x", Err: syscall.ENOTSUP}, false, "new", false},
		{"write", diskFull, true, "", true},
		{"link", errInjected, true, "", true},
		{"sync", errInjected, true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if !tt.noReplace {
				if err := WriteFile(path, []byte("old")); err != nil {
					t.Fatal(err)
				}
			}
			err := write(failingFS{step: tt.step, err: tt.err}, path, parts("ne", "", "w"), tt.noReplace)
			if tt.wantErr != (err != nil) || err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error = %v, want %v (wanted: %v)", err, tt.err, tt.wantErr)
			}
			got, readErr := os.ReadFile(path)
			if tt.want == "" && !errors.Is(readErr, fs.ErrNotExist) {
				t.Errorf("file after failed Create = %q, %v; want none", got, readErr)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			names := dirNames(t, dir)
			if tt.want == "" && len(names) != 0 || tt.want != "" && !slices.Equal(names, []string{"f.json"}) {
				t.Errorf("folder holds %v: a temp or partial file was left", names)
			}
		})
	}
}

func TestIsTemp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "[ab]*") // glob metacharacters are text
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f.json")
	// A writer killed after its write: the temp file stays.
	_ = write(failingFS{step: "rename", err: errInjected, keepTemp: true}, path, bytesOf([]byte("x")), false)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !IsTemp(entries[0].Name(), "f.json") || !IsTemp(entries[0].Name(), "") {
		t.Fatalf("entries %v, %v; want the one temp file of f.json", entries, err)
	}
	for _, name := range []string{"f.json", ".f.json.tmp-", ".f.json.tmp-12a", ".g.json.tmp-1", "f.json.tmp-1"} {
		if IsTemp(name, "f.json") {
			t.Errorf("IsTemp(%q, f.json) = true", name)
		}
	}
}

// failingFS fails the write at one step.
type failingFS struct {
	osFS
	step       string
	err        error
	beforeLink func()
	keepTemp   bool // Remove does nothing, as when the writer was killed
}

func (f failingFS) fail(step string) error {
	if f.step == step {
		return f.err
	}
	return nil
}

func (f failingFS) OpenExclusive(name string, perm fs.FileMode) (file, error) {
	if err := f.fail("create"); err != nil {
		return nil, err
	}
	t, err := f.osFS.OpenExclusive(name, perm)
	if err != nil {
		return nil, err
	}
	return failingFile{t, f}, nil
}

func (f failingFS) Rename(oldpath, newpath string) error {
	if err := f.fail("rename"); err != nil {
		return err
	}
	return f.osFS.Rename(oldpath, newpath)
}

func (f failingFS) Link(oldpath, newpath string) error {
	if f.beforeLink != nil {
		f.beforeLink()
	}
	if err := f.fail("link"); err != nil {
		return err
	}
	return f.osFS.Link(oldpath, newpath)
}

func (f failingFS) Remove(name string) error {
	if f.keepTemp {
		return nil
	}
	return f.osFS.Remove(name)
}

func (f failingFS) SyncDir(dir string) error {
	if err := f.fail("syncdir"); err != nil {
		return err
	}
	return f.osFS.SyncDir(dir)
}

type failingFile struct {
	file
	fs failingFS
}

func (f failingFile) Write(p []byte) (int, error) {
	if err := f.fs.fail("write"); err != nil {
		n, _ := f.file.Write(p[:len(p)/2]) // a short write, as on a full disk
		return n, err
	}
	return f.file.Write(p)
}

func (f failingFile) Sync() error {
	if err := f.fs.fail("sync"); err != nil {
		return err
	}
	return f.file.Sync()
}

func (f failingFile) Close() error {
	err := f.file.Close()
	if injected := f.fs.fail("close"); injected != nil {
		return injected
	}
	return err
}
