package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"agentv-review/plugin/internal/jsonnum"
)

// summaryWire is the part of summary.json (v5, late June) the reader uses.
type summaryWire struct {
	IndexPath    string       `json:"index_path"`
	ManifestPath string       `json:"manifest_path"`
	RunID        string       `json:"run_id"`
	Metadata     metadataWire `json:"metadata"`
}

// metadataWire is the metadata member of summary.json (v5) and
// benchmark.json (4.42.4).
type metadataWire struct {
	Timestamp string `json:"timestamp"` // when the run ran (see Run.RanAt)
}

// decodeSummary reads summary.json (or benchmark.json, which has the same
// metadata) from src. A v5 summary lists every test id, tens of megabytes
// for a large run, and only four strings matter, so the document is
// streamed: its structure is checked as it goes by, one buffer at a time,
// and only those strings are kept. Like
// json.Unmarshal it fills what it can and reports the first problem; a
// wanted member that is not a string is a problem but does not stop the
// scan. Member names match exactly (AgentV writes them so). A read error
// is returned as readErr, apart from a malformed document.
func decodeSummary(src io.Reader) (s summaryWire, malformed, readErr error) {
	sc := summaryScanner{wanted: map[string]*string{
		"index_path": &s.IndexPath, "manifest_path": &s.ManifestPath, "run_id": &s.RunID,
		"metadata.timestamp": &s.Metadata.Timestamp,
	}, parents: map[string]bool{"metadata": true}}
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if ferr := sc.feed(buf[:n]); ferr != nil {
			return s, ferr, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, nil, err
		}
	}
	if err := sc.end(); err != nil {
		return s, err, nil
	}
	return s, sc.typeErr, nil
}

// Scanner states.
const (
	stValue   = iota // a value is expected
	stKey            // a member name (or, in an empty object, '}') is expected
	stColon          // ':' is expected
	stAfter          // ',' or the container's end is expected
	stString         // inside a string
	stLiteral        // inside a number, true, false or null
	stEnd            // the top-level value is complete
)

// summaryScanner checks JSON structure incrementally, keeping the string
// values of the wanted members: top-level ("run_id") or members of a
// top-level object named in parents ("metadata.timestamp").
type summaryScanner struct {
	wanted  map[string]*string
	parents map[string]bool
	typeErr error

	stack []byte // open containers: '{' or '['
	state int
	empty bool // the innermost container was just opened
	isKey bool // the string being read is a member name
	esc   int  // in a string: 1 after '\', 2..5 while reading \u's hex digits
	keep  bool // the string being read is collected into tok
	tok   []byte
	names [2]string // the last member names at depth 1 and (in a parent) 2
	off   int64     // bytes fed before the current buffer
}

func (sc *summaryScanner) fail(at int, msg string) error {
	return fmt.Errorf("%s at byte %d", msg, sc.off+int64(at)+1)
}

func (sc *summaryScanner) feed(b []byte) error {
	defer func() { sc.off += int64(len(b)) }()
	for i := 0; i < len(b); {
		c := b[i]
		switch sc.state {
		case stString:
			n, err := sc.str(b, i)
			if err != nil {
				return err
			}
			i = n
			continue
		case stLiteral:
			if isLiteralByte(c) {
				sc.tok = append(sc.tok, c)
				i++
				continue
			}
			if err := sc.endLiteral(i); err != nil {
				return err
			}
			continue // c follows the literal
		}
		i++
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if err := sc.structural(c, i-1); err != nil {
			return err
		}
	}
	return nil
}

// structural handles a byte outside strings and literals.
func (sc *summaryScanner) structural(c byte, at int) error {
	bad := func() error { return sc.fail(at, "invalid character "+strconv.QuoteRune(rune(c))) }
	switch sc.state {
	case stValue:
		if len(sc.stack) == 0 && c != '{' {
			return sc.fail(at, "not a JSON object")
		}
		if c != 'n' {
			sc.mistyped(c)
		}
		switch {
		case c == '{' || c == '[':
			if len(sc.stack) >= maxDepth {
				return sc.fail(at, "nested too deeply")
			}
			sc.stack = append(sc.stack, c)
			sc.state, sc.empty = stValue, true
			if c == '{' {
				sc.state = stKey
			}
			return nil
		case c == ']' && sc.empty:
			return sc.close()
		case c == '"':
			sc.startString(false)
		case isLiteralByte(c):
			sc.state, sc.tok = stLiteral, append(sc.tok[:0], c)
		default:
			return bad()
		}
	case stKey:
		switch {
		case c == '"':
			sc.startString(true)
		case c == '}' && sc.empty:
			return sc.close()
		default:
			return bad()
		}
	case stColon:
		if c != ':' {
			return bad()
		}
		sc.state = stValue
	case stAfter:
		top := sc.stack[len(sc.stack)-1]
		switch {
		case c == ',' && top == '{':
			sc.state = stKey
		case c == ',':
			sc.state = stValue
		case c == '}' && top == '{', c == ']' && top == '[':
			return sc.close()
		default:
			return bad()
		}
	default: // stEnd
		return sc.fail(at, "invalid character after top-level value")
	}
	sc.empty = false
	return nil
}

