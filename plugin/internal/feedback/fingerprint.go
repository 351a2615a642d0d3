package feedback

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"agentv-review/plugin/internal/jsonenc"
)

// Fingerprint identifies what a reviewer judged: the answer and the
// graders' results. A later run of the case with the same fingerprint
// produced the same judged output, so an earlier verdict still applies;
// a different one makes the earlier verdict stale.
//
// The value is "sha256:" + the hex SHA-256 of this canonical text
// (version 1 of the encoding):
//
//	agentv-review fingerprint v1\n
//	answer <hex SHA-256 of the normalised answer>\n
//	grader <key as a JSON string> <score or null> <pass: true, false or null>\n
//
// with one grader line per grader, the lines sorted, the score in Go's
// shortest 'g' form. The answer is normalised so that line endings and
// trailing blanks do not count: each line (split on \n) loses its trailing
// spaces, tabs, \r, \v and \f, and trailing empty lines are dropped. The
// answer is streamed, so a large sidecar need not be read into memory.
func Fingerprint(answer io.Reader, graders []GraderResult) (string, error) {
	return fingerprintOf("agentv-review fingerprint v1\n", []part{{"answer", answer}}, graders)
}

// FingerprintVersion is the version of the encoding Record writes (in
// per_case fingerprint_version; absent means 1).
const FingerprintVersion = 2

// Test is the test definition a verdict was given under, as the run
// recorded it; a nil reader is a part the run does not keep.
type Test struct {
	Input io.Reader // the input (prompt) the agent got
	Task  io.Reader // the task bundle file (4.42.4 <suite>/<test>/task/EVAL.yaml: criteria, expected output, assertions)
}

// FingerprintV2 is version 2 of the encoding: version 1 plus the test the
// case was judged under, so a changed input, criteria, expected output or
// assertion makes a verdict stale even when the answer is the same:
//
//	agentv-review fingerprint v2\n
//	answer <hex SHA-256 of the normalised answer>\n
//	input <hex SHA-256 of the normalised input>\n      (when the run keeps one)
//	task <hex SHA-256 of the normalised task file>\n   (when the run keeps one)
//	grader ... (as in version 1)
func FingerprintV2(answer io.Reader, test Test, graders []GraderResult) (string, error) {
	return fingerprintOf("agentv-review fingerprint v2\n", []part{{"answer", answer}, {"input", test.Input}, {"task", test.Task}}, graders)
}

// part is a text a fingerprint hashes, nil when the run does not keep it.
type part struct {
	name string
	r    io.Reader
}

// fingerprintOf is the fingerprint of the canonical text: head, then a
// line "<name> <hex SHA-256 of the normalised text>" for each part that
// is there, then the grader lines. One hash reads every part, and the
// text is built in one buffer; both, and the rest of the work's room, are
// a state taken from states and given back.
func fingerprintOf(head string, parts []part, graders []GraderResult) (string, error) {
	st := states.Get().(*state)
	defer states.Put(st)
	h, sum := st.h, st.sum[:0]
	text := append(st.text[:0], head...)
	for _, p := range parts {
		if p.r == nil {
			continue
		}
		h.Reset()
		if err := st.n.normalise(h, p.r); err != nil {
			return "", err
		}
		text = append(append(text, p.name...), ' ')
		text = append(hex.AppendEncode(text, h.Sum(sum)), '\n')
	}
	text = st.appendGraderLines(text, graders)
	st.text = text
	h.Reset()
	h.Write(text)
	const prefix = "sha256:"
	var fp [len(prefix) + 2*sha256.Size]byte
	copy(fp[:], prefix)
	hex.Encode(fp[len(prefix):], h.Sum(sum))
	return string(fp[:]), nil
}

// state is the room a fingerprint is computed in, reused (states): the
// hash and room for its sums, the canonical text, the grader lines and
// the normaliser.
type state struct {
	h     hash.Hash
	sum   [sha256.Size]byte
	text  []byte
	lines []byte   // the grader lines, one after another
	order [][]byte // the grader lines, as slices of lines, to sort
	n     normaliser
}

var states = sync.Pool{New: func() any { return &state{h: sha256.New(), text: make([]byte, 0, 512)} }}

