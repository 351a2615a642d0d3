package run

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"agentv-review/bench/gen/genrun"
	"agentv-review/plugin/internal/safefile"
)

// TestBasesChunks: a Basis holds nothing of the chunk buffer it was
// read from, which Bases reuses: small chunks read what one does.
func TestBasesChunks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-07-06T11-31-36-988Z")
	if _, err := genrun.Write442(dir, genrun.Options{Rows: 200, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := func() []*Basis {
		out := make([]*Basis, len(r.Cases))
		var mu sync.Mutex
		if err := r.Bases(r.Cases, func(i int, b *Basis) error {
			mu.Lock()
			defer mu.Unlock()
			// The texts' bytes are Bases' after fn: kept as copies.
			b.Answer.Content, b.Input.Content = strings.Clone(b.Answer.Content), strings.Clone(b.Input.Content)
			out[i] = b
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	whole := all()
	defer func(chunk, gap int64) { basisChunk, basisGap = chunk, gap }(basisChunk, basisGap)
	basisChunk, basisGap = 4<<10, 1<<10
	for i, b := range all() {
		if !reflect.DeepEqual(b, whole[i]) {
			t.Fatalf("case %s read in 4 KiB chunks:\n%+v\nin one:\n%+v", b.Case.TestID, b, whole[i])
		}
	}
}

func TestSpellingGroupsFitNormalize(t *testing.T) {
	if len(rowSpellings) > 64 {
		t.Fatalf("%d rowSpellings groups: normalize keeps at most 64 in a uint64", len(rowSpellings))
	}
}

// TestSpellingsDoNotFold: no spelling normalize may add folds to a
// textField without being one, so textOf may ask skimmer.members, which
// looks at the keys before normalize.
func TestSpellingsDoNotFold(t *testing.T) {
	for _, names := range rowSpellings {
		for _, n := range names {
			if memberKeyOf(n).folds {
				t.Errorf("%s folds to a textField", n)
			}
		}
	}
}

var textSeeds = []string{
	`{"test_id":"a","output_path":"o/answer.md","input_path":"in\u0070ut.md","answer_path":null,"responsePath":"r.md"}`,
	`{"output":[{"role":"assistant","content":"hi <b>"}],"input":"q","answer":null,"output_text":1,"candidate_answer":{"x":[1, 2]}}`,
	`{"Output":"folded","output":"exact"}`,
	`{"INPUT_PATH":"folded.md"}`,
	`{"outputPath":"camel.md","output_path":3}`,
	`{"output_path":"bad \xff utf8","input":"\u00e9"}`,
	`{"ſcores":[],"output_text":"s"}`,
	`{}`,
}

// FuzzTextOf: where textOf decodes the answer and input fields itself, it
// finds what decodeRow does (go test runs the seeds).
func FuzzTextOf(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkTextOf(t, line) })
}

func checkTextOf(t *testing.T, line []byte) {
	t.Helper()
	var sk skimmer
	if !json.Valid(line) {
		return
	}
	m, err := sk.members(line, nil, nil)
	if err != nil {
		return // not an object
	}
	normalize(m, sk.renames)
	var want, got rowFull
	if err := (&Run{}).decodeRow(&Case{}, m, textFields, &want); err != nil {
		t.Fatal(err)
	}
	var v memberValues
	v.of(m)
	if !textOf(&v, sk.folds, &got) {
		return // decodeRow decodes it
	}
	for i, g := range textMembers(&got) {
		w := textMembers(&want)[i]
		if g.path != nil && *g.path != *w.path {
			t.Errorf("%q: %s = %q, want %q", line, g.name, *g.path, *w.path)
		}
		if g.raw != nil && !sameJSON(*g.raw, *w.raw) {
			t.Errorf("%q: %s = %s, want %s", line, g.name, *g.raw, *w.raw)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// normalizeByDeleting is how normalize renamed aliases before it kept a
// winning first spelling in place: every spelling deleted, the winner
// put back.
func normalizeByDeleting(m map[string]json.RawMessage) {
	for _, names := range rowSpellings {
		var win json.RawMessage
		want := valueKind(names[0])
		for _, name := range names {
			v, ok := m[name]
			if !ok {
				continue
			}
			if win == nil && jsonKind(v) == want {
				win = v
			}
			delete(m, name)
		}
		if win != nil {
			m[names[0]] = win
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"test_id":1,"testId":"b","eval_id":"c","suite":"s","dataset":null,"duration_ms":"x","durationMs":3,"token_usage":{}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var sk skimmer
		if !json.Valid(line) {
			return
		}
		got, err := sk.members(line, nil, nil)
		if err != nil {
			return
		}
		want := maps.Clone(got)
		normalize(got, sk.renames)
		normalizeByDeleting(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: normalize gives %q, want %q", line, got, want)
		}
	})
}

// FuzzMembersScores: members, decoding scores[] as it splits a row (what
// Bases does), splits it into the same members as without, and its
// scores[] is decodeScores of the "scores" member, prompts included.
func FuzzMembersScores(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s))
	}
	for _, s := range scoreSeeds {
		f.Add([]byte(`{"scores":` + s + `,"score":1}`))
		f.Add([]byte(`{"scores":[{"name":"first"}],"x":1,"scores":` + s + `}`))
	}
	f.Add([]byte(`{"scores":[{"input":{"userPrompt":"p"},"name":"a","name":"b"}],"Scores":[{"name":"folded"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return
		}
		var sk skimmer
		want, err := sk.members(line, nil, nil)
		if err != nil {
			return
		}
		want = maps.Clone(want)
		var rs rowScores
		got, err := sk.members(line, nil, &rs)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: members with scores = %q, %v; without: %q", line, got, err, want)
		}
		var wantScores []scoreRecord
		decodeScoresIn(&wantScores, want["scores"], &sk, false)
		gotScores := rs.list
		if !rs.ok {
			gotScores = nil
			decodeScoresIn(&gotScores, got["scores"], &sk, false)
		}
		if (len(gotScores) > 0 || len(wantScores) > 0) && !reflect.DeepEqual(gotScores, wantScores) {
			t.Fatalf("%q: scores[] decoded as split %+v, by decodeScoresIn (not full) %+v", line, gotScores, wantScores)
		}
	})
}

// TestRecentKeepsTheLastTwo: the texts of a row, two gets in a row (hits
// or reads), are never read over by each other, even when the first is a
// hit on the slot recent takes next.
func TestRecentKeepsTheLastTwo(t *testing.T) {
	var c recent
	n := 0
	read := func(room *[]byte) Text {
		n++
		b := append((*room)[:0], fmt.Sprint("text ", n)...)
		*room = b[:0]
		return Text{Content: unsafe.String(unsafe.SliceData(b), len(b))}
	}
	paths := []string{"a", "b", "c", "d", "a", "e", "a", "a", "f", "g", "b", "h"}
	for i := 0; i+1 < len(paths); i++ {
		first := c.get(paths[i], read)
		want := strings.Clone(first.Content)
		second := c.get(paths[i+1], read)
		if first.Content != want {
			t.Fatalf("get(%q) then get(%q): the first text became %q, was %q (second %q)", paths[i], paths[i+1], first.Content, want, second.Content)
		}
	}
}

// sameBases checks that every case of r gets the same Basis, and the same
// warnings and error, read from its row's spans as split (the path Bases
// takes without spans), and returns how many were read from spans.
func sameBases(t *testing.T, r *Run, what string) (spanned int) {
	t.Helper()
	manifest, err := os.ReadFile(r.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := safefile.OpenDir(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	for _, c := range r.Cases {
		line := manifest[c.Loc.Offset : c.Loc.Offset+int64(c.Loc.Length)]
		spans := r.spansOf(c)
		var fast, split scratch
		got, gotErr := r.basis(c, line, spans, &fast, dir, nil)
		want, wantErr := r.basis(c, line, "", &split, dir, nil)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s, line %d: from spans %q: %v; split: %v", what, c.Loc.Line, spans, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(fast.d.Warnings, split.d.Warnings) {
			t.Fatalf("%s, line %d: from spans %q:\n%+v\n%v\nsplit:\n%+v\n%v", what, c.Loc.Line, spans, got, fast.d.Warnings, want, split.d.Warnings)
		}
		if fast.m == nil { // never split
			spanned++
		}
	}
	return spanned
}

// TestBasesFromSpans: the cases of the 4.42.4 corpus and of the upstream
// fixtures get the Basis from their spans that splitting their rows gives,
// and most are read from spans.
func TestBasesFromSpans(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(corpus, "runs", "*"))
	more, _ := filepath.Glob("../../../../shared/fixtures/agentv-*/*")
	cases, spanned := 0, 0
	for _, dir := range append(runs, more...) {
		r, err := Open(dir, Options{})
		if err != nil {
			continue // not a run (a README)
		}
		cases += len(r.Cases)
		spanned += sameBases(t, r, dir)
	}
	t.Logf("%d of %d cases read from spans", spanned, cases)
	if cases < 50 || spanned < cases/2 {
		t.Fatalf("%d of %d cases read from spans", spanned, cases)
	}
}

// FuzzBasesFromSpans: for any row, the Basis read from its spans is the
// one splitting it gives (go test runs the seeds).
func FuzzBasesFromSpans(f *testing.F) {
	for _, line := range skimCorpusLines(f) {
		f.Add(string(line))
	}
	for _, s := range textSeeds {
		f.Add(strings.Replace(s, "{", `{"score":1,`, 1))
	}
	for _, s := range []string{
		`{"score":1,"test_id":"t","eval_path":"a/task/EVAL.yaml","answer_path":"a/answer.md","input_path":"a/input.md","scores":[{"name":"g","input":{"userPrompt":"[[ ## criteria ## ]]\ncrit"}}]}`,
		`{"score":1,"test_id":"t","eval_path":"a/task/EVAL.yaml","evalPath":"b/EVAL.yaml","answer_path":"a/answer.md"}`,
		`{"score":1,"test_id":"t","eval_path":null,"evalPath":"a/task/EVAL.yaml","output_path":"a/answer.md"}`,
		`{"score":1,"test_id":"t","answer_path":"a/answer.md","answer_path":"a/input.md"}`,
		`{"score":1,"test_id":"t","answer_path":5,"answerPath":"a/answer.md"}`,
		`{"score":1,"test_id":"t","Answer_Path":"a/input.md","answer_path":"a/answer.md"}`,
		`{"score":1,"test_id":"t","reſponse_path":"a/input.md","response_path":"a/answer.md"}`,
		`{"score":1,"test_id":"t","eval\u005fpath":"a/task/EVAL.yaml","input_path":"a\/input.md","scores":{}}`,
		`{"score":1,"test_id":"t","scores":[1,{"name":"n","name":"m"}],"scores":[{"input":"x"}],"output":[{"role":"assistant","content":"o"}]}`,
		` {"score":1, "test_id" : "t" , "input_path" :	"a/input.md" , "eval_path":"a/task/EVAL.yaml"} `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return // one row per input
		}
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"index.jsonl":       line + "\n",
			"a/answer.md":       "the answer",
			"a/input.md":        "the input",
			"a/task/EVAL.yaml":  "tests:\n  - id: t\n    criteria: be right\n",
			"b/EVAL.yaml":       "tests:\n  - id: t\n    expected_output: yes\n",
			"a/outputs/resp.md": "@[assistant]:\nhi",
		})
		r, err := Open(dir, Options{})
		if err != nil {
			return
		}
		sameBases(t, r, fmt.Sprintf("%q", line))
	})
}

// FuzzSpanKey: spanKey finds a key in spanKeys, and a key lowerASCII
// accepts folds to no textField without being it (go test runs the seeds).
func FuzzSpanKey(f *testing.F) {
	for _, k := range append(spanKeys, "Output", "INPUT_PATH", "reſponse_path", "evalpath", "", "score", "candidate_answers",
		"output_patH", "Output_path", "output_\xffath", "abcdefgZ", "abcdefg@[`{", "exec\x7fution_status") {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if got, want := spanKey([]byte(key)), slices.Index(spanKeys, key); got != want {
			t.Fatalf("spanKey(%q) = %d, want %d", key, got, want)
		}
		lower := !strings.ContainsFunc(key, func(c rune) bool { return c >= 0x80 || 'A' <= c && c <= 'Z' })
		if got := lowerASCII([]byte(key)); got != lower {
			t.Fatalf("lowerASCII(%q) = %v", key, got)
		}
		if lower && fieldOf(key, textFields) == len(textFields) {
			t.Fatalf("%q folds to a textField", key)
		}
	})
}
