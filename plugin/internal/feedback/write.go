package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/xeipuuv/gojsonschema"

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
// HTML characters unescaped) after checking it against the schema. The
// bytes are those encoding/json writes for f through the MarshalJSON
// methods (TestEncodeIsEncodingJSON); the entries are encoded and
// validated on every core, each from the bytes just encoded for it, as
// Validate reads an entry (the problems are Validate's).
func Encode(f *File) ([]byte, error) {
	parts, err := encodeValid(f)
	if err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// encodeValid is Encode's bytes in parts, one after another (see encode).
func encodeValid(f *File) ([][]byte, error) {
	parts, problems, err := encodeChecked(f)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, errors.New("invalid feedback: " + summarise(problems))
	}
	return parts, nil
}

// encodeChecked is f encoded in parts and Validate's problems with it.
func encodeChecked(f *File) ([][]byte, []Problem, error) {
	ss, err := compiledSchemas()
	if err != nil {
		return nil, nil, err
	}
	parts, entryProblems, err := encode(f, ss.entry)
	if err != nil || ss.entry == nil {
		if err == nil {
			entryProblems, err = Validate(slices.Concat(parts...))
		}
		return parts, entryProblems, err
	}
	top := treeSink{t: &treeReader{}}
	emitFile(&top, f, func() {})
	problems, err := validateLoaded(ss.whole, decoded{gojsonschema.NewGoLoader(nil), top.root}, "")
	problems = append(problems, entryProblems...)
	sortProblems(problems)
	return parts, problems, err
}

// encode is f encoded, in parts: the bytes before per_case's entries,
// the entries in blocks, the bytes after them. Its entries are validated
// with the entry schema s as they are (when s is not nil; the problems
// are unsorted).
func encode(f *File, s *gojsonschema.Schema) ([][]byte, []Problem, error) {
	blocks, problems, err := encodeCases(f.PerCase, s)
	if err != nil {
		return nil, nil, err
	}
	e := &encoder{b: make([]byte, 0, 4096)}
	emitFile(e, f, func() { e.splice(blocks, len(f.PerCase)) })
	if e.err != nil {
		return nil, nil, e.err
	}
	return append(e.parts, append(e.b, '\n')), problems, nil
}

// encodeCases encodes cases as the items of per_case, in blocks on every
// core, validating each with the entry schema s as it goes (when s is not
// nil): checkRaw reads the bytes just encoded, so a value seen before is
// not decoded again.
func encodeCases(cases []Case, s *gojsonschema.Schema) ([][]byte, []Problem, error) {
	blocks := make([][]byte, blockCount(len(cases)))
	r := newEntryResults(s, len(cases))
	var size atomic.Int64 // of the largest block so far, to size the next
	err := inBlocks(len(cases), func(t *treeReader, block, lo, hi int) error {
		e := encoder{b: make([]byte, 0, size.Load()*9/8), open: []container{{}, {n: lo, array: true}}} // per_case's items are at depth 2
		for i := lo; i < hi; i++ {
			start := len(e.b)
			emitCase(&e, &cases[i])
			if e.err != nil {
				return fmt.Errorf("per_case.%d: %w", i, e.err)
			}
			if s != nil {
				raw := e.b[start:]
				ok, err := r.checkRaw(t, block, i, raw[bytes.IndexByte(raw, '{'):])
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("per_case.%d: encoded as bad JSON", i)
				}
			}
		}
		if err := r.flush(t, block); err != nil {
			return err
		}
		blocks[block] = e.b
		if n := int64(len(e.b)); n > size.Load() {
			size.Store(n) // a race between cores only misses a better guess
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return blocks, r.problems(), nil
}

// replaceFile is atomicfile.WriteParts; tests make it fail.
var replaceFile = atomicfile.WriteParts

// Write validates f and replaces path with it atomically and durably
// (atomicfile.WriteParts): a crash leaves either the old file or the new
// one, whole.
//
// Write refuses a symbolic link at path: renaming over it would replace the
// link and silently detach the file it points to, and writing through it
// would change a file outside this folder. Errors are *clierr.Error (exit 1).
func Write(path string, f *File) error {
	parts, err := encodeValid(f)
	if err != nil {
		return &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "not written: " + err.Error(), Err: err}
	}
	if err := replaceFile(path, parts); errors.Is(err, atomicfile.ErrSymlink) {
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
