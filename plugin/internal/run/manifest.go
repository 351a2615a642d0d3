package run

import (
	"errors"
	"fmt"
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
	p := startPipeline(f)
	defer p.stop()

	seen := map[dedupeKey]int{}
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
