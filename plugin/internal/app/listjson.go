package app

import (
	"encoding/json"
	"reflect"
	"strconv"

	"agentv-review/plugin/internal/jsonenc"
	"agentv-review/plugin/internal/triage"
)

// appendListEntry appends e as an element of list --json's cases array:
// the bytes encoding/json writes for e with SetIndent("    ", "  ") and
// SetEscapeHTML(false), without the trailing newline. Written by hand
// because list prints every case of the run (FuzzListEntryJSON holds it
// to encoding/json's bytes); a score that is not finite is encoding/json's
// error.
func appendListEntry(b []byte, e *listEntry) ([]byte, error) {
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
	var err error
	if b, err = jsonenc.AppendFloat(b, e.Score); err != nil {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(e.Score), Str: strconv.FormatFloat(e.Score, 'g', -1, 64)}
	}
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
	return jsonenc.AppendString(append(b, key...), s, false)
}

// appendOptional appends key and *s, or null when s is nil.
func appendOptional(b []byte, key string, s *string) []byte {
	if s == nil {
		return append(append(b, key...), "null"...)
	}
	return appendMember(b, key, *s)
}
