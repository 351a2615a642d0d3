package feedback

import (
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

// Lock takes the exclusive lock of a feedback output without waiting and
// returns the function that releases it. Taking it also removes the
// temporary files of writers that were killed mid-write.
//
// Design: a guided review holds the lock for its whole session; scripted
// writers (set, apply) take it only around their read-modify-write
// (Load, Upsert, Archive, Write). So two processes never both read the same
// version and lose each other's update, and a second guided session is
// refused instead of racing the first. The lock is flock(2) on the lock
// file (LockFileEx on Windows): the kernel releases it when the holder
// exits, even on a crash, so a leftover lock file never blocks anyone and
// is deliberately not deleted (deleting it would let two processes lock two
// different files).
func Lock(p Paths) (release func() error, err error) {
	return LockWait(p, 0)
}

// LockWait is Lock for writers that hold the lock only for a moment (set,
// apply): while another process holds it, it retries for up to wait before
// refusing, so scripted writers started together run one after another
// instead of failing.
func LockWait(p Paths, wait time.Duration) (release func() error, err error) {
	// The lock file is created in the run's folder: never through a
	// symlink (it could create or truncate a file anywhere) and never on a
	// FIFO or device (opening one can block forever).
	if fi, err := os.Lstat(p.Lock); err == nil && !fi.Mode().IsRegular() {
		what := "a symbolic link"
		if fi.Mode()&os.ModeSymlink == 0 {
			what = (&safefile.NotFileError{Mode: fi.Mode()}).Error()[len("is "):]
		}
		return nil, &clierr.Error{Code: clierr.CodeFailure, File: p.Lock, Msg: "cannot lock: the lock file is " + what,
			Hint: "remove it (agentv-review creates it as a plain file), or use --out FILE to write the feedback elsewhere"}
	}
	fl := flock.New(p.Lock, flock.SetPermissions(0o644))
	deadline := time.Now().Add(wait)
	ok, err := fl.TryLock()
	for err == nil && !ok && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		ok, err = fl.TryLock()
	}
	if err != nil {
		return nil, &clierr.Error{
			Code: clierr.CodeFailure, File: p.Lock,
			Msg:  "cannot lock: " + clierr.Cause(err),
			Hint: "use --out FILE to write the feedback elsewhere",
			Err:  err,
		}
	}
	if !ok {
		return nil, &clierr.Error{
			Code: clierr.CodeFailure, File: p.Feedback,
			Msg:  "another review of this run is in progress",
			Hint: "finish or quit the other agentv-review session first (its lock " + p.Lock + " is released when it exits)",
		}
	}
	removeStaleTemps(p)
	return fl.Unlock, nil
}

// removeStaleTemps deletes the temporary files a killed writer left behind
// (".feedback.json.tmp-123", also for the draft and in the history folder).
// Every writer holds the lock, so while we hold it none is in flight and
// every such file is stale. Failures are ignored: a leftover temp file is
// never read and never replaces a real one.
func removeStaleTemps(p Paths) {
	for _, f := range []struct{ dir, target string }{
		{filepath.Dir(p.Feedback), filepath.Base(p.Feedback)},
		{filepath.Dir(p.Draft), filepath.Base(p.Draft)},
		{p.HistoryDir, ""},
	} {
		entries, _ := os.ReadDir(f.dir) // names as text: a run called "[ab]*" is no pattern
		for _, e := range entries {
			if e.Type().IsRegular() && atomicfile.IsTemp(e.Name(), f.target) {
				os.Remove(filepath.Join(f.dir, e.Name()))
			}
		}
	}
}
