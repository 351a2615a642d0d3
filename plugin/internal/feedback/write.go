package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"agentv-review/plugin/internal/atomicfile"
	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/safefile"
)

// Paths are the files of one feedback output. All live in the folder of the
// feedback file (the run directory root by default, never .internal/) and
// are named after it: for my.json the draft is my.draft.json, the history
// my.history/ and the lock my.lock.
type Paths struct {
	Feedback   string // the feedback file
	Draft      string // unfinished review, saved as the session goes
	HistoryDir string // earlier versions, never deleted
	Lock       string // held while a review of this output is in progress
}

// PathsFor returns the paths for a review of the run at runPath written
// to out, or by default to <run dir>/feedback.json — for a flat results
// file (AgentV v1–v3: several *.jsonl runs in one folder) to
// <name>.feedback.json beside it, so two runs never share a feedback file.
func PathsFor(runPath, out string) Paths {
	path := out
	switch {
	case path != "":
	case strings.HasSuffix(runPath, ".jsonl"):
		path = strings.TrimSuffix(runPath, ".jsonl") + ".feedback.json"
	default:
		path = filepath.Join(runPath, "feedback.json")
	}
	dir, name := filepath.Split(path)
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	return Paths{
		Feedback:   path,
		Draft:      filepath.Join(dir, stem+".draft.json"),
		HistoryDir: filepath.Join(dir, stem+".history"),
		Lock:       filepath.Join(dir, stem+".lock"),
	}
}

// Encode returns f as written to disk (2-space indent, trailing newline,
// HTML characters unescaped) after checking it against the schema.
func Encode(f *File) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	problems, err := Validate(b.Bytes())
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, errors.New("invalid feedback: " + summarise(problems))
	}
	return b.Bytes(), nil
}

// replaceFile is atomicfile.WriteFile; tests make it fail.
var replaceFile = atomicfile.WriteFile

// Write validates f and replaces path with it atomically and durably
// (atomicfile.WriteFile): a crash leaves either the old file or the new
// one, whole.
//
// Write refuses a symbolic link at path: renaming over it would replace the
// link and silently detach the file it points to, and writing through it
// would change a file outside this folder. Errors are *clierr.Error (exit 1).
func Write(path string, f *File) error {
	data, err := Encode(f)
	if err != nil {
		return &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "not written: " + err.Error(), Err: err}
	}
	if err := replaceFile(path, data); errors.Is(err, atomicfile.ErrSymlink) {
		return &clierr.Error{
			Code: clierr.CodeFailure, File: path,
			Msg:  "is a symbolic link: refusing to replace it",
			Hint: "remove the link, or pass --out with the file it points to",
			Err:  err,
		}
	} else if err != nil {
		return writeError(path, err)
	}
	return nil
}

func writeError(path string, err error) error {
	return &clierr.Error{
		Code: clierr.CodeFailure, File: path,
		Msg:  "cannot write: " + clierr.Cause(err),
		Hint: "use --out FILE to write the feedback elsewhere",
		Err:  err,
	}
}

// Archive copies the current feedback file, if any, into HistoryDir as
// <stem>.<timestamp>.json (the file's own timestamp, or its modification
// time when it has none; ".2", ".3", ... on collision) and returns the
// copy's path relative to the feedback file's folder, with forward slashes,
// for the new version's previous field. It returns "" when there is no
// feedback file. History files are never replaced. Call it holding Lock.
func Archive(p Paths) (string, error) {
	data, err := safefile.ReadBeside(p.Feedback)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &clierr.Error{Code: clierr.CodeFailure, File: p.Feedback, Msg: "cannot read: " + clierr.Cause(err), Err: err}
	}
	stamp := archiveStamp(data)
	if stamp == "" {
		fi, err := os.Stat(p.Feedback)
		if err != nil {
			return "", &clierr.Error{Code: clierr.CodeFailure, File: p.Feedback, Msg: "cannot read: " + clierr.Cause(err), Err: err}
		}
		stamp = stampOf(fi.ModTime())
	}
	if err := os.MkdirAll(p.HistoryDir, 0o755); err != nil {
		return "", writeError(p.HistoryDir, err)
	}
	name := filepath.Base(p.Feedback)
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	for n := 1; ; n++ {
		file := stem + "." + stamp + ".json"
		if n > 1 {
			file = stem + "." + stamp + "." + strconv.Itoa(n) + ".json"
		}
		target := filepath.Join(p.HistoryDir, file)
		err := atomicfile.Create(target, data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", writeError(target, err)
		}
		rel, err := filepath.Rel(filepath.Dir(p.Feedback), target)
		if err != nil {
			rel = target
		}
		return filepath.ToSlash(rel), nil
	}
}

// archiveStamp is the file's timestamp field made safe for a file name,
// "" when it has none.
func archiveStamp(data []byte) string {
	var doc struct {
		Timestamp string `json:"timestamp"`
	}
	_ = json.Unmarshal(data, &doc) // a legacy or broken file has no usable timestamp: fall back
	if t, err := time.Parse(time.RFC3339Nano, doc.Timestamp); err == nil {
		return stampOf(t)
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, doc.Timestamp)
	return strings.Trim(safe[:min(len(safe), 40)], ".-")
}

// stampOf formats t for a file name: RFC 3339 in UTC with millis, colons as dashes.
func stampOf(t time.Time) string {
	return t.UTC().Format("2006-01-02T15-04-05.000Z")
}

// SaveDraft writes the unfinished review atomically. A draft is a valid
// (partial) feedback file: it must pass the schema.
func SaveDraft(p Paths, f *File) error {
	return Write(p.Draft, f)
}

// LoadDraft reads the draft, nil when there is none.
func LoadDraft(p Paths) (*File, error) {
	f, err := Load(p.Draft)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}