// appendGraderLines appends the sorted grader lines of both versions to
// dst. The lines are built in one buffer and sorted as slices of it.
func (st *state) appendGraderLines(dst []byte, graders []GraderResult) []byte {
	size := 0
	for _, g := range graders {
		size += len(g.Key) + 48 // quotes, a score, a pass
	}
	b, lines := slices.Grow(st.lines[:0], size), st.order[:0]
	for _, g := range graders {
		start := len(b)
		b = append(b, "grader "...)
		b = append(jsonenc.AppendString(b, g.Key, true), ' ') // the key as json.Marshal writes it
		if g.Score != nil {
			b = appendScore(b, *g.Score)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, ' ')
		if g.Pass != nil {
			b = strconv.AppendBool(b, *g.Pass)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '\n')
		lines = append(lines, b[start:len(b):len(b)]) // if b grows, append copies: the line stays as it is
	}
	slices.SortFunc(lines, bytes.Compare)
	for _, l := range lines {
		dst = append(dst, l...)
	}
	st.lines, st.order = b, lines[:0]
	return dst
}

// appendScore appends v in Go's shortest 'g' form: a whole number below
// 1e6 (most scores are 0 or 1) as the integer it is, which is what 'g'
// writes of it, without the shortest-decimal search.
func appendScore(b []byte, v float64) []byte {
	if i := int64(v); float64(i) == v && i > -1e6 && i < 1e6 && (i != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(b, i, 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// normalise copies r to w through n (reset first), dropping trailing
// blanks of every line and trailing empty lines. What r holds in memory (a strings.Reader, a
// bytes.Reader: what most fingerprints read) reaches the normaliser in one
// write, a file in pieces; the normaliser writes each piece to w in spans
// of it, cut only where a line loses its trailing blanks, so a hash w gets
// a few big writes, not three for every line.
func (n *normaliser) normalise(w io.Writer, r io.Reader) error {
	*n = normaliser{w: w, blanks: n.blanks[:0]}
	_, err := io.Copy(n, r)
	return err
}

// normaliser is normalise's state between writes: the newlines, and the
// blanks at the end of the line so far, held back until text that is
// neither shows they are not trailing.
type normaliser struct {
	w        io.Writer
	newlines int
	blanks   []byte
}

func (n *normaliser) Write(p []byte) (int, error) {
	if err := n.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write of s, without a copy of it (strings.Reader.WriteTo
// would otherwise copy its whole text into a new slice for Write).
func (n *normaliser) WriteString(s string) (int, error) {
	// Write must neither keep nor change the bytes: s is not written to.
	return n.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// write normalises p, the text after what was written before: the blanks
// and newlines p starts with join those held back, and are written only
// when text follows them in p; from p's first text to its last, each line
// loses its trailing blanks; the blanks and newlines after p's last text
// are held back.
func (n *normaliser) write(p []byte) error {
	end := len(bytes.TrimRight(p, heldBack))
	if end == 0 {
		n.hold(p)
		return nil
	}
	first := len(p) - len(bytes.TrimLeft(p, heldBack))
	n.hold(p[:first])
	for n.newlines > 0 {
		k := min(n.newlines, len(someNewlines))
		if _, err := n.w.Write(someNewlines[:k]); err != nil {
			return err
		}
		n.newlines -= k
	}
	if _, err := n.w.Write(n.blanks); err != nil {
		return err
	}
	n.blanks = n.blanks[:0]
	text, span := p[first:end], 0
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		nl := i + j
		k := nl
		for k > i && isLineBlank(text[k-1]) {
			k--
		}
		if k < nl {
			if _, err := n.w.Write(text[span:k]); err != nil {
				return err
			}
			span = nl
		}
		i = nl + 1
	}
	if _, err := n.w.Write(text[span:]); err != nil {
		return err
	}
	n.hold(p[end:])
	return nil
}

// hold holds back p, blanks and newlines only: its newlines, and the
// blanks after the last of them.
func (n *normaliser) hold(p []byte) {
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		n.newlines += bytes.Count(p, newline)
		n.blanks = append(n.blanks[:0], p[i+1:]...)
		return
	}
	n.blanks = append(n.blanks, p...)
}

// isLineBlank is whether c is one of lineBlanks (bytes.TrimRight with
// them would build their set for every line).
func isLineBlank(c byte) bool { return lineBlank[c] }

// lineBlank flags the bytes of lineBlanks.
var lineBlank = func() (set [256]bool) {
	for _, c := range []byte(lineBlanks) {
		set[c] = true
	}
	return set
}()

// lineBlanks are the blanks normalise drops at the end of a line;
// heldBack adds the newline.
const (
	lineBlanks = " \t\r\v\f"
	heldBack   = lineBlanks + "\n"
)

var newline = []byte{'\n'}

var someNewlines = bytes.Repeat([]byte{'\n'}, 64)
