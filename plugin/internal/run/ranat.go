package run

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentv-review/plugin/internal/safefile"
)

// The evidence Run.RanAt and RanAtDir use, in the order they try it. A run
// folder's modification time is never used: anything written into the run
// (a feedback.json, a copy) changes it.
const (
	// RanAtSummary is summary.json's metadata.timestamp (v5 and the late-June
	// layout; AgentV's own run_timestamp, written when the run ends).
	RanAtSummary = "summary.json"
	// RanAtBenchmark is the run root's benchmark.json metadata.timestamp
	// (v3.12–4.42.4; AgentV sets it to the first result's timestamp).
	// timing.json beside it holds durations only.
	RanAtBenchmark = "benchmark.json"
	// RanAtRow is the timestamp of the manifest's first row (when that
	// result was written; the only evidence of flat v1–v3 files).
	RanAtRow = "row"
	// RanAtRunID is the timestamp in the run id (2026-07-06T11-31-36-988Z),
	// when the run started; runs named with --output have none.
	RanAtRunID = "run-id"
)

// RanAt returns when the run ran and the evidence used (one of the RanAt*
// constants), or the zero time and "" when the run records none.
func (r *Run) RanAt() (t time.Time, source string) {
	return ranAt(r.Dir, r.Manifest, r.ID, r.Layout == LayoutFlat)
}

// RanAtDir is Run.RanAt for a run directory or flat results file (an entry
// of Candidates) without opening it: it reads summary.json's or
// benchmark.json's metadata, else only the first line of the manifest.
func RanAtDir(p string) (t time.Time, source string) {
	if base := filepath.Base(p); strings.HasSuffix(base, ".jsonl") {
		return ranAt(filepath.Dir(p), p, strings.TrimSuffix(base, ".jsonl"), true)
	}
	manifest := ""
	for _, m := range manifestNames {
		if c := filepath.Join(p, m.rel); exists(c) {
			manifest = c
			break
		}
	}
	return ranAt(p, manifest, filepath.Base(p), false)
}

// SortByRanAt orders run paths (entries of Candidates) oldest first by
// RanAtDir; runs that record no time come first, ties go by path.
func SortByRanAt(paths []string) {
	times := make(map[string]time.Time, len(paths))
	for _, p := range paths {
		times[p], _ = RanAtDir(p)
	}
	slices.SortStableFunc(paths, func(a, b string) int {
		if c := times[a].Compare(times[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// ranAt tries the evidence in order for the run in dir with the given
// manifest ("" when unknown) and id. A flat file's folder is not its own,
// so its summary.json and benchmark.json are not read.
func ranAt(dir, manifest, id string, flat bool) (time.Time, string) {
	if !flat {
		for _, name := range []string{RanAtSummary, RanAtBenchmark} {
			if t, ok := metadataTime(dir, name); ok {
				return t, name
			}
		}
	}
	if t, ok := firstRowTime(dir, manifest); ok {
		return t, RanAtRow
	}
	if t, ok := runIDTime(id); ok {
		return t, RanAtRunID
	}
	return time.Time{}, ""
}

// metadataTime reads metadata.timestamp of the summary.json or
// benchmark.json named file in dir; a malformed file, or one openIn
// refuses, is no evidence.
func metadataTime(dir, file string) (time.Time, bool) {
	f, err := safefile.OpenIn(dir, file)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	s, malformed, err := decodeSummary(f)
	if err != nil || malformed != nil {
		return time.Time{}, false
	}
	return parseTime(s.Metadata.Timestamp)
}

// maxFirstRow bounds the first line firstRowTime reads.
const maxFirstRow = 64 << 20

// firstRowTime reads the timestamp of the first row of manifest, a file
// in dir.
func firstRowTime(dir, manifest string) (time.Time, bool) {
	if manifest == "" {
		return time.Time{}, false
	}
	f, err := safefile.OpenIn(dir, manifest)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxFirstRow)
	for first := true; sc.Scan(); first = false {
		line := bytes.TrimSpace(sc.Bytes())
		if first {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) == 0 {
			continue
		}
		var row map[string]json.RawMessage
		var stamp string
		if json.Unmarshal(line, &row) != nil || json.Unmarshal(row["timestamp"], &stamp) != nil {
			return time.Time{}, false
		}
		return parseTime(stamp)
	}
	return time.Time{}, false
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// runStamp matches the ISO timestamp AgentV puts in run names
// (2026-07-06T11-31-36-988Z).
var runStamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(-\d{3})?Z`)

// runIDTime reads the timestamp in a run id.
func runIDTime(id string) (time.Time, bool) {
	m := runStamp.FindString(id)
	if m == "" {
		return time.Time{}, false
	}
	layout := "2006-01-02T15-04-05Z"
	if len(m) > len(layout) { // milliseconds: Go parses them only after a dot
		layout, m = "2006-01-02T15-04-05.000Z", m[:19]+"."+m[20:]
	}
	t, err := time.Parse(layout, m)
	return t, err == nil
}
