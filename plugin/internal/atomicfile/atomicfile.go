// Package atomicfile writes every file agentv-review writes (feedback,
// draft, history copies, export --out, skill --install) so that a crash,
// a full disk or a failing sync leaves either the old file or the new one,
// whole, and never a temporary file that looks like a real one.
//
// A write goes: temp file beside the target (".<name>.tmp-<digits>", as
// os.CreateTemp names them; see TempGlob) → write → fsync → close → rename
// over the target (or, for Create, link to it) → fsync the folder, as
// restic's local backend does. On any failure before the rename the temp
// file is removed and the target is untouched.
//
// Rules, the same for every caller:
//   - Permissions: a replaced file keeps its permission bits; a new file is
//     created 0644 minus the process umask (the kernel applies it, as for
//     any file the user creates).
//   - The target is never followed or replaced when it is a symbolic link
//     (ErrSymlink), nor when it is something other than a regular file, such
//     as a folder or a device (ErrNotRegular): renaming over a link would
//     detach the file it points to, and writing through it would change a
//     file elsewhere.
//   - File systems without fsync: when syncing the file fails with EINVAL
//     or ENOTSUP (some network and FUSE file systems; ENOTTY on macOS exFAT)
//     the write goes on without sync, and the folder is not synced either;
//     a folder that cannot be synced (EINVAL, ENOTSUP, ENOENT) is not an
//     error. Any other sync error fails the write.
//   - File systems without hard links: Create normally links the finished
//     temp file to the target, which fails atomically when the target
//     exists. Where link is refused (EPERM, ENOTSUP, ENOSYS, EXDEV, EMLINK)
//     it reserves the name instead with an exclusive create (O_EXCL: fails
//     when the target exists) and renames the finished temp file over the
//     reservation. The target then is never partial, but a crash between
//     the two steps leaves it empty.
package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Errors about the target, returned wrapped in an *fs.PathError.
var (
	ErrSymlink    = errors.New("is a symbolic link: refusing to replace it")
	ErrNotRegular = errors.New("is not a regular file: refusing to replace it")
)

// NewFileMode is the mode of a file that did not exist before, before umask.
const NewFileMode fs.FileMode = 0o644

// WriteFile replaces path with data atomically and durably.
func WriteFile(path string, data []byte) error {
	return write(osFS{}, path, bytesOf(data), false)
}

// WriteFrom is WriteFile of what content writes to the temp file, as it
// makes it: when content fails, the write stops there with its error, the
// temp file is removed and path is untouched.
func WriteFrom(path string, content func(w io.Writer) error) error {
	return write(osFS{}, path, content, false)
}

// bytesOf is a fill that writes data.
func bytesOf(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// Create writes data to path atomically and durably, failing with an error
// that matches fs.ErrExist when path already exists (it is never replaced).
func Create(path string, data []byte) error {
	return write(osFS{}, path, bytesOf(data), true)
}

// IsTemp reports whether name (a base name) is a temp file of a write of
// target (a base name; "" for any target). A writer killed mid-write
// leaves one behind; callers that know no write is in flight (they hold the
// file's lock) may delete them. Names are compared as text: a folder or
// file name with glob metacharacters means nothing special here.
func IsTemp(name, target string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, ".tmp-")
	if i < 0 || (target != "" && rest[:i] != target) {
		return false
	}
	digits := rest[i+len(".tmp-"):]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// fileSystem is what a durable write needs from the OS. Tests substitute
// one that fails at a chosen step.
type fileSystem interface {
	Lstat(name string) (fs.FileInfo, error)
	// OpenExclusive creates name, failing when it exists.
	OpenExclusive(name string, perm fs.FileMode) (file, error)
	Rename(oldpath, newpath string) error
	Link(oldpath, newpath string) error
	Remove(name string) error
	SyncDir(dir string) error
}

type file interface {
	Write(p []byte) (int, error)
	Chmod(mode fs.FileMode) error
	Sync() error
	Close() error
}

func write(fsys fileSystem, path string, content func(w io.Writer) error, noReplace bool) error {
	mode, keep, err := targetMode(fsys, path, noReplace)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, f, err := createTemp(fsys, path)
	if err != nil {
		return err
	}
	synced, err := fill(f, content, mode, keep)
	if err == nil {
		if noReplace {
			err = link(fsys, tmp, path)
		} else {
			err = fsys.Rename(tmp, path)
		}
	}
	if noReplace || err != nil {
		// After a link the temp name is a second name of path; otherwise a leftover.
		if rmErr := fsys.Remove(tmp); err == nil && !errors.Is(rmErr, fs.ErrNotExist) {
			err = rmErr
		}
	}
	if err != nil || !synced {
		return err
	}
	return fsys.SyncDir(dir)
}

// targetMode checks what is at path and returns the mode the new file
// gets, with keep set when it must be applied explicitly (a replaced
// file's mode; a new file's mode comes from create and the umask).
func targetMode(fsys fileSystem, path string, noReplace bool) (mode fs.FileMode, keep bool, err error) {
	fi, err := fsys.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return NewFileMode, false, nil
	case err != nil:
		return 0, false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0, false, &fs.PathError{Op: "write", Path: path, Err: ErrSymlink}
	case noReplace:
		return 0, false, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	case !fi.Mode().IsRegular():
		return 0, false, &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	}
	return fi.Mode().Perm(), true, nil
}

// createTemp creates a new temp file beside path, mode NewFileMode minus umask.
func createTemp(fsys fileSystem, path string) (string, file, error) {
	dir, name := filepath.Split(path)
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+name+".tmp-"+strconv.FormatUint(rand.Uint64(), 10))
		f, err := fsys.OpenExclusive(tmp, NewFileMode)
		if errors.Is(err, fs.ErrExist) && try < 10 {
			continue
		}
		return tmp, f, err
	}
}

// fill writes content to f, chmods, syncs and closes it. synced is false
// when the file system cannot sync files.
func fill(f file, content func(w io.Writer) error, mode fs.FileMode, keep bool) (synced bool, err error) {
	err = content(f)
	if err == nil && keep {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
		synced = err == nil
		if syncUnsupported(err) {
			err = nil
		}
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return synced, err
}

// syncUnsupported tells a file system that cannot fsync from a failed one.
func syncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		runtime.GOOS == "darwin" && errors.Is(err, syscall.ENOTTY)
}

// link links tmp to path, falling back to reserve-and-rename where the
// file system has no hard links.
func link(fsys fileSystem, tmp, path string) error {
	err := fsys.Link(tmp, path)
	if !linkUnsupported(err) {
		return err
	}
	reserved, err := fsys.OpenExclusive(path, NewFileMode)
	if err != nil {
		return err
	}
	if err := reserved.Close(); err != nil {
		fsys.Remove(path)
		return err
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(path) // the empty reservation, never someone else's file
		return err
	}
	return nil
}

func linkUnsupported(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.ENOTSUP, syscall.ENOSYS, syscall.EXDEV, syscall.EMLINK} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

type osFS struct{}

func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

func (osFS) OpenExclusive(name string, perm fs.FileMode) (file, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
func (osFS) Link(oldpath, newpath string) error   { return os.Link(oldpath, newpath) }
func (osFS) Remove(name string) error             { return os.Remove(name) }

// SyncDir makes a rename in dir durable. File systems that cannot sync a
// folder are not an error, as in restic.
func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if syncUnsupported(err) || errors.Is(err, syscall.ENOENT) {
		err = nil
	}
	if closeErr := d.Close(); err == nil {
		err = closeErr
	}
	return err
}
