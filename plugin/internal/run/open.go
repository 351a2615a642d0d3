package run

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Every file the reader reads is opened by openIn (files of a run) or
// openRegular (.agentv/cache.json), never by os.Open: a run directory is
// untrusted input, and os.Open follows symlinks anywhere and blocks forever
// on a FIFO with no writer.

// errOutside is the cause openIn gives for a path that leaves its folder.
var errOutside = errors.New("points outside the run directory; not followed")

// NotFileError is the cause openIn and openRegular give for something that
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

// openIn opens name for reading beneath dir: name is relative to dir, or
// absolute and inside it. It refuses, with errOutside, a name that leaves
// dir lexically (an absolute path elsewhere, "..") or through a symlink at
// any step — os.Root resolves each step beneath dir, so a symlink swapped
// in between a check and the open cannot lead out — and, with a
// NotFileError, anything but a regular file (see openRegular).
func openIn(dir, name string) (*os.File, error) {
	rel := name
	if filepath.IsAbs(name) {
		var err error
		if rel, err = filepath.Rel(dir, name); err != nil {
			rel = name
		}
	}
	if !filepath.IsLocal(rel) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errOutside}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		// os.Root's own refusal (a symlink leading out) is its only
		// error that is not the system's.
		var errno syscall.Errno
		if pe, ok := errors.AsType[*fs.PathError](err); ok && !errors.As(pe.Err, &errno) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errOutside}
		}
		return nil, err
	}
	return regular(f, name)
}

// openRegular opens p for reading if it is a regular file. It opens
// without blocking (O_NONBLOCK, O_NOCTTY on Unix) and checks the opened
// descriptor, not the name, so a FIFO or device swapped in after a Stat
// is still refused with a NotFileError.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	return regular(f, p)
}

// readRegular reads all of p if it is a regular file (see openRegular).
func readRegular(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
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
