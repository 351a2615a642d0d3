// Package safefile opens the files agentv-review reads without trusting
// them: never blocking on a FIFO or a device, never following a symlink
// out of the folder a file must stay in.
package safefile

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// Every file agentv-review reads is opened by OpenIn (files of a run) or
// OpenRegular (feedback files, inputs, .agentv/cache.json), never by
// os.Open: a run directory is untrusted input, and os.Open follows symlinks
// anywhere and blocks forever on a FIFO with no writer.

// ErrOutside is the cause OpenIn gives for a path that leaves its folder.
var ErrOutside = errors.New("points outside the run directory; not followed")

// NotFileError is the cause OpenIn and OpenRegular give for something that
// is not a regular file: a FIFO, a device, a socket or a folder.
type NotFileError struct{ Mode fs.FileMode }

func (e *NotFileError) Error() string {
	kind := "not a regular file"
	switch m := e.Mode; {
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a directory"
	}
	return "is " + kind + ", not a file"
}

// OpenIn opens name for reading beneath dir: name is relative to dir, or
// absolute and inside it. It refuses, with ErrOutside, a name that leaves
// dir lexically (an absolute path elsewhere, "..") or through a symlink at
// any step — os.Root resolves each step beneath dir, so a symlink swapped
// in between a check and the open cannot lead out — and, with a
// NotFileError, anything but a regular file (see OpenRegular).
func OpenIn(dir, name string) (*os.File, error) {
	rel, err := local(dir, name)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return (&Dir{path: dir, root: root}).open(rel, name)
}

// Dir is a folder opened once for many reads beneath it (a run read case
// after case), each with OpenIn's rules.
type Dir struct {
	path string
	root *os.Root
	self *os.File // the folder itself, for readBeneath; nil in OpenIn
}

// OpenDir opens dir for Dir.Read.
func OpenDir(dir string) (*Dir, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	self, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Dir{path: dir, root: root, self: self}, nil
}

// Read reads at most limit bytes of name beneath d, refused as OpenIn
// refuses it, and returns them with the file's size: a file that grows
// meanwhile is cut, one that shrinks is read to its end.
func (d *Dir) Read(name string, limit int64) ([]byte, int64, error) {
	return d.ReadInto(nil, name, limit)
}

// ReadInto is Read into buf's room when it is big enough (the bytes are
// then buf[:n]), else into a new buffer: a caller that reads many files
// one after another reuses one.
func (d *Dir) ReadInto(buf []byte, name string, limit int64) ([]byte, int64, error) {
	rel, err := local(d.path, name)
	if err != nil {
		return nil, 0, err
	}
	if b, size, ok, err := d.readBeneath(buf, rel, name, limit); ok {
		return b, size, err
	}
	f, err := d.open(rel, name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	b := room(buf, min(info.Size(), limit))
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, 0, err
	}
	return b[:n], info.Size(), nil
}

// room is n bytes of buf when it has the room, else a new buffer.
func room(buf []byte, n int64) []byte {
	if int64(cap(buf)) >= n {
		return buf[:n]
	}
	return make([]byte, n)
}

// ReadAtMost is Dir.Read for the one file name beneath dir.
func ReadAtMost(dir, name string, limit int64) ([]byte, int64, error) {
	d, err := OpenDir(dir)
	if err != nil {
		return nil, 0, err
	}
	defer d.Close()
	return d.Read(name, limit)
}

// Close closes the folder.
func (d *Dir) Close() error {
	d.self.Close()
	return d.root.Close()
}

// local is name relative to dir, refused with ErrOutside when it leaves
// dir lexically.
func local(dir, name string) (string, error) {
	rel := name
	if filepath.IsAbs(name) {
		var err error
		if rel, err = filepath.Rel(dir, name); err != nil {
			rel = name
		}
	}
	if !filepath.IsLocal(rel) {
		return "", &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
	}
	return rel, nil
}

func (d *Dir) open(rel, name string) (*os.File, error) {
	f, err := d.root.OpenFile(rel, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		// os.Root's own refusal (a symlink leading out) is its only
		// error that is not the system's.
		var errno syscall.Errno
		if pe, ok := errors.AsType[*fs.PathError](err); ok && !errors.As(pe.Err, &errno) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
		}
		return nil, err
	}
	return regular(f, name)
}

// OpenRegular opens p for reading if it is a regular file. It opens
// without blocking (O_NONBLOCK, O_NOCTTY on Unix) and checks the opened
// descriptor, not the name, so a FIFO or device swapped in after a Stat
// is still refused with a NotFileError.
func OpenRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	return regular(f, p)
}

// ReadRegular reads all of p if it is a regular file (see OpenRegular).
func ReadRegular(p string) ([]byte, error) {
	f, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// readAll reads f to its end into a buffer the size of the file, as
// os.ReadFile does: io.ReadAll starts at 512 bytes and copies everything
// each time it grows (an 85 MB feedback file cost validate about 0.3 s of
// copies and page faults, on one core).
func readAll(f *os.File) ([]byte, error) {
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() < math.MaxInt32 {
		size += int(fi.Size())
	}
	b := make([]byte, 0, size)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) { // it grew
			b = append(b, 0)[:len(b)]
		}
	}
}

// ReadIn reads all of name beneath dir (see OpenIn).
func ReadIn(dir, name string) ([]byte, error) {
	f, err := OpenIn(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// Beside opens path like OpenIn(filepath.Dir(path), filepath.Base(path)):
// a file that is a symlink leading out of its own folder, a FIFO or a
// device is refused. For files the tool keeps beside each other (a
// feedback file, its draft, its history).
func Beside(path string) (*os.File, error) {
	return OpenIn(filepath.Dir(path), filepath.Base(path))
}

// ReadBeside reads all of path (see Beside).
func ReadBeside(path string) ([]byte, error) {
	return ReadIn(filepath.Dir(path), filepath.Base(path))
}

// regular returns f if it is a regular file, else closes it.
func regular(f *os.File, name string) (*os.File, error) {
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: name, Err: &NotFileError{Mode: info.Mode()}}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
