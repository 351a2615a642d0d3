package run

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"

	"agentv-review/plugin/internal/clierr"
)

const noResultsHint = "wait for `agentv eval` to finish, or re-run it; a run that crashed before its first result has nothing to review"

// readManifest reads every row of the manifest at file (rel is its name
// for messages) into r: one Case per deduplicated row. Blocks of lines are
// parsed on several cores and merged in file order, so cases, warnings and
// the first error are those of a line-by-line read.
func (r *Run) readManifest(file, rel string) error {
	f, err := os.Open(file)
	if err != nil {
		return unreadable(rel, err)
	}
	defer f.Close()
	p := startPipeline(f, r.opts.Outline)
	defer p.stop()

	seen := newDedupe()
	owner := map[string]int{} // result folder -> index of the last case using it
	dirs := []string{}
	dupes, firstDupe := 0, 0
	base := 0 // lines before the current block
blocks:
	for b := range p.ordered {
		<-b.done
		if b.readErr != nil {
			return unreadable(rel, b.readErr)
		}
		for _, row := range b.rows {
			c := row.c
			c.Loc.Line += base
			c.Loc.Offset += b.off
			n := c.Loc.Line
			if row.warn != "" {
				r.warn(rel, n, row.warn)
			}
			r.Rows++
			i, dup := seen.index(c, r.Cases)
			if !dup {
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
			dirs[i] = row.dir
			if row.dir != "" {
				owner[row.dir] = i
			}
		}
		if re := b.err; re != nil {
			n := base + b.errLine
			if re.syntax && !b.errNewline {
				r.warn(rel, n, "last line is incomplete (the run was probably interrupted while writing); skipped")
				break blocks
			}
			return clierr.Input(rel, n, re.field, re.msg, re.hint)
		}
		base += b.lines
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

func keyOf(c *Case) dedupeKey {
	return dedupeKey{c.EvalPath, c.Suite, c.TestID, c.Target, c.Variant}
}

// dedupe finds the case that has a row's dedupe key. It maps a hash of
// each key to its case (16 bytes a case instead of the five strings'
// 88); a key whose hash an earlier key already has goes to clashes.
type dedupe struct {
	hash    func(dedupeKey) uint64
	first   map[uint64]int
	clashes map[dedupeKey]int
}

func newDedupe() *dedupe {
	seed := maphash.MakeSeed()
	return &dedupe{
		hash:    func(k dedupeKey) uint64 { return maphash.Comparable(seed, k) },
		first:   map[uint64]int{},
		clashes: map[dedupeKey]int{},
	}
}

// index returns the index in cases of the case with c's key, or, when
// there is none yet, registers c's key at len(cases).
func (d *dedupe) index(c *Case, cases []*Case) (i int, dup bool) {
	k := keyOf(c)
	h := d.hash(k)
	if i, dup = d.first[h]; !dup {
		d.first[h] = len(cases)
		return len(cases), false
	}
	if keyOf(cases[i]) == k {
		return i, true
	}
	if i, dup = d.clashes[k]; !dup {
		d.clashes[k] = len(cases)
		return len(cases), false
	}
	return i, true
}

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
