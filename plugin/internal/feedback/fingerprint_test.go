package feedback

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func ptr[T any](v T) *T { return &v }

func fingerprint(t *testing.T, answer string, graders ...GraderResult) string {
	t.Helper()
	fp, err := Fingerprint(strings.NewReader(answer), graders)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// The documented canonical encoding, computed by hand.
func TestFingerprintEncoding(t *testing.T) {
	answer := sha256.Sum256([]byte("The answer is 42.\n\n  Done."))
	canonical := "agentv-review fingerprint v1\n" +
		"answer " + hex.EncodeToString(answer[:]) + "\n" +
		`grader "contains:has-42" 1 true` + "\n" +
		`grader "llm-grader:judge" 0.25 null` + "\n" +
		`grader "rubric:tone" null false` + "\n"
	sum := sha256.Sum256([]byte(canonical))
	want := "sha256:" + hex.EncodeToString(sum[:])
	got := fingerprint(t, "The answer is 42.  \r\n\r\n  Done.\n\n\n",
		GraderResult{Key: "rubric:tone", Pass: ptr(false)},
		GraderResult{Key: "llm-grader:judge", Score: ptr(0.25)},
		GraderResult{Key: "contains:has-42", Score: ptr(1.0), Pass: ptr(true)},
	)
	if got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
}

// Version 2's documented encoding, computed by hand: the input and task
// lines only for the parts the run keeps.
func TestFingerprintV2Encoding(t *testing.T) {
	hexOf := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	graders := []GraderResult{{Key: "llm-grader:judge", Score: ptr(0.25)}, {Key: "contains:x", Score: ptr(1.0), Pass: ptr(true)}}
	lines := `grader "contains:x" 1 true` + "\n" + `grader "llm-grader:judge" 0.25 null` + "\n"
	for _, tt := range []struct {
		test      Test
		canonical string
	}{
		{Test{}, "answer " + hexOf("42") + "\n"},
		{Test{Input: strings.NewReader("ask \r\n\n")}, "answer " + hexOf("42") + "\ninput " + hexOf("ask") + "\n"},
		{Test{Input: strings.NewReader("ask"), Task: strings.NewReader(`{"criteria":"c"}  `)},
			"answer " + hexOf("42") + "\ninput " + hexOf("ask") + "\ntask " + hexOf(`{"criteria":"c"}`) + "\n"},
		{Test{Task: strings.NewReader("t")}, "answer " + hexOf("42") + "\ntask " + hexOf("t") + "\n"},
	} {
		got, err := FingerprintV2(strings.NewReader("42\n"), tt.test, graders)
		if err != nil {
			t.Fatal(err)
		}
		if want := "sha256:" + hexOf("agentv-review fingerprint v2\n"+tt.canonical+lines); got != want {
			t.Errorf("FingerprintV2(%q) = %s, want %s", tt.canonical, got, want)
		}
	}
}

// A grader key is written as json.Marshal writes a string: HTML characters,
// U+2028 and bad UTF-8 escaped.
func TestGraderLinesKey(t *testing.T) {
	for _, key := range []string{"contains:<b>&", "regex:\u2028 \"q\"", "rubric:bad \xff\xfe", "llm-grader:日本"} {
		q, err := json.Marshal(key)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(new(state).appendGraderLines(nil, []GraderResult{{Key: key}})), "grader "+string(q)+" null null\n"; got != want {
			t.Errorf("appendGraderLines(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestFingerprintChanges(t *testing.T) {
	base := []GraderResult{
		{Key: "contains:has-42", Score: ptr(1.0), Pass: ptr(true)},
		{Key: "llm-grader:judge", Score: ptr(0.8), Pass: nil},
	}
	with := func(i int, g GraderResult) []GraderResult {
		out := append([]GraderResult(nil), base...)
		out[i] = g
		return out
	}
	ref := fingerprint(t, "line one\nline two", base...)
	tests := []struct {
		name    string
		answer  string
		graders []GraderResult
		same    bool
	}{
		{"identical", "line one\nline two", base, true},
		{"CRLF", "line one\r\nline two\r\n", base, true},
		{"trailing blanks and lines", "line one \t\nline two\n\n \n", base, true},
		{"graders reordered", "line one\nline two", []GraderResult{base[1], base[0]}, true},
		{"answer changed", "line one\nline 2", base, false},
		{"leading blanks count", " line one\nline two", base, false},
		{"inner blank line counts", "line one\n\nline two", base, false},
		{"pass flipped", "line one\nline two", with(0, GraderResult{Key: "contains:has-42", Score: ptr(1.0), Pass: ptr(false)}), false},
		{"pass became known", "line one\nline two", with(1, GraderResult{Key: "llm-grader:judge", Score: ptr(0.8), Pass: ptr(true)}), false},
		{"score changed", "line one\nline two", with(1, GraderResult{Key: "llm-grader:judge", Score: ptr(0.81)}), false},
		{"score lost", "line one\nline two", with(1, GraderResult{Key: "llm-grader:judge"}), false},
		{"grader renamed", "line one\nline two", with(1, GraderResult{Key: "llm-grader:judge2", Score: ptr(0.8)}), false},
		{"grader dropped", "line one\nline two", base[:1], false},
	}
	for _, tt := range tests {
		got := fingerprint(t, tt.answer, tt.graders...)
		if (got == ref) != tt.same {
			t.Errorf("%s: same fingerprint = %v, want %v", tt.name, got == ref, tt.same)
		}
	}
}

func TestNormalise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n \t\n", ""},
		{"a\r\nb\r\n", "a\nb"},
		{"a \t\n\n  b  \n", "a\n\n  b"},
		{"  lead", "  lead"},
		{"a\rb", "a\rb"}, // only a \r before a newline is a line ending
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := new(normaliser).normalise(&b, iotest.OneByteReader(strings.NewReader(tt.in))); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("normalise(%q) = %q, want %q", tt.in, b.String(), tt.want)
		}
	}
}

// normaliseByBytes is normalise's definition, a byte at a time: blanks
// and newlines are held back until a byte that is not one shows they are
// not trailing.
func normaliseByBytes(in []byte) []byte {
	var out, blanks []byte
	newlines := 0
	for _, c := range in {
		switch c {
		case ' ', '\t', '\r', '\v', '\f':
			blanks = append(blanks, c)
		case '\n':
			newlines++
			blanks = blanks[:0]
		default:
			out = append(out, bytes.Repeat([]byte{'\n'}, newlines)...)
			out = append(append(out, blanks...), c)
			newlines, blanks = 0, blanks[:0]
		}
	}
	return out
}

// FuzzNormalise: normalise, given the text whole, a byte at a time, in
// halves, or as a string (WriteString, whole or 3 bytes at a time),
// writes what the byte-at-a-time definition does.
func FuzzNormalise(f *testing.F) {
	for _, s := range []string{"", "a \t\n\n  b  \n", strings.Repeat("word  ", 20) + "\n\n\n" + strings.Repeat(" ", 40) + "x", strings.Repeat("\n", 100) + "y \r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := normaliseByBytes(in)
		check := func(r io.Reader) {
			var b bytes.Buffer
			if err := new(normaliser).normalise(&b, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("normalise(%q) = %q, want %q", in, b.Bytes(), want)
			}
		}
		for _, r := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in)), iotest.HalfReader(bytes.NewReader(in)), strings.NewReader(string(in))} {
			check(r)
		}
		// A text written as strings, 3 bytes at a time.
		var b bytes.Buffer
		n := &normaliser{w: &b}
		for rest := string(in); len(rest) > 0; rest = rest[min(3, len(rest)):] {
			if _, err := n.WriteString(rest[:min(3, len(rest))]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("normalise(%q) as strings = %q, want %q", in, b.Bytes(), want)
		}
	})
}

