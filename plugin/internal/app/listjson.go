package app

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"agentv-review/plugin/internal/triage"
)

// appendListEntry appends e as an element of list --json's cases array:
// the bytes encoding/json writes for e with SetIndent("    ", "  ") and
// SetEscapeHTML(false), without the trailing newline. Written by hand
// because list prints every case of the run (FuzzListEntryJSON holds it
// to encoding/json's bytes); a score that is not finite is encoding/json's
// error.
func appendListEntry(b []byte, e *listEntry) ([]byte, error) {
	if math.IsNaN(e.Score) || math.IsInf(e.Score, 0) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(e.Score), Str: strconv.FormatFloat(e.Score, 'g', -1, 64)}
	}
	const field = "\n      \"" // a member of the entry
	b = append(b, "{"+field+`rank": `...)
	b = strconv.AppendInt(b, int64(e.Rank), 10)
	b = append(b, ","+field+`pos": `...)
	b = strconv.AppendInt(b, int64(e.Pos), 10)
	b = appendMember(b, `,`+field+`ref": `, e.Ref)
	b = appendMember(b, `,`+field+`test_id": `, e.TestID)
	if e.Target != "" {
		b = appendMember(b, `,`+field+`target": `, e.Target)
	}
	if e.Variant != "" {
		b = appendMember(b, `,`+field+`variant": `, e.Variant)
	}
	if e.Suite != "" {
		b = appendMember(b, `,`+field+`suite": `, e.Suite)
	}
	b = appendMember(b, `,`+field+`outcome": `, string(e.Outcome))
	b = append(b, ","+field+`score": `...)
	b = appendJSONFloat(b, e.Score)
	b = appendMember(b, `,`+field+`tier": `, e.Tier)
	b = append(b, ","+field+`reasons": `...)
	b = appendReasons(b, e.Reasons)
	if e.Samples != "" {
		b = appendMember(b, `,`+field+`samples": `, e.Samples)
	}
	b = appendOptional(b, `,`+field+`verdict": `, e.Verdict)
	b = appendOptional(b, `,`+field+`reviewer_kind": `, e.ReviewerKind)
	b = appendMember(b, `,`+field+`state": `, e.State)
	return append(b, "\n    }"...), nil
}

// appendReasons appends a reasons array, indented as a member of an entry.
func appendReasons(b []byte, rs []triage.Reason) []byte {
	switch {
	case rs == nil:
		return append(b, "null"...)
	case len(rs) == 0:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMember(b, "\n        {\n          \"code\": ", r.Code)
		b = appendMember(b, ",\n          \"text\": ", r.Text)
		b = append(b, "\n        }"...)
	}
	return append(b, "\n      ]"...)
}

func appendMember(b []byte, key, s string) []byte {
	return appendJSONString(append(b, key...), s)
}

// appendOptional appends key and *s, or null when s is nil.
func appendOptional(b []byte, key string, s *string) []byte {
	if s == nil {
		return append(append(b, key...), "null"...)
	}
	return appendMember(b, key, *s)
}

// appendJSONFloat appends a finite f as encoding/json does: the shortest
// decimal, with an exponent below 1e-6 and from 1e21 ("e-7", not "e-07").
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendJSONString appends s quoted as encoding/json does without HTML
// escaping: \" \\ \b \f \n \r \t, \u00XX for other control bytes, \ufffd
// for each invalid UTF-8 byte, and \u2028 and \u2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
