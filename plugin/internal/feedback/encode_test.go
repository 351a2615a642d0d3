package feedback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"agentv-review/plugin/internal/jsonenc"
)

// Encode returns f as Write writes it to disk (2-space indent, trailing
// newline, HTML characters unescaped) after checking it against the
// schema: the bytes writeChecked writes, which are those encoding/json
// writes for f through the MarshalJSON methods (TestEncodeIsEncodingJSON).
func Encode(f *File) ([]byte, error) {
	data, problems, err := encodeChecked(f)
	if err = invalid(problems, err); err != nil {
		return nil, err
	}
	return data, nil
}

// encodeChecked is f encoded as Write writes it and Validate's problems
// with it.
func encodeChecked(f *File) ([]byte, []Problem, error) {
	var b bytes.Buffer
	problems, err, _ := writeChecked(&b, f) // a bytes.Buffer does not fail
	return b.Bytes(), problems, err
}

// viaEncodingJSON is what Encode wrote before it had its own encoder:
// encoding/json through the MarshalJSON methods.
func viaEncodingJSON(f *File) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(f)
	return b.Bytes(), err
}

// sameAsEncodingJSON checks that encodeChecked writes f as encoding/json
// does, reports Validate's problems with those bytes, and validates each
// entry as the very tree its JSON decodes to.
func sameAsEncodingJSON(t *testing.T, f *File) {
	t.Helper()
	want, wantErr := viaEncodingJSON(f)
	got, problems, err := encodeChecked(f)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("encodeChecked error %v, encoding/json's %v", err, wantErr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encodeChecked wrote\n%s\nencoding/json\n%s", got, want)
	}
	wantProblems, err := Validate(want)
	if err != nil || !reflect.DeepEqual(problems, wantProblems) {
		t.Fatalf("problems %v, Validate's %v (%v)", problems, wantProblems, err)
	}
	top, entries, _ := splitEntries(want)
	sink := treeSink{t: &treeReader{}}
	emitFile(&sink, f, func() {})
	if doc, _ := tree(top); !reflect.DeepEqual(sink.root, doc) {
		t.Fatalf("top tree %#v, decoded %#v", sink.root, doc)
	}
	for i, raw := range entries {
		emitCase(&sink, &f.PerCase[i])
		if doc, _ := tree(raw); !reflect.DeepEqual(sink.root, doc) {
			t.Fatalf("per_case.%d tree %#v, decoded %#v", i, sink.root, doc)
		}
	}
}

// texts are strings encoding/json escapes in every way it has.
var texts = []string{"", "a", "acceptable", "flaky", "human", "P F", "x:y", "2026-07-06T12:00:00.000Z", "not a time",
	"sha256:" + strings.Repeat("0a", 32), `<b>&amp;</b>`, "quote \" back\\slash", "tab\tnl\nret\r\b\f\x00\x1f\x7f",
	"é ü 日本 😀", "\u2028\u2029", "bad \xff\xfe utf-8 \xed\xa0\x80", "run_id", "verdict", "Per_Case"}

var floats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.9400000000000001, 1e-7, 1e-6, 123456789, 1e20, 1e21,
	-2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64}

// rawValues are JSON values as Extra holds them, with the spacing a file
// may have.
var rawValues = []string{`1`, `"s"`, `"<&>\u003c\u2028"`, "\"\xe2\x80\xa8\"", `null`, `true`, `[]`, `{}`, " [1, 2,\n3] ",
	`{"a": {"b": [{}, [], "x"]}, "c": -0.0e+5}`, "\t{ \"k\" :\"v\" }\n", `[{"nested": {"deep": [null]}}]`, `1.000`}

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

func maybe(r *rand.Rand, s string) string {
	if r.IntN(3) == 0 {
		return ""
	}
	return s
}

func randomText(r *rand.Rand) string { return maybe(r, pick(r, texts)) }

