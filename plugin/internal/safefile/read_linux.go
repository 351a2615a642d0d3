package safefile

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// readBeneath is Dir.ReadInto in the common cases, with four system calls
// and no os.File: openat2 resolves all of rel beneath the folder at once
// (RESOLVE_BENEATH refuses any step out of it, a symlink's included, as
// os.Root does step by step), then fstat, read, close. It handles a
// regular file read and a missing one (ok); anything else — a special
// file, a symlink out, a kernel without openat2 — is left to Open (not
// ok), which gives the error it always gave.
func (d *Dir) readBeneath(buf []byte, rel, name string, limit int64) (b []byte, size int64, ok bool, err error) {
	conn, err := d.self.SyscallConn()
	if err != nil {
		return nil, 0, false, nil
	}
	var fd int
	var oerr error
	cerr := conn.Control(func(dirfd uintptr) {
		for {
			fd, oerr = unix.Openat2(int(dirfd), rel, &unix.OpenHow{
				Flags:   unix.O_RDONLY | unix.O_CLOEXEC | nonBlocking,
				Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
			})
			if oerr != unix.EINTR {
				return
			}
		}
	})
	switch {
	case cerr != nil: // the folder is closed
		return nil, 0, false, nil
	case oerr == unix.ENOENT:
		return nil, 0, true, &fs.PathError{Op: "openat2", Path: name, Err: syscall.ENOENT}
	case oerr != nil:
		return nil, 0, false, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, 0, false, nil
	}
	b = room(buf, min(st.Size, limit))
	n := 0
	for n < len(b) {
		m, err := unix.Read(fd, b[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, 0, true, &fs.PathError{Op: "read", Path: name, Err: err}
		case m == 0: // it shrank
			return b[:n], st.Size, true, nil
		}
		n += m
	}
	return b, st.Size, true, nil
}
