//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestModes(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh")
	if err := WriteFile(fresh, nil); err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if want := NewFileMode &^ fs.FileMode(umask); permOf(t, fresh) != want {
		t.Errorf("new file mode = %v, want %v (0644 minus umask %03o)", permOf(t, fresh), want, umask)
	}
	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(kept, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if permOf(t, kept) != 0o640 {
		t.Errorf("replaced file mode = %v, want 0640 (kept)", permOf(t, kept))
	}
}

func permOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
