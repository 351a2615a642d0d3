package run

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

const noResultsHint = "wait for `agentv eval` to finish, or re-run it; a run that crashed before its first result has nothing to review"

// recycleBelow is the size under which a compact read's manifest has its
// merged rows and cases handed back to the workers (parseConfig.recycle):
// 5-7 % faster at 100k rows, but the room in circulation (blocks in flight
// and spares) brings a million-row list to 63-64 MiB of its 64, so a
// manifest of 1 GiB or more (about 200k rows of AgentV 4.42.4) leaves
// them to the collector. A test may set another limit (Run.recycleLimit).
func (r *Run) recycleBelow() int64 {
	if r.recycleLimit != 0 {
		return r.recycleLimit
	}
	return 1 << 30
}

// readManifest reads every row of the manifest at file (rel is its name
// for messages) into r: one Case per deduplicated row. Blocks of lines are
// parsed on several cores and merged in file order, so cases, warnings and
// the first error are those of a line-by-line read.
func (r *Run) readManifest(file, rel string) error {
	f, err := safefile.OpenIn(r.Dir, file)
	if err != nil {
		return unreadable(rel, err)
	}
	defer f.Close()
	cfg := parseConfig{outline: r.opts.Outline, seed: maphash.MakeSeed(), keep: r.keep, keptOnly: r.opts.CheckKeptOnly && r.keep != nil}
	var t *tally
	var cc *compactCases
	if r.opts.Compact && cfg.keep == nil {
		cc = newCompactCases()
		cc.keepIndex = r.keepIndex
	}
	if cfg.keep != nil {
		t, cfg.tally, cfg.tallied = &tally{}, newTallySeeds(), true
		defer t.free() // on every path: its records are outside the heap
	}
	cfg.spans = !cfg.outline && cfg.keep == nil && cc == nil
	if cc != nil {
		if fi, err := f.Stat(); err == nil {
			cfg.recycle = fi.Size() < r.recycleBelow()
		}
	}
	r.spans = nil
	p := startPipeline(f, cfg)
	defer p.stop()

	seen := newDedupe()
	// Result folders by hash (a collision of two folders' 64-bit seeded
	// hashes is too unlikely to matter): the last case using each (a row
	// not kept counts only for a folder a kept case uses), and each case's.
	owner := folderOwners{last: map[uint64]int32{}}
	dirs := []uint64{}
	firstLines := []int{} // under Keep: the line each kept case first appears on
	dupes, firstDupe := 0, 0
	base := 0 // lines before the current block
blocks:
	for b := range p.ordered {
		<-b.done
		if b.readErr != nil {
			return unreadable(rel, b.readErr)
		}
		if t != nil {
			r.marks = append(r.marks, lineMark{line: base + 1, off: b.off})
		}
		for _, row := range b.rows {
			n := base + int(row.line)
			if row.warn != "" {
				r.warn(rel, n, row.warn)
			}
			r.Rows++
			if t != nil {
				if int64(n) > math.MaxUint32 {
					return clierr.Input(rel, n, "", "the manifest has more lines than a tally counts (4294967295)", "split the run")
				}
				t.add(row.th, row.tkey, n)
			}
			c := row.c
			if c == nil { // not kept
				if row.dir != 0 {
					owner.lost(row.dir, row.aside)
				}
				continue
			}
			if cc != nil {
				if err := cc.add(c, row.eval, n, rel); err != nil {
					return err
				}
				continue
			}
			c.Loc.Line = int32(n)
			c.Loc.Offset += b.off
			i, dup := seen.index(c, row.eval, r.Cases)
			if !dup {
				r.Cases = append(r.Cases, nil)
				if cfg.spans {
					r.spans = append(r.spans, "")
				}
				dirs = append(dirs, 0)
				if t != nil {
					firstLines = append(firstLines, n)
				}
			} else {
				c.Duplicates = r.Cases[i].Duplicates + 1
				if dupes == 0 {
					firstDupe = n
				}
				dupes++
			}
			c.Index = int32(i)
			r.Cases[i] = c
			if cfg.spans {
				r.spans[i] = row.aside
			}
			dirs[i] = row.dir
			if row.dir != 0 {
				owner.last[row.dir] = int32(i)
			}
		}
		if cfg.recycle {
			p.recycle(b) // cc.add copied what it keeps
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
	switch {
	case cc != nil:
		r.compact, r.counts = cc, cc.finish()
		dupes, firstDupe = cc.dupes, cc.first
	case t != nil:
		t.finish()
		r.counts, r.firsts = &t.counts, t.firsts
		dupes, firstDupe = t.dupes, t.first
	}
	if r.Len() == 0 {
		return clierr.Input(rel, 0, "", "run has no results yet (the manifest has no rows)", noResultsHint)
	}
	if dupes > 0 {
		r.warn(rel, firstDupe, fmt.Sprintf("%d duplicate row(s) with the same eval_path, suite, test_id, target and variant (as after --rerun-failed or --resume); the last row of each wins, as in AgentV", dupes))
	}
	for i, d := range dirs {
		o, ok := owner.last[d]
		switch {
		case !ok || int(o) == i:
		case o < 0:
			r.Cases[i].OverwrittenBy = owner.targets[-o-1]
		default:
			r.Cases[i].OverwrittenBy = r.Cases[o].Target
		}
	}
	if t != nil { // a kept case's index is its position among all cases
		for i, c := range r.Cases {
			c.Index = t.position(firstLines[i])
		}
	}
	return nil
}

// folderOwners holds the last case using each result folder: last maps a
// folder's hash to a kept case's index, or to -1-k for the row not kept
// whose target is targets[k] (12 bytes a folder: most rows are kept, and
// their targets are the cases').
type folderOwners struct {
	last    map[uint64]int32
	targets []string
}

// lost records a row not kept, with that target, as the last user of dir
// when a kept case uses dir.
func (o *folderOwners) lost(dir uint64, target string) {
	switch k, ok := o.last[dir]; {
	case !ok:
	case k < 0:
		o.targets[-k-1] = target
	default:
		o.last[dir] = int32(-1 - len(o.targets))
		o.targets = append(o.targets, target)
	}
}

// dedupeKey is AgentV's dedupe key for result rows, with eval_path as
// its 64-bit seeded hash (parsedRow.eval): Options.Outline keeps no
// eval_path, and two paths hashing alike under a random seed are too
// unlikely to matter.
type dedupeKey struct {
	evalPath                       uint64
	suite, testID, target, variant string
}

func keyOf(c *Case, eval uint64) dedupeKey {
	return dedupeKey{eval, c.Suite, c.TestID, c.Target, c.Variant}
}

// dedupe finds the case that has a row's dedupe key. It maps a hash of
// each key to its case (16 bytes a case instead of the key's 72); a key
// whose hash an earlier key already has goes to clashes.
type dedupe struct {
	hash    func(dedupeKey) uint64
	first   map[uint64]int32
	clashes map[dedupeKey]int32
	evals   []uint64 // each case's eval_path hash
}

func newDedupe() *dedupe {
	seed := maphash.MakeSeed()
	return &dedupe{
		hash:    func(k dedupeKey) uint64 { return maphash.Comparable(seed, k) },
		first:   map[uint64]int32{},
		clashes: map[dedupeKey]int32{},
	}
}

// index returns the index in cases of the case with the key of c (whose
// eval_path hashes to eval), or, when there is none yet, registers that
// key at len(cases).
func (d *dedupe) index(c *Case, eval uint64, cases []*Case) (i int, dup bool) {
	k := keyOf(c, eval)
	h := d.hash(k)
	j, dup := d.first[h]
	if !dup {
		d.first[h] = int32(len(cases))
		d.evals = append(d.evals, eval)
		return len(cases), false
	}
	if keyOf(cases[j], d.evals[j]) == k {
		return int(j), true
	}
	if j, dup = d.clashes[k]; !dup {
		d.clashes[k] = int32(len(cases))
		d.evals = append(d.evals, eval)
		return len(cases), false
	}
	return int(j), true
}

func (r *Run) warn(file string, line int, msg string) {
	r.Warnings = append(r.Warnings, Warning{File: file, Line: line, Msg: msg})
}

// unreadable is the error for a run file that cannot be read: an OS error,
// something that is not a regular file, or a symlink out of the run.
func unreadable(rel string, err error) error {
	msg, hint := "cannot read file: "+clierr.Cause(err), "check that the file exists and that you may read it"
	switch {
	case errors.As(err, new(*safefile.NotFileError)):
		msg, hint = clierr.Cause(err), "AgentV writes its results as regular files; point at the run directory, or copy the file instead of piping it"
	case errors.Is(err, safefile.ErrOutside):
		msg, hint = clierr.Cause(err), "a run's files live inside its directory; copy the file into the run instead of linking to it"
	}
	return &clierr.Error{Code: clierr.CodeInvalid, File: rel, Msg: msg, Hint: hint, Err: err}
}
