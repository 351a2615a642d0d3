package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

// Options tunes Open.
type Options struct {
	Cwd         string // resolves relative targets and finds .agentv/cache.json; "" = os.Getwd
	AnswerLimit int64  // max bytes of a sidecar text read by Detail; 0 = DefaultAnswerLimit
	// Outline keeps only what ranking needs of a case's graders (Type and
	// Pass) and samples (Pass), shared by every case with the same outline,
	// so a 100k-case run costs no grader or sample memory per case; it
	// leaves Case.EvalPath empty (dedupe uses a hash of it). For status
	// and list; Detail still reads everything.
	Outline bool
	// Compact (with Outline, for list) keeps no Case: Read keeps about 25
	// bytes a case, its test id included (see compactCases), and At makes
	// the Case at a position when asked, each time anew. Such a Case has no
	// Loc, Error, Duplicates or OverwrittenBy, so it is not one for Detail.
	// Read(keep) with keep set ignores Compact.
	Compact bool
	// CheckKeptOnly (for show, which reads one case) makes Read(keep) with
	// keep set check only the rows it keeps whole: the others are read for
	// their identity, score and folder, which positions, duplicates and
	// refs need, and their nested values are skipped without checking
	// their grammar (see looseEnd), so a malformed value in a row not kept
	// goes unnoticed; status, list and validate check every row.
	CheckKeptOnly bool
}

// DefaultAnswerLimit is how much of a sidecar text Detail reads by default.
const DefaultAnswerLimit = 256 << 10

const runHint = "pass a run directory (.agentv/results/runs/<experiment>/<timestamp>, or .agentv/results/<timestamp> for AgentV 5), its index.jsonl, or a results .jsonl file"

// Open resolves target to one run and reads its manifest: Locate, then
// Read keeping every case.
func Open(target string, opts Options) (*Run, error) {
	r, err := Locate(target, opts)
	if err != nil {
		return nil, err
	}
	return r, r.Read(nil)
}

// Read reads the manifest of a run Locate found. With keep set it keeps a
// Case only for the rows whose test id keep accepts (keep is called from
// several goroutines): the other rows are only counted, in about 17 bytes
// a row (see tally), so status and show of a million-case run stay small.
// Len, Counts, positions (Case.Index), duplicates and warnings still cover
// every row; Cases, Find and Ref know only the kept cases, so keep must
// accept every test id that matters (all cases of a test id are kept or
// not together).
// Reading again forgets what the last Read read.
func (r *Run) Read(keep func(testID string) bool) error {
	r.Cases, r.Rows, r.Warnings = nil, 0, r.Warnings[:r.located]
	r.counts, r.firsts, r.marks, r.ids, r.compact = nil, nil, nil, idIndex{}, nil
	r.keep = keep
	return r.readManifest(r.Manifest, r.rel(r.Manifest))
}

// Locate resolves target to one run, reading no more than its
// summary.json: Read reads its manifest. target may be a run directory of
// any era, a manifest or flat *.jsonl file, a results folder or project
// root holding exactly one run, or "" for the run named by
// .agentv/cache.json (lastRunDir) found from Options.Cwd upward.
func Locate(target string, opts Options) (*Run, error) {
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, clierr.Failure(err, "cannot determine the current directory", "pass the run directory explicitly")
		}
		cwd = wd
	}
	if target == "" {
		last, err := lastRunDir(cwd)
		if err != nil {
			return nil, err
		}
		if last == "" {
			// No cache: a project root or results folder here still names
			// its runs, as AgentV walks one level down.
			if runs, ferr := findRuns(cwd); ferr == nil && len(runs) > 0 {
				return Locate(cwd, opts)
			}
			return nil, clierr.Usage("no run given and no .agentv/cache.json found from "+cwd+" upward", "pass a run directory: agentv review <run-dir>")
		}
		target = last
	} else if !filepath.IsAbs(target) {
		target = filepath.Join(cwd, target)
	}
	target = filepath.Clean(target)

	info, err := os.Stat(target)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, clierr.Input(target, 0, "", "no such file or directory", runHint)
		}
		return nil, unreadable(target, err)
	}
	if !info.IsDir() {
		return openFile(target, opts)
	}
	if isRunDir(target) {
		return openDir(target, opts)
	}
	runs, err := findRuns(target)
	if err != nil {
		return nil, err
	}
	switch len(runs) {
	case 0:
		return nil, clierr.Input(target, 0, "", "no AgentV run found here", runHint)
	case 1:
		return openRun(runs[0], opts)
	}
	newestFirst := make([]string, len(runs))
	for i, p := range runs {
		newestFirst[len(runs)-1-i] = p
	}
	return nil, &AmbiguousError{Root: target, Candidates: newestFirst}
}