func TestFingerprintReadError(t *testing.T) {
	_, err := Fingerprint(io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(errInjected)), nil)
	if !errors.Is(err, errInjected) {
		t.Errorf("Fingerprint(failing reader) error = %v, want %v", err, errInjected)
	}
}

func BenchmarkFingerprint(b *testing.B) {
	answer := strings.Repeat("A reasonably long line of an agent's answer, with some trailing space.  \n", 1000)
	graders := []GraderResult{{Key: "contains:x", Score: ptr(1.0), Pass: ptr(true)}, {Key: "llm-grader:judge", Score: ptr(0.5)}}
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		if _, err := Fingerprint(strings.NewReader(answer), graders); err != nil {
			b.Fatal(err)
		}
	}
}

// documentedV2 is FingerprintV2 as its comment defines it, built the
// plain way: each part normalised a byte at a time, the grader lines
// written with encoding/json and sorted as strings.
func documentedV2(t *testing.T, answer string, input, task *string, graders []GraderResult) string {
	t.Helper()
	hexOf := func(b []byte) string { sum := sha256.Sum256(b); return hex.EncodeToString(sum[:]) }
	text := "agentv-review fingerprint v2\nanswer " + hexOf(normaliseByBytes([]byte(answer))) + "\n"
	if input != nil {
		text += "input " + hexOf(normaliseByBytes([]byte(*input))) + "\n"
	}
	if task != nil {
		text += "task " + hexOf(normaliseByBytes([]byte(*task))) + "\n"
	}
	var lines []string
	for _, g := range graders {
		key, err := json.Marshal(g.Key)
		if err != nil {
			t.Fatal(err)
		}
		score, pass := "null", "null"
		if g.Score != nil {
			score = strconv.FormatFloat(*g.Score, 'g', -1, 64)
		}
		if g.Pass != nil {
			pass = strconv.FormatBool(*g.Pass)
		}
		lines = append(lines, "grader "+string(key)+" "+score+" "+pass+"\n")
	}
	slices.Sort(lines)
	return "sha256:" + hexOf([]byte(text+strings.Join(lines, "")))
}

