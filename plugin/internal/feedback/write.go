package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
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

// invalid is the error of a file with problems, err when encoding failed.
func invalid(problems []Problem, err error) error {
	if err == nil && len(problems) > 0 {
		err = errors.New("invalid feedback: " + summarise(problems))
	}
	return err
}

// writeChecked writes f encoded to w, the entries as their blocks are
// ready, and returns Validate's problems with it. err is an error
// encoding f; werr is w's first error (what follows it is not written).
func writeChecked(w io.Writer, f *File) (problems []Problem, err, werr error) {
	ss, err := compiledSchemas()
	if err != nil {
		return nil, err, nil
	}
	if ss.entry == nil {
		var b bytes.Buffer
		if _, err, _ = encodeTo(&b, f, nil); err != nil {
			return nil, err, nil
		}
		problems, err = Validate(b.Bytes())
		_, werr = w.Write(b.Bytes())
		return problems, err, werr
	}
	entryProblems, err, werr := encodeTo(w, f, ss.entry)
	if err != nil {
		return nil, err, werr
	}
	top := treeSink{t: &treeReader{}}
	emitFile(&top, f, func() {})
	problems, err = validateLoaded(ss.whole, decoded{gojsonschema.NewGoLoader(nil), top.root}, "")
	problems = append(problems, entryProblems...)
	sortProblems(problems)
	return problems, err, werr
}

// encodeTo writes f encoded to w, its entries validated with the entry
// schema s as they are (when s is not nil; the problems are unsorted).
// The entries are encoded on every core (encodeCases), and each block of
// them written by the core that finds it next in order.
func encodeTo(w io.Writer, f *File, s *gojsonschema.Schema) (problems []Problem, err, werr error) {
	write := func(b []byte) {
		if werr == nil {
			_, werr = w.Write(b)
		}
	}
	e := &encoder{b: make([]byte, 0, 4096)}
	emitFile(e, f, func() {
		write(e.b)
		e.b = e.b[:0]
		problems, err = encodeCases(f.PerCase, s, newBlockWriter(len(f.PerCase), write))
		e.open[len(e.open)-1].n += len(f.PerCase)
	})
	if err == nil {
		err = e.err
	}
	if err != nil {
		return nil, err, werr
	}
	write(append(e.b, '\n'))
	return problems, nil, werr
}

// blockWriter writes the blocks of entries encodeCases encodes in order,
// each as soon as it and those before it are done, on the core that
// finishes it, and keeps their buffers for later blocks. It is app's
// inOrder for a package app imports, with one difference: the core that
// completes the next block writes it, instead of a goroutine draining
// finished blocks, which the encoding cores starved (about a third of the
// blocks then got a new buffer).
type blockWriter struct {
	mu      sync.Mutex // guards pending, next and the writes
	write   func(b []byte)
	pending [][]byte    // by block: done, not yet written
	next    int         // the block to write next
	free    chan []byte // buffers written out; taken without waiting for a write
}

func newBlockWriter(entries int, write func(b []byte)) *blockWriter {
	return &blockWriter{write: write, pending: make([][]byte, blockCount(entries)), free: make(chan []byte, runtime.GOMAXPROCS(0)+1)}
}

// buffer is a buffer written out, or a new one of size bytes.
func (o *blockWriter) buffer(size int64) []byte {
	select {
	case b := <-o.free:
		return b[:0]
	default:
		return make([]byte, 0, size)
	}
}

// done hands over block's bytes b, and writes every block now next in
// order.
func (o *blockWriter) done(block int, b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[block] = b
	for ; o.next < len(o.pending) && o.pending[o.next] != nil; o.next++ {
		o.write(o.pending[o.next])
		select {
		case o.free <- o.pending[o.next]:
		default:
		}
		o.pending[o.next] = nil
	}
}

// encodeCases encodes cases as the items of per_case, in blocks on every
// core, validating each with the entry schema s as it goes (when s is not
// nil): by parts from the members the encoder notes (checkEncoded), else
// by checkRaw of the bytes just encoded, so a value seen before is not
// decoded again. Each block goes to out once it is checked.
func encodeCases(cases []Case, s *gojsonschema.Schema, out *blockWriter) ([]Problem, error) {
	r := newEntryResults(s, len(cases))
	var size atomic.Int64 // of the largest block so far, to size the next
	err := inBlocks(len(cases), func(t *treeReader, block, lo, hi int) error {
		e := entryEncoder{encoder: encoder{b: out.buffer(size.Load() * 9 / 8), open: []container{{}, {n: lo, array: true}}}} // per_case's items are at depth 2
		for i := lo; i < hi; i++ {
			start := len(e.b)
			e.members = e.members[:0]
			emitCase(&e, &cases[i])
			if e.err != nil {
				return fmt.Errorf("per_case.%d: %w", i, e.err)
			}
			if s != nil {
				var ok bool
				var err error
				if r.parts != nil {
					ok, err = r.checkEncoded(t, block, i, &e)
				} else {
					raw := e.b[start:]
					ok, err = r.checkRaw(t, block, i, raw[bytes.IndexByte(raw, '{'):])
				}
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
		if n := int64(len(e.b)); n > size.Load() {
			size.Store(n) // a race between cores only misses a better guess
		}
		out.done(block, e.b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.problems(), nil
}

// replaceFile is atomicfile.WriteFrom; tests make it fail.
var replaceFile = atomicfile.WriteFrom

// Write validates f and replaces path with it atomically and durably
// (atomicfile.WriteFrom): a crash leaves either the old file or the new
// one, whole.
//
// Write refuses a symbolic link at path: renaming over it would replace the
// link and silently detach the file it points to, and writing through it
// would change a file outside this folder. Errors are *clierr.Error (exit 1).
func Write(path string, f *File) error {
	var bad error
	called := false
	err := replaceFile(path, func(w io.Writer) error {
		called = true
		problems, err, werr := writeChecked(w, f)
		if bad = invalid(problems, err); bad != nil {
			return bad
		}
		return werr
	})
	if !called && err != nil {
		// The file was refused before it was encoded: an invalid file is
		// still reported as that.
		problems, encErr, _ := writeChecked(io.Discard, f)
		bad = invalid(problems, encErr)
	}
	if bad != nil {
		return &clierr.Error{Code: clierr.CodeFailure, File: path, Msg: "not written: " + bad.Error(), Err: bad}
	}
	if errors.Is(err, atomicfile.ErrSymlink) {
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