// AmbiguousError is returned by Open when a folder holds several runs.
// Candidates are newest first. It unwraps to an invalid-input clierr.Error
// (exit 3) so clierr.Code and clierr.HintOf work on it.
type AmbiguousError struct {
	Root       string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s: %d runs found; name one", e.Root, len(e.Candidates))
}

func (e *AmbiguousError) Unwrap() error {
	return &clierr.Error{
		Code: clierr.CodeInvalid, File: e.Root,
		Msg:  fmt.Sprintf("%d runs found; name one", len(e.Candidates)),
		Hint: "pass one of them, e.g. " + e.Candidates[0],
	}
}

// openRun opens a candidate returned by findRuns: a run dir or flat file.
func openRun(p string, opts Options) (*Run, error) {
	if strings.HasSuffix(p, ".jsonl") {
		return openFile(p, opts)
	}
	return openDir(p, opts)
}

// openFile opens a manifest named directly: index.jsonl or
// run_manifest.jsonl (its run is the folder, or the folder above
// .internal/), or any other *.jsonl as a flat E0 results file.
func openFile(file string, opts Options) (*Run, error) {
	dir := filepath.Dir(file)
	r := &Run{opts: opts, Manifest: file}
	switch base := filepath.Base(file); {
	case filepath.Base(dir) == ".internal" && base == "index.jsonl":
		r.Dir, r.Layout = filepath.Dir(dir), LayoutV5
	case base == "index.jsonl":
		r.Dir, r.Layout = dir, LayoutIndex
		if exists(filepath.Join(dir, "summary.json")) {
			r.Layout = LayoutTrials
		}
	case base == "run_manifest.jsonl":
		r.Dir, r.Layout = dir, LayoutTrials
	case strings.HasSuffix(base, ".jsonl"):
		r.Dir, r.Layout, r.ID = dir, LayoutFlat, strings.TrimSuffix(base, ".jsonl")
	default:
		return nil, clierr.Input(file, 0, "", "not an AgentV results file (expected a run directory or a .jsonl manifest)", runHint)
	}
	if r.ID == "" {
		r.ID = filepath.Base(r.Dir)
	}
	r.located = len(r.Warnings)
	return r, nil
}

// openDir opens a run directory, finding its manifest as AgentV does:
// summary.json index_path (or legacy manifest_path) when that file exists,
// then .internal/index.jsonl, index.jsonl, run_manifest.jsonl.
func openDir(dir string, opts Options) (*Run, error) {
	r := &Run{opts: opts, Dir: dir, ID: filepath.Base(dir)}
	sum, hasSummary := r.readSummary()
	if sum.RunID != "" && sum.RunID != r.ID {
		r.warn("summary.json", 0, fmt.Sprintf("run_id %q differs from the directory name; the directory name is the run id", sum.RunID))
	}
	refused := "" // a summary.json field naming a manifest outside the run
	for _, named := range []struct{ field, rel string }{{"index_path", sum.IndexPath}, {"manifest_path", sum.ManifestPath}} {
		if named.rel == "" {
			continue
		}
		p, ok := r.inside(named.rel)
		if !ok {
			r.warn("summary.json", 0, fmt.Sprintf("%s %q points outside the run directory; not followed", named.field, named.rel))
			refused = named.field
			continue
		}
		if exists(p) {
			r.Manifest, r.Layout = p, LayoutV5
			break
		}
	}
	if r.Manifest == "" {
		for _, c := range manifestNames {
			if p := filepath.Join(dir, c.rel); exists(p) {
				r.Manifest, r.Layout = p, c.layout
				break
			}
		}
	}
	switch {
	case r.Manifest == "" && refused != "":
		return nil, clierr.Input(filepath.Join(dir, "summary.json"), 0, refused, "names a manifest outside the run directory; not followed", "a run's paths are relative to its directory; regenerate the run or fix summary.json")
	case r.Manifest == "" && hasSummary:
		return nil, clierr.Input(filepath.Join(dir, "summary.json"), 0, "", "run has no results yet (summary.json only, no index.jsonl)", noResultsHint)
	case r.Manifest == "":
		return nil, clierr.Input(dir, 0, "", "not an AgentV run directory (no index.jsonl)", runHint)
	case r.Layout == LayoutIndex && hasSummary:
		r.Layout = LayoutTrials
	}
	if r.Manifest == filepath.Join(dir, ".internal", "index.jsonl") && exists(filepath.Join(dir, "index.jsonl")) {
		r.warn("index.jsonl", 0, "ignored: the run also has "+r.rel(r.Manifest)+", which AgentV reads first (a root index.jsonl beside it is streamed while a run is in progress)")
	}
	r.located = len(r.Warnings)
	return r, nil
}