func randomFloat(r *rand.Rand) *float64 {
	if r.IntN(4) == 0 {
		return nil
	}
	f := pick(r, floats)
	if r.IntN(2) == 0 {
		f = math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = r.Float64()
		}
	}
	return &f
}

// randomExtra is unknown fields, some named like known ones.
func randomExtra(r *rand.Rand) map[string]json.RawMessage {
	if r.IntN(3) == 0 {
		return nil
	}
	extra := map[string]json.RawMessage{}
	for range r.IntN(4) {
		extra[pick(r, texts)+pick(r, []string{"", "x", "<k>", "\xff"})] = json.RawMessage(pick(r, rawValues))
	}
	return extra
}

func randomFile(r *rand.Rand) *File {
	f := &File{RunID: pick(r, texts), Reviewer: pick(r, texts), Timestamp: pick(r, texts), OverallNotes: randomText(r),
		SchemaVersion: maybe(r, pick(r, []string{SchemaVersion, "v1"})), ReviewerKind: randomText(r),
		RunPath: randomText(r), Previous: randomText(r), Extra: randomExtra(r)}
	if r.IntN(2) == 0 {
		f.Tool = &Tool{Name: pick(r, texts), Version: randomText(r), Extra: randomExtra(r)}
	}
	if r.IntN(2) == 0 {
		f.Scope = &Scope{Mode: pick(r, []string{"all", "spot", "x"}), Filter: randomText(r), Sample: r.IntN(3) - 1, Extra: randomExtra(r)}
		if r.IntN(2) == 0 {
			seed := r.Uint64()
			f.Scope.Seed = &seed
		}
	}
	if r.IntN(2) == 0 {
		f.Summary = &Summary{Cases: r.IntN(5), Reviewed: r.IntN(5) - 1, Skipped: r.IntN(5), Extra: randomExtra(r)}
		for range r.IntN(3) {
			if f.Summary.Verdicts == nil {
				f.Summary.Verdicts = map[string]int{}
			}
			f.Summary.Verdicts[pick(r, texts)] = r.IntN(4)
		}
	}
	if r.IntN(5) > 0 {
		f.PerCase = []Case{}
	}
	for range r.IntN(6) {
		f.PerCase = append(f.PerCase, randomCase(r))
	}
	return f
}

func randomCase(r *rand.Rand) Case {
	c := Case{TestID: pick(r, texts[:4]), Verdict: pick(r, []string{Acceptable, Flaky, "bad", ""}), Notes: randomText(r),
		WorkspaceNotes: randomText(r), Target: randomText(r), Variant: randomText(r), Suite: randomText(r),
		EvalPath: randomText(r), ReviewedAt: randomText(r), Reviewer: randomText(r), ReviewerKind: randomText(r),
		Fingerprint: randomText(r), FingerprintV: r.IntN(3) - 1, Stale: r.IntN(2) == 0, TestDefect: randomText(r),
		BlindVerdict: randomText(r), Extra: randomExtra(r)}
	for range r.IntN(3) {
		if c.EvaluatorOverrides == nil {
			c.EvaluatorOverrides = map[string]string{}
		}
		c.EvaluatorOverrides[pick(r, texts)] = pick(r, texts)
	}
	for range r.IntN(3) {
		c.Signals = append(c.Signals, pick(r, []string{"false_positive", "flaky_results", "x"}))
	}
	if r.IntN(3) > 0 {
		a := &Automated{Score: randomFloat(r), Outcome: randomText(r), ExecutionStatus: randomText(r),
			Samples: randomText(r), Extra: randomExtra(r)}
		for range r.IntN(4) {
			g := GraderResult{Key: pick(r, texts), Score: randomFloat(r), Extra: randomExtra(r)}
			if r.IntN(3) > 0 {
				pass := r.IntN(2) == 0
				g.Pass = &pass
			}
			a.Graders = append(a.Graders, g)
		}
		c.Automated = a
	}
	if r.IntN(3) == 0 {
		c.CarriedFrom = &CarriedFrom{RunID: pick(r, texts), ReviewedAt: randomText(r), Reviewer: randomText(r), Extra: randomExtra(r)}
	}
	if r.IntN(3) == 0 {
		c.FlakyEvidence = &FlakyEvidence{Samples: randomText(r), Runs: randomText(r), Extra: randomExtra(r)}
	}
	return c
}