// FuzzFingerprintV2AsDocumented: FingerprintV2, whose room is reused
// from one fingerprint to the next, is its documented encoding for any
// answer, test and graders, fingerprint after fingerprint.
func FuzzFingerprintV2AsDocumented(f *testing.F) {
	f.Add("The answer  \r\n\n", "ask \n", `{"criteria":"c"}`, uint8(3), "contains:x\nllm-grader:<judge>\nrubric:tone", 0.25)
	f.Add("", "", "", uint8(0), "", 0.0)
	f.Add(strings.Repeat("long line  \n", 500), "\n\n", "t", uint8(7), "a\na\nb:\xff", 1e21)
	f.Fuzz(func(t *testing.T, answer, input, task string, parts uint8, keys string, score float64) {
		var graders []GraderResult
		for i, k := range strings.Split(keys, "\n") {
			g := GraderResult{Key: k}
			if i%3 != 1 {
				g.Score = ptr(score * float64(i))
			}
			if i%3 != 2 {
				g.Pass = ptr(i%2 == 0)
			}
			graders = append(graders, g)
		}
		if keys == "" {
			graders = nil
		}
		var test Test
		var in, tk *string
		if parts&1 != 0 {
			test.Input, in = strings.NewReader(input), &input
		}
		if parts&2 != 0 {
			test.Task, tk = iotest.HalfReader(strings.NewReader(task)), &task
		}
		want := documentedV2(t, answer, in, tk, graders)
		for range 2 { // the second takes the room the first gave back
			got, err := FingerprintV2(strings.NewReader(answer), test, graders)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("FingerprintV2 = %s, want %s", got, want)
			}
			test = Test{}
			if in != nil {
				test.Input = strings.NewReader(input)
			}
			if tk != nil {
				test.Task = strings.NewReader(task)
			}
		}
	})
}

// FuzzAppendScore: appendScore writes what strconv's shortest 'g' form
// does, whole numbers, -0, NaN and infinities included.
func FuzzAppendScore(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.25, 999999, 1e6, -999999, -1e6, 1e21, 0.1 + 0.2, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 62, -(1 << 63), 1e19} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if got, want := string(appendScore([]byte("x"), v)), "x"+strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Fatalf("appendScore(%v) = %q, want %q", v, got, want)
		}
	})
}