func (sc *summaryScanner) close() error {
	sc.stack = sc.stack[:len(sc.stack)-1]
	sc.empty = false
	sc.valueDone()
	return nil
}

// valueDone moves on after a complete value.
func (sc *summaryScanner) valueDone() {
	sc.state = stAfter
	if len(sc.stack) == 0 {
		sc.state = stEnd
	}
}

func (sc *summaryScanner) startString(isKey bool) {
	sc.state, sc.isKey, sc.esc = stString, isKey, 0
	sc.keep = isKey && sc.inWanted() || !isKey && sc.target() != nil
	sc.tok = sc.tok[:0]
}

// inWanted reports whether the current container may hold wanted members.
func (sc *summaryScanner) inWanted() bool {
	d := len(sc.stack)
	return d == 1 || d == 2 && sc.stack[1] == '{' && sc.parents[sc.names[0]]
}

// target is where the value being read is kept, nil when it is not wanted.
func (sc *summaryScanner) target() *string {
	switch d := len(sc.stack); {
	case d == 1:
		return sc.wanted[sc.names[0]]
	case d == 2 && sc.inWanted():
		return sc.wanted[sc.names[0]+"."+sc.names[1]]
	}
	return nil
}

// mistyped notes a wanted member whose value (starting with c) is not a
// string, or a parent that is not an object.
func (sc *summaryScanner) mistyped(c byte) {
	if sc.typeErr != nil {
		return
	}
	switch {
	case c != '"' && sc.target() != nil:
		sc.typeErr = fmt.Errorf("field %q is not a string", sc.names[len(sc.stack)-1])
	case len(sc.stack) == 1 && sc.parents[sc.names[0]] && c != '{':
		sc.typeErr = fmt.Errorf("field %q is not an object", sc.names[0])
	}
}

// str reads string bytes of b from i and returns where it stopped: after
// the closing quote, or at len(b) when the string goes on.
func (sc *summaryScanner) str(b []byte, i int) (int, error) {
	for i < len(b) {
		if sc.esc > 0 {
			if err := sc.escape(b[i], i); err != nil {
				return i, err
			}
			sc.collect(b[i : i+1])
			i++
			continue
		}
		rest := b[i:]
		q := bytes.IndexByte(rest, '"')
		seg := rest
		if q >= 0 {
			seg = rest[:q]
		}
		if k := plainRun(seg, 0); k < len(seg) {
			if seg[k] != '\\' {
				return i + k, sc.fail(i+k, "control character in string")
			}
			sc.collect(rest[:k+1])
			sc.esc = 1
			i += k + 1
			continue
		}
		sc.collect(seg)
		i += len(seg)
		if q < 0 {
			return i, nil
		}
		return i + 1, sc.endString()
	}
	return i, nil
}

func (sc *summaryScanner) collect(b []byte) {
	if sc.keep {
		sc.tok = append(sc.tok, b...)
	}
}

// escape checks one byte of an escape sequence.
func (sc *summaryScanner) escape(c byte, at int) error {
	switch {
	case sc.esc == 1 && c == 'u':
		sc.esc = 2
	case sc.esc == 1 && bytes.IndexByte([]byte(`"\/bfnrt`), c) >= 0:
		sc.esc = 0
	case sc.esc > 1 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		if sc.esc++; sc.esc == 6 {
			sc.esc = 0
		}
	default:
		return sc.fail(at, "invalid escape in string")
	}
	return nil
}

func (sc *summaryScanner) endString() error {
	var s string
	if sc.keep {
		var err error
		if s, err = unquote(sc.tok); err != nil {
			return err
		}
	}
	switch {
	case sc.isKey:
		if sc.keep {
			sc.names[len(sc.stack)-1] = s
		}
		sc.state = stColon
		return nil
	case sc.keep:
		*sc.target() = s
	}
	sc.valueDone()
	return nil
}

func (sc *summaryScanner) endLiteral(at int) error {
	switch string(sc.tok) {
	case "true", "false", "null":
	default:
		if !jsonnum.Valid(sc.tok) {
			return sc.fail(at, "invalid value "+strconv.Quote(string(sc.tok)))
		}
	}
	sc.valueDone()
	return nil
}

// end checks that the input held one complete value.
func (sc *summaryScanner) end() error {
	if sc.state == stLiteral {
		if err := sc.endLiteral(0); err != nil {
			return err
		}
	}
	if sc.state != stEnd {
		return fmt.Errorf("unexpected end of JSON input")
	}
	return nil
}

// unquote decodes the bytes between a string's quotes.
func unquote(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), nil
	}
	var s string
	err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s)
	return s, err
}

func isLiteralByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}
