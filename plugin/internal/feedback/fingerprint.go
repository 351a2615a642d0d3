package feedback

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
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
	ah := sha256.New()
	if err := normalise(ah, answer); err != nil {
		return "", err
	}
	lines := make([]string, len(graders))
	for i, g := range graders {
		key, _ := json.Marshal(g.Key) // a string always marshals
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
	h := sha256.New()
	io.WriteString(h, "agentv-review fingerprint v1\nanswer "+hex.EncodeToString(ah.Sum(nil))+"\n"+strings.Join(lines, ""))
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// normalise copies r to w, dropping trailing blanks of every line and
// trailing empty lines. Blanks and newlines are held back until a byte
// that is not one shows they are not trailing.
func normalise(w io.Writer, r io.Reader) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	var newlines int
	var blanks []byte // blanks after the last newline
	for {
		c, err := in.ReadByte()
		if errors.Is(err, io.EOF) {
			return out.Flush()
		}
		if err != nil {
			return err
		}
		switch c {
		case ' ', '\t', '\r', '\v', '\f':
			blanks = append(blanks, c)
		case '\n':
			newlines++
			blanks = blanks[:0]
		default:
			for range newlines {
				out.WriteByte('\n')
			}
			out.Write(blanks)
			out.WriteByte(c)
			newlines, blanks = 0, blanks[:0]
		}
	}
}