// readSummary reads summary.json when present. A malformed or unreadable
// one is only a warning: the manifest is what matters.
func (r *Run) readSummary() (summaryWire, bool) {
	f, err := safefile.OpenIn(r.Dir, "summary.json")
	if errors.Is(err, fs.ErrNotExist) {
		return summaryWire{}, false
	}
	if err != nil {
		r.warn("summary.json", 0, "ignored: "+clierr.Cause(err))
		return summaryWire{}, false
	}
	defer f.Close()
	s, malformed, err := decodeSummary(f)
	if err != nil {
		return summaryWire{}, false
	}
	if malformed != nil {
		r.warn("summary.json", 0, "malformed JSON, ignored: "+malformed.Error())
	}
	return s, true
}

// rel names p relative to the run dir when inside it, else returns p.
// A clean p beneath the dir is its rest, as filepath.Rel would find.
func (r *Run) rel(p string) string {
	if rel, ok := r.under(p); ok {
		return rel
	}
	if rel, err := filepath.Rel(r.Dir, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

// inside resolves a path named by a row or summary.json against the run
// dir. It refuses anything that lands outside the run dir: absolute paths
// elsewhere, "..", and symlinks that point out.
func (r *Run) inside(p string) (string, bool) {
	p, ok := r.within(p)
	if !ok {
		return p, false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p, true // missing: the caller reports it as missing
	}
	root, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		return p, false
	}
	rel, err := filepath.Rel(root, real)
	return p, err == nil && (filepath.IsLocal(rel) || rel == ".")
}

// within is inside without following symlinks: p resolved against the run
// dir, and whether it stays there lexically. A file opened beneath the run
// with safefile (os.Root) needs no more: a symlink leading out is refused
// at the open.
func (r *Run) within(p string) (string, bool) {
	abs, _, ok := r.locate(p)
	return abs, ok
}

// under is p relative to the run dir, as filepath.Rel finds it, by a fast
// scan: when p is the dir, "/" and more, clean. ok is false when the scan
// cannot tell.
func (r *Run) under(p string) (rel string, ok bool) {
	if n := len(r.Dir); filepath.Separator == '/' && n > 0 && len(p) > n+1 && p[n] == '/' && strings.HasPrefix(p, r.Dir) && isClean(p) {
		return p[n+1:], true
	}
	return "", false
}

// locate is within, and p relative to the run dir.
func (r *Run) locate(p string) (abs, rel string, ok bool) {
	if filepath.IsAbs(p) { // the paths a Detail keeps (within's), most often beneath the dir
		if rel, ok := r.under(p); ok {
			return p, rel, true
		}
	}
	if p = filepath.FromSlash(p); filepath.IsLocal(p) {
		// What filepath.Rel would find of it joined to the dir (the
		// rows of a run name their sidecars so).
		rel = cleanFile(p)
		return joinFile(r.Dir, rel), rel, true
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Dir, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(r.Dir, p)
	return p, rel, err == nil && (filepath.IsLocal(rel) || rel == ".")
}

// isClean is whether path.Clean(p) is p, by a fast scan: it is when p
// is "/", "." or names elements none of which is empty, "." or ".." (a
// clean p that starts with ".." is not seen so; Clean is asked of it).
func isClean(p string) bool {
	if p == "/" || p == "." {
		return true
	}
	for e := strings.TrimPrefix(p, "/"); ; {
		i := strings.IndexByte(e, '/')
		el := e
		if i >= 0 {
			el = e[:i]
		}
		if el == "" || el == "." || el == ".." {
			return false
		}
		if i < 0 {
			return true
		}
		e = e[i+1:]
	}
}

// cleanSlash is path.Clean(p), p itself when it is clean already (the
// rows of a run name their files so, which isClean sees faster).
func cleanSlash(p string) string {
	if isClean(p) {
		return p
	}
	return path.Clean(p)
}

// cleanFile is filepath.Clean(p), as cleanSlash is path.Clean's.
func cleanFile(p string) string {
	if filepath.Separator == '/' && isClean(p) {
		return p
	}
	return filepath.Clean(p)
}

// joinFile is filepath.Join(dir, rel), which cleans the joined path, for
// two non-empty parts by cleanFile.
func joinFile(dir, rel string) string {
	if filepath.Separator != '/' || dir == "" || rel == "" {
		return filepath.Join(dir, rel)
	}
	return cleanFile(dir + "/" + rel)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// manifestNames are the manifests of a run directory with the layout each
// implies, in AgentV's lookup order (after summary.json's index_path).
var manifestNames = []struct {
	rel    string
	layout Layout
}{
	{".internal/index.jsonl", LayoutV5},
	{"index.jsonl", LayoutIndex},
	{"run_manifest.jsonl", LayoutTrials},
}

// isRunDir reports whether dir looks like a run: it has a summary.json or
// a manifest.
func isRunDir(dir string) bool {
	if exists(filepath.Join(dir, "summary.json")) {
		return true
	}
	for _, m := range manifestNames {
		if exists(filepath.Join(dir, m.rel)) {
			return true
		}
	}
	return false
}

// Candidates lists the runs under a results folder or project root,
// oldest first by RanAtDir: run directories of every era and flat *.jsonl
// files.
func Candidates(root string) ([]string, error) {
	if isRunDir(root) {
		return []string{root}, nil
	}
	return findRuns(root)
}

// maxRunDepth covers .agentv/results/runs/<experiment>/<ts> given
// .agentv/results.
const maxRunDepth = 3

// findRuns walks down from root (a project root means its .agentv/results)
// collecting runs, without descending into a run or a hidden folder.
func findRuns(root string) ([]string, error) {
	if results := filepath.Join(root, ".agentv", "results"); exists(results) {
		root = results
	}
	var runs []string
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return unreadable(dir, err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case strings.HasPrefix(e.Name(), "."):
			case e.IsDir() && isRunDir(p):
				runs = append(runs, p)
			case e.IsDir() && depth < maxRunDepth:
				if err := walk(p, depth+1); err != nil {
					return err
				}
			case depth == 1 && strings.HasSuffix(e.Name(), ".jsonl") && e.Type().IsRegular():
				runs = append(runs, p)
			}
		}
		return nil
	}
	if err := walk(root, 1); err != nil {
		return nil, err
	}
	SortByRanAt(runs)
	return runs, nil
}

// lastRunDir finds .agentv/cache.json from cwd upward and returns its
// lastRunDir (relative paths are taken from the project root), or "" when
// there is none. A cache.json that cannot be read or names no run is an
// error.
func lastRunDir(cwd string) (string, error) {
	for dir := cwd; ; dir = filepath.Dir(dir) {
		cache := filepath.Join(dir, ".agentv", "cache.json")
		b, err := safefile.ReadRegular(cache)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", clierr.Input(cache, 0, "", clierr.Cause(err), "pass the run directory explicitly")
		}
		if err == nil {
			var c struct {
				LastRunDir string `json:"lastRunDir"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				return "", clierr.Input(cache, 0, "", "malformed JSON: "+err.Error(), "pass the run directory explicitly")
			}
			if c.LastRunDir == "" {
				return "", clierr.Input(cache, 0, "lastRunDir", "no last run recorded", "pass the run directory explicitly")
			}
			if !filepath.IsAbs(c.LastRunDir) {
				return filepath.Join(dir, c.LastRunDir), nil
			}
			return c.LastRunDir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", nil
		}
	}
}