// TestEncodeIsEncodingJSON: on random files, with unknown fields at every
// level and every kind of string and number, Encode writes encoding/json's
// bytes and finds Validate's problems in them.
func TestEncodeIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 17))
	for range 3000 {
		sameAsEncodingJSON(t, randomFile(r))
	}
	// Across the blocks the cores share.
	f := randomFile(r)
	for range 3*entryBlock + 7 {
		f.PerCase = append(f.PerCase, randomCase(r))
	}
	sameAsEncodingJSON(t, f)
}

// FuzzEncode: every file that decodes encodes as encoding/json encodes it,
// with Validate's problems.
func FuzzEncode(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`{"run_id":"r","x":{"a" : [1,2]},"tool":{"name":"n","y":"\u003c"},"scope":{"mode":"all","seed":3,"z":null},` +
		`"summary":{"cases":1,"reviewed":0,"skipped":0,"verdicts":{"flaky":1},"w":{}},"per_case":[{"test_id":"a","verdict":"flaky",` +
		`"automated":{"score":1e-7,"graders":[{"key":"a:b","score":null,"pass":true,"g":[]}],"q":1},"carried_from":{"run_id":"p","c":2},` +
		`"flaky_evidence":{"runs":"P F","f":"\u2028"},"e":{"deep":{"er":[{}]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var file File
		if json.Unmarshal(data, &file) != nil {
			return
		}
		sameAsEncodingJSON(t, &file)
	})
}

// FuzzReadBack: readBack(s) is the string encoding/json decodes from the
// JSON string Encode writes for s.
func FuzzReadBack(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(jsonenc.AppendString(nil, s, false), &back); err != nil || readBack(s) != back {
			t.Errorf("readBack(%q) = %q, encoding/json reads %q (%v)", s, readBack(s), back, err)
		}
	})
}

// TestEncodeRefusesBadValues: a number JSON cannot hold and a kept field
// that is not JSON are errors, as they were with encoding/json.
func TestEncodeRefusesBadValues(t *testing.T) {
	nan := math.NaN()
	for _, f := range []*File{
		{RunID: "r", PerCase: []Case{{TestID: "a", Verdict: Flaky, Automated: &Automated{Score: &nan}}}},
		{RunID: "r", PerCase: []Case{{TestID: "a", Verdict: Flaky, Extra: map[string]json.RawMessage{"x": json.RawMessage(`{`)}}}},
		{RunID: "r", Extra: map[string]json.RawMessage{"x": nil}},
	} {
		if _, err := viaEncodingJSON(f); err == nil {
			t.Fatalf("encoding/json accepts %+v", f)
		}
		if _, err := Encode(f); err == nil {
			t.Errorf("Encode accepts %+v", f)
		}
	}
}

// TestEncodeWritesEveryField: a File whose every exported field, at every
// level, holds a value encoding/json writes (filled by reflection, so a
// field added to a type later is filled too) is written as encoding/json
// writes it: the encoder's field lists (emitFile, emitCase) miss none.
func TestEncodeWritesEveryField(t *testing.T) {
	var f File
	fillEvery(reflect.ValueOf(&f).Elem())
	sameAsEncodingJSON(t, &f)
}

// fillEvery sets every settable exported field of v (Extra maps excepted)
// to a value that is not empty, recursing through pointers, structs and
// slices (one element).
func fillEvery(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Name != "Extra" {
				fillEvery(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillEvery(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillEvery(k)
		fillEvery(e)
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(2)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(3)
	case reflect.Float64:
		v.SetFloat(0.5)
	default:
		panic("fillEvery: a field of kind " + v.Kind().String())
	}
}

// checkedBothWays checks cases by parts one after another, as a write
// does (checkEncoded, from what the encoder notes of each entry) and as
// Validate does (checkRaw of the bytes encoded), and fails unless both
// see the same names and members (keys, properties, value bytes, decoded
// values, memo results) and find the same problems and identities.
func checkedBothWays(t *testing.T, cases []Case) {
	t.Helper()
	byPartsAlways(t)
	ss, err := compiledSchemas()
	if err != nil {
		t.Fatal(err)
	}
	written, read := newEntryResults(ss.entry, len(cases)), newEntryResults(ss.entry, len(cases))
	if written.parts == nil {
		t.Fatal("the schema does not split")
	}
	var tw, tr treeReader
	e := entryEncoder{encoder: encoder{open: []container{{}, {array: true}}}}
	for i := range cases {
		block := i / entryBlock
		start := len(e.b)
		e.members = e.members[:0]
		if emitCase(&e, &cases[i]); e.err != nil {
			return // a write stops here
		}
		raw := e.b[start:]
		okW, errW := written.checkEncoded(&tw, block, i, &e)
		okR, errR := read.checkRaw(&tr, block, i, raw[bytes.IndexByte(raw, '{'):])
		if okW != okR || fmt.Sprint(errW) != fmt.Sprint(errR) {
			t.Fatalf("per_case.%d: checkEncoded = %v, %v; checkRaw = %v, %v", i, okW, errW, okR, errR)
		}
		if !okW || errW != nil {
			return
		}
		if mw, mr := tw.memo, tr.memo; string(mw.seq) != string(mr.seq) || !reflect.DeepEqual(asRead(mw.members), mr.members) {
			t.Fatalf("per_case.%d: checkEncoded saw %s %#v\ncheckRaw %s %#v", i, mw.seq, mw.members, mr.seq, mr.members)
		}
		if i%entryBlock == entryBlock-1 || i == len(cases)-1 {
			if errW, errR := written.flush(&tw, block), read.flush(&tr, block); fmt.Sprint(errW) != fmt.Sprint(errR) {
				t.Fatalf("block %d: flush = %v after checkEncoded, %v after checkRaw", block, errW, errR)
			}
		}
	}
	if pw, pr := written.problems(), read.problems(); !reflect.DeepEqual(pw, pr) {
		t.Fatalf("checkEncoded found\n%v\ncheckRaw\n%v", pw, pr)
	}
}

// asRead is members with each string value made an any, as checkRaw
// makes it.
func asRead(members []entryMember) []entryMember {
	read := slices.Clone(members)
	for k := range read {
		read[k].v, read[k].str, read[k].isStr = read[k].value(), "", false
	}
	return read
}

// TestEncodedMembersAsRead: on random entries, with unknown fields and
// every kind of string and number, many of them repeating values the memo
// knows, checking an entry from what its encoder noted is checking its
// bytes; and a write by parts finds Validate's problems.
func TestEncodedMembersAsRead(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 42))
	var cases []Case
	for range 5*entryBlock + 7 {
		cases = append(cases, randomCase(r))
	}
	checkedBothWays(t, cases)
	f := randomFile(r)
	f.PerCase = cases
	sameAsEncodingJSON(t, f)
}

// FuzzEncodedMembers: the entries of every file that decodes, twice over
// (the second time judged before), are checked alike from what the
// encoder notes and from their bytes.
func FuzzEncodedMembers(f *testing.F) {
	for _, s := range feedbackSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`{"per_case":[{"test_id":"a","verdict":"flaky","x\u003c":"\u2028","automated":{"score":1e-7,"q":[1, 2]},` +
		`"carried_from":{"run_id":"p"},"e":{"deep":{"er":[{}]}},"stale":true,"fingerprint_version":2,"notes":"\ufffd"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var file File
		if json.Unmarshal(data, &file) != nil {
			return
		}
		checkedBothWays(t, slices.Concat(file.PerCase, file.PerCase))
	})
}
