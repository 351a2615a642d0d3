//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
	"testing"
)

// hostileDir is a folder with files, symlinks in and out, a FIFO and a
// folder, and a file outside it.
func hostileDir(t *testing.T) (dir string, names []string) {
	t.Helper()
	root := t.TempDir()
	dir = path.Join(root, "run")
	outside := path.Join(root, "secret.txt")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(path.Join(dir, "sub", "deep"), 0o755))
	must(os.WriteFile(outside, []byte("secret"), 0o644))
	must(os.WriteFile(path.Join(dir, "a.txt"), []byte("hello, world"), 0o644))
	must(os.WriteFile(path.Join(dir, "sub", "deep", "b.txt"), []byte("é"), 0o644))
	must(os.WriteFile(path.Join(dir, "empty"), nil, 0o644))
	must(os.Symlink("a.txt", path.Join(dir, "in")))
	must(os.Symlink("../a.txt", path.Join(dir, "sub", "up-in")))
	must(os.Symlink(path.Join(dir, "a.txt"), path.Join(dir, "abs-in")))
	must(os.Symlink("../secret.txt", path.Join(dir, "out")))
	must(os.Symlink(outside, path.Join(dir, "abs-out")))
	must(os.Symlink(root, path.Join(dir, "dir-out")))
	must(os.Symlink("nowhere", path.Join(dir, "dangling")))
	must(os.Symlink("../nowhere", path.Join(dir, "dangling-out")))
	must(os.Symlink("/nowhere", path.Join(dir, "dangling-abs")))
	must(syscall.Mkfifo(path.Join(dir, "fifo"), 0o644))
	names = []string{"a.txt", "sub/deep/b.txt", "empty", "in", "sub/up-in", "abs-in", "out", "abs-out", "dir-out/secret.txt",
		"dangling", "dangling-out", "dangling-abs", "fifo", "sub", "missing", "sub/missing/x", "a.txt/x", "sub/../a.txt", "../secret.txt", outside,
		path.Join(dir, "a.txt"), "."}
	return dir, names
}

// kind is the class of a read error callers tell apart.
func kind(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrOutside):
		return "outside"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.As(err, new(*NotFileError)):
		return "not a file"
	}
	return "other: " + err.Error()
}

// openHostile is hostileDir opened for Dir.Read.
func openHostile(t *testing.T) (d *Dir, dir string, names []string) {
	t.Helper()
	dir, names = hostileDir(t)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dir, names
}

// TestReadLikeOpenIn: Dir.Read reads and refuses what OpenIn does.
func TestReadLikeOpenIn(t *testing.T) {
	d, dir, names := openHostile(t)
	for _, limit := range []int64{0, 1, 5, 1 << 20} {
		for _, name := range names {
			var want []byte
			var wantSize int64
			f, werr := OpenIn(dir, name)
			if werr == nil {
				info, _ := f.Stat()
				wantSize = info.Size()
				want, _ = io.ReadAll(io.LimitReader(f, limit))
				f.Close()
			}
			got, size, err := d.Read(name, limit)
			if kind(err) != kind(werr) || !bytes.Equal(got, want) || size != wantSize {
				t.Errorf("Read(%q, %d) = %q, %d, %v; OpenIn: %q, %d, %v", name, limit, got, size, err, want, wantSize, werr)
			}
			if _, _, err1 := ReadAtMost(dir, name, limit); kind(err1) != kind(err) {
				t.Errorf("ReadAtMost(%q) = %v, Read: %v", name, err1, err)
			}
			// Into a used buffer with room, and one without.
			for _, buf := range [][]byte{[]byte("stale bytes, more than enough of them"), make([]byte, 1, 2)} {
				got, size, err := d.ReadInto(buf, name, limit)
				if kind(err) != kind(werr) || !bytes.Equal(got, want) || size != wantSize {
					t.Errorf("ReadInto(%q, %q, %d) = %q, %d, %v; OpenIn: %q, %d, %v", buf, name, limit, got, size, err, want, wantSize, werr)
				}
				if len(got) > 0 && cap(buf) >= len(got) && &got[0] != &buf[:1][0] {
					t.Errorf("ReadInto(%q, %d) read %d bytes into a new buffer, not the one with room for them", name, limit, len(got))
				}
			}
		}
	}
}
