package run

import (
	"bytes"
)

// Diff is the workspace diff of a case: v5's file_changes.diff
// (file_changes_path), else what a 4.42.4 llm-grader was shown (the
// "[[ ## file_changes ## ]]" section of its prompt, Task.FileChanges).
// Content is raw: sanitise it.
type Diff struct {
	Source string     `json:"source"`          // the file as the row names it, or "llm-grader prompt (file_changes)"
	Files  []DiffFile `json:"files,omitempty"` // the files of Content
	// FileCount is how many files the whole diff changes, counted by
	// their "diff --git" headers (len(Files) for a plain diff).
	FileCount int    `json:"file_count"`
	Content   string `json:"content,omitempty"` // the diff, or its start when !Complete
	Complete  bool   `json:"complete"`          // Content is the whole diff
	Size      int64  `json:"size"`              // bytes of the whole diff
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

// DiffFullLimit caps how much of a diff file is read.
const DiffFullLimit = 64 << 20

// Diff reads d's workspace diff, keeping at most limit bytes (<= 0: all
// that is read) of it as Content, and lists the files of Content; only
// FileCount covers the whole diff. task may be nil. It returns nil, nil
// when the run recorded no diff.
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
	df.FileCount = bytes.Count(b, []byte("\ndiff --git "))
	if bytes.HasPrefix(b, []byte("diff --git ")) {
		df.FileCount++
	}
	if limit > 0 && int64(len(b)) > limit {
		b, df.Complete = trimPartialRune(b[:limit]), false
	}
	df.Content = string(b)
	df.Files = diffFiles(b)
	if df.FileCount == 0 {
		df.FileCount = len(df.Files)
	}
	return df, nil
}

// diffFiles lists the files of a unified (git or plain) diff with their
// added and deleted line counts, reading hunks by their @@ counts so that
// content lines starting "---" or "diff" are not taken for headers.
func diffFiles(b []byte) []DiffFile {
	var files []DiffFile
	cur := -1
	var oldLeft, newLeft int
	start := func(p []byte) {
		files = append(files, DiffFile{Path: string(p), Status: "modified"})
		cur = len(files) - 1
	}
	for len(b) > 0 {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case len(l) > 0 && l[0] == '+':
				newLeft--
				files[cur].Added++
			case len(l) > 0 && l[0] == '-':
				oldLeft--
				files[cur].Deleted++
			case len(l) > 0 && l[0] == '\\': // "\ No newline at end of file"
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case bytes.HasPrefix(l, []byte("diff --git ")):
			_, p, _ := bytes.Cut(l[len("diff --git "):], []byte(" b/"))
			start(p)
		case bytes.HasPrefix(l, []byte("--- ")):
			p := diffPath(l[4:])
			if cur < 0 || files[cur].Added+files[cur].Deleted > 0 { // a plain diff's next file
				start(p)
			}
			if string(p) == "/dev/null" {
				files[cur].Status = "added"
			}
		case cur < 0:
		case bytes.HasPrefix(l, []byte("+++ ")):
			if p := diffPath(l[4:]); string(p) != "/dev/null" {
				if string(p) != files[cur].Path { // compared without allocating
					files[cur].Path = string(p)
				}
			} else {
				files[cur].Status = "deleted"
			}
		case bytes.HasPrefix(l, []byte("new file mode")):
			files[cur].Status = "added"
		case bytes.HasPrefix(l, []byte("deleted file mode")):
			files[cur].Status = "deleted"
		case bytes.HasPrefix(l, []byte("rename to ")):
			files[cur].Status, files[cur].Path = "renamed", string(l[len("rename to "):])
		case bytes.HasPrefix(l, []byte("@@ ")):
			oldLeft, newLeft = hunkCounts(l)
		}
	}
	return files
}

// diffPath strips a/ or b/ and a trailing tab-separated timestamp.
func diffPath(p []byte) []byte {
	p, _, _ = bytes.Cut(p, []byte("\t"))
	if bytes.HasPrefix(p, []byte("a/")) || bytes.HasPrefix(p, []byte("b/")) {
		return p[2:]
	}
	return p
}

// hunkCounts reads "@@ -l[,s] +l[,s] @@": the old and new line counts
// (a missing count is 1).
func hunkCounts(l []byte) (old, new int) {
	count := func(i int) (n int) {
		for i < len(l) && l[i] >= '0' && l[i] <= '9' { // the start line
			i++
		}
		if i >= len(l) || l[i] != ',' {
			return 1
		}
		for i++; i < len(l) && l[i] >= '0' && l[i] <= '9'; i++ {
			n = n*10 + int(l[i]-'0')
		}
		return n
	}
	i := bytes.IndexByte(l, '-')
	j := bytes.IndexByte(l, '+')
	if i < 0 || j < i {
		return 0, 0
	}
	return count(i + 1), count(j + 1)
}
