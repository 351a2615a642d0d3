package feedback

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

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
// text is built in one buffer.
func fingerprintOf(head string, parts []part, graders []GraderResult) (string, error) {
	h := sha256.New()
	var sum [sha256.Size]byte
	text := append(make([]byte, 0, 256), head...)
	for _, p := range parts {
		if p.r == nil {
			continue
		}
		h.Reset()
		if err := normalise(h, p.r); err != nil {
			return "", err
		}
		text = append(append(text, p.name...), ' ')
		text = append(hex.AppendEncode(text, h.Sum(sum[:0])), '\n')
	}
	h.Reset()
	h.Write(text)
	io.WriteString(h, graderLines(graders))
	return "sha256:" + hex.EncodeToString(h.Sum(sum[:0])), nil
}

// graderLines are the sorted grader lines of both versions.
func graderLines(graders []GraderResult) string {
	lines := make([]string, len(graders))
	for i, g := range graders {
		key := jsonenc.AppendString(nil, g.Key, true) // as json.Marshal writes it
		score, pass := "null", "null"
		if g.Score != nil {
			score = strconv.FormatFloat(*g.Score, 'g', -1, 64)
		}
		if g.Pass != nil {
			pass = strconv.FormatBool(*g.Pass)
		}
		lines[i] = "grader " + string(key) + " " + score + " " + pass + "\n"
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// normalise copies r to w, dropping trailing blanks of every line and
// trailing empty lines. A bytes.Reader is written to the normaliser in one
// piece, a strings.Reader (what most fingerprints read) through
// WriteString, without a copy of the whole text. The normaliser writes a
// line in up to three pieces; they reach w through a pooled buffer, so a
// hash w gets a few big writes instead of three for every line.
func normalise(w io.Writer, r io.Reader) error {
	bw := outputs.Get().(*bufio.Writer)
	defer outputs.Put(bw)
	bw.Reset(w)
	defer bw.Reset(nil) // the pool keeps no writer alive
	if _, err := io.Copy(&normaliser{w: bw}, r); err != nil {
		return err
	}
	return bw.Flush()
}

var outputs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4<<10) }}

// normaliser is normalise's state between writes: the newlines, and the
// blanks at the end of the line so far, held back until text that is
// neither shows they are not trailing. It works a line at a time.
type normaliser struct {
	w        io.Writer
	newlines int
	blanks   []byte
}

func (n *normaliser) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		line, rest, ended := bytes.Cut(p, newline)
		if text := bytes.TrimRight(line, lineBlanks); len(text) > 0 {
			for n.newlines > 0 {
				k := min(n.newlines, len(someNewlines))
				if _, err := n.w.Write(someNewlines[:k]); err != nil {
					return 0, err
				}
				n.newlines -= k
			}
			if _, err := n.w.Write(n.blanks); err != nil {
				return 0, err
			}
			if _, err := n.w.Write(text); err != nil {
				return 0, err
			}
			n.blanks, line = n.blanks[:0], line[len(text):]
		}
		if ended {
			n.newlines, n.blanks = n.newlines+1, n.blanks[:0]
		} else {
			n.blanks = append(n.blanks, line...) // the line goes on in the next write
		}
		p = rest
	}
	return total, nil
}

// WriteString is Write of s, in pieces of at most stringPiece bytes
// through a pooled buffer: strings.Reader.WriteTo would otherwise copy its
// whole text into a new slice for Write.
func (n *normaliser) WriteString(s string) (int, error) {
	buf := pieces.Get().(*[]byte)
	defer pieces.Put(buf)
	for rest := s; len(rest) > 0; {
		k := copy((*buf)[:min(len(*buf), stringPiece)], rest)
		if _, err := n.Write((*buf)[:k]); err != nil {
			return 0, err
		}
		rest = rest[k:]
	}
	return len(s), nil
}

// stringPiece is the most of a string WriteString writes at once (a
// variable for a test).
var stringPiece = 16 << 10

var pieces = sync.Pool{New: func() any { b := make([]byte, stringPiece); return &b }}

// lineBlanks are the blanks normalise drops at the end of a line.
const lineBlanks = " \t\r\v\f"

var newline = []byte{'\n'}

var someNewlines = bytes.Repeat([]byte{'\n'}, 64)
