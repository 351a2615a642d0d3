package run

import (
	"bytes"
	"strconv"
	"strings"
)

// Diff is the workspace diff of a case: v5's file_changes.diff
// (file_changes_path), else what a 4.42.4 llm-grader was shown (the
// "[[ ## file_changes ## ]]" section of its prompt, Task.FileChanges).
// Content is raw: sanitise it.
type Diff struct {
	Source   string     `json:"source"` // the file as the row names it, or "llm-grader prompt (file_changes)"
	Files    []DiffFile `json:"files,omitempty"`
	Content  string     `json:"content,omitempty"` // the diff, or its start when !Complete
	Complete bool       `json:"complete"`          // Content is the whole diff
	Size     int64      `json:"size"`              // bytes of the whole diff
}

// DiffFile is one file the diff changes.
type DiffFile struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, deleted, renamed, modified
	Added   int    `json:"added"`  // lines
	Deleted int    `json:"deleted"`
}

// DiffSourcePrompt is Diff.Source for a diff taken from a grader prompt.
const DiffSourcePrompt = "llm-grader prompt (file_changes)"

// DiffFullLimit caps how much of a diff file is read: Files cover that
// much, Content at most the limit given to Diff.
const DiffFullLimit = 64 << 20

// Diff reads d's workspace diff, keeping at most limit bytes (<= 0: all
// that is read) of it as Content; Files always cover the whole diff read.
// task may be nil. It returns nil, nil when the run recorded no diff.
func (r *Run) Diff(d *Detail, task *Task, limit int64) (*Diff, *FileProblem) {
	var df *Diff
	var b []byte
	if sc, ok := sidecar(d, "file_changes_path"); ok {
		raw, size, cut, prob := r.readSidecar(sc, DiffFullLimit)
		if prob != nil {
			return nil, prob
		}
		df, b = &Diff{Source: r.rel(sc.Path), Size: size, Complete: !cut}, raw
	} else if task != nil && task.FileChanges != "" {
		df, b = &Diff{Source: DiffSourcePrompt, Size: int64(len(task.FileChanges)), Complete: true}, []byte(task.FileChanges)
	} else {
		return nil, nil
	}
	df.Files = diffFiles(b)
	if limit > 0 && int64(len(b)) > limit {
		b, df.Complete = trimPartialRune(b[:limit]), false
	}
	df.Content = string(b)
	return df, nil
}

// diffFiles lists the files of a unified (git or plain) diff with their
// added and deleted line counts, reading hunks by their @@ counts so that
// content lines starting "---" or "diff" are not taken for headers.
func diffFiles(b []byte) []DiffFile {
	var files []DiffFile
	var cur *DiffFile
	var oldLeft, newLeft int
	start := func(p string) {
		files = append(files, DiffFile{Path: p, Status: "modified"})
		cur = &files[len(files)-1]
	}
	for line := range bytes.Lines(b) {
		l := bytes.TrimRight(line, "\r\n")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case len(l) > 0 && l[0] == '+':
				newLeft--
				cur.Added++
			case len(l) > 0 && l[0] == '-':
				oldLeft--
				cur.Deleted++
			case len(l) > 0 && l[0] == '\\': // "\ No newline at end of file"
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		if len(l) < 4 || !bytes.ContainsAny(l[:1], "d-+nr@") {
			continue
		}
		s := string(l)
		switch {
		case strings.HasPrefix(s, "diff --git "):
			_, b, _ := strings.Cut(s[len("diff --git "):], " b/")
			start(b)
		case strings.HasPrefix(s, "--- "):
			if cur == nil || cur.Added+cur.Deleted > 0 { // a plain diff's next file
				start(diffPath(s[4:]))
			}
			if diffPath(s[4:]) == "/dev/null" {
				cur.Status = "added"
			}
		case strings.HasPrefix(s, "+++ ") && cur != nil:
			if p := diffPath(s[4:]); p != "/dev/null" {
				cur.Path = p
			} else {
				cur.Status = "deleted"
			}
		case strings.HasPrefix(s, "new file mode") && cur != nil:
			cur.Status = "added"
		case strings.HasPrefix(s, "deleted file mode") && cur != nil:
			cur.Status = "deleted"
		case strings.HasPrefix(s, "rename to ") && cur != nil:
			cur.Status, cur.Path = "renamed", s[len("rename to "):]
		case strings.HasPrefix(s, "@@ ") && cur != nil:
			oldLeft, newLeft = hunkCounts(s)
		}
	}
	return files
}

// diffPath strips a/ or b/ and a trailing tab-separated timestamp.
func diffPath(s string) string {
	s, _, _ = strings.Cut(s, "\t")
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// hunkCounts reads "@@ -l[,s] +l[,s] @@": the old and new line counts.
func hunkCounts(s string) (old, new int) {
	f := strings.Fields(s)
	if len(f) < 3 {
		return 0, 0
	}
	count := func(r string) int {
		_, n, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1
		}
		v, _ := strconv.Atoi(n)
		return v
	}
	return count(f[1]), count(f[2])
}
