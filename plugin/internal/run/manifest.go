package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"agentv-review/plugin/internal/clierr"
)

// lineReader yields the lines of a manifest with their byte offsets. It
// uses bufio.Reader, not bufio.Scanner, so a line has no length limit.
type lineReader struct {
	r      *bufio.Reader
	offset int64  // offset of the next line
	long   []byte // reused for lines longer than the buffer
}

// next returns the next line without its newline, its offset, and whether
// it ended with a newline. It returns io.EOF after the last line.
func (lr *lineReader) next() (line []byte, off int64, newline bool, err error) {
	off = lr.offset
	line, err = lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	lr.offset += int64(len(line))
	switch {
	case err == nil:
		return line[:len(line)-1], off, true, nil
	case errors.Is(err, io.EOF) && len(line) > 0:
		return line, off, false, nil
	}
	return nil, off, false, err
}

const noResultsHint = "wait for `agentv eval` to finish, or re-run it; a run that crashed before its first result has nothing to review"

// readManifest reads every row of the manifest at file (rel is its name
// for messages) into r: one Case per deduplicated row.
func (r *Run) readManifest(file, rel string) error {
	f, err := os.Open(file)
	if err != nil {
		return unreadable(rel, err)
	}
	defer f.Close()

	lr := &lineReader{r: bufio.NewReaderSize(f, 256<<10)}
	in := interner{}
	seen := map[dedupeKey]int{}
	owner := map[string]int{} // result folder -> index of the last case using it
	dirs := []string{}
	dupes, firstDupe := 0, 0
	for n := 1; ; n++ {
		raw, off, newline, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return unreadable(rel, err)
		}
		line := bytes.TrimSpace(raw)
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) == 0 {
			continue
		}
		c := &Case{Loc: RowLoc{Line: n, Offset: off, Length: len(raw)}}
		dir, warn, re := parseRow(line, c, in)
		if re != nil {
			if re.syntax && !newline {
				r.warn(rel, n, "last line is incomplete (the run was probably interrupted while writing); skipped")
				break
			}
			return clierr.Input(rel, n, re.field, re.msg, re.hint)
		}
		if warn != "" {
			r.warn(rel, n, warn)
		}
		r.Rows++
		key := dedupeKey{c.EvalPath, c.Suite, c.TestID, c.Target, c.Variant}
		i, dup := seen[key]
		if !dup {
			i = len(r.Cases)
			seen[key] = i
			r.Cases = append(r.Cases, nil)
			dirs = append(dirs, "")
		} else {
			c.Duplicates = r.Cases[i].Duplicates + 1
			if dupes == 0 {
				firstDupe = n
			}
			dupes++
		}
		c.Index = i
		r.Cases[i] = c
		dirs[i] = dir
		if dir != "" {
			owner[dir] = i
		}
	}
	if len(r.Cases) == 0 {
		return clierr.Input(rel, 0, "", "run has no results yet (the manifest has no rows)", noResultsHint)
	}
	if dupes > 0 {
		r.warn(rel, firstDupe, fmt.Sprintf("%d duplicate row(s) with the same eval_path, suite, test_id, target and variant (as after --rerun-failed or --resume); the last row of each wins, as in AgentV", dupes))
	}
	for i, d := range dirs {
		if j, ok := owner[d]; ok && j != i {
			r.Cases[i].OverwrittenBy = r.Cases[j].Target
		}
	}
	return nil
}

// dedupeKey is AgentV's dedupe key for result rows.
type dedupeKey struct{ evalPath, suite, testID, target, variant string }

func (r *Run) warn(file string, line int, msg string) {
	r.Warnings = append(r.Warnings, Warning{File: file, Line: line, Msg: msg})
}

func unreadable(rel string, err error) error {
	msg := "cannot read file"
	var pe *os.PathError
	if errors.As(err, &pe) {
		msg = "cannot read file: " + pe.Err.Error()
	}
	return &clierr.Error{Code: clierr.CodeInvalid, File: rel, Msg: msg, Hint: "check that the file exists and that you may read it", Err: err}
}
