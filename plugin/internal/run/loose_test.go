package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// looseEndBytes is looseEnd a byte at a time: the reference the tests
// hold looseEnd to. A backslash escapes the byte after it, counted from
// the start of the line.
func looseEndBytes(b []byte, i int) (int, bool) {
	escaped := escapedBytes(b)
	depth, inString := 0, false
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case escaped[i]:
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return len(b), false
}

// escapedBytes tells which bytes of b a backslash escapes, counted from
// the start (one more than b, for the byte after it).
func escapedBytes(b []byte) []bool {
	escaped := make([]bool, len(b)+1)
	for k := 0; k < len(b); k++ {
		if b[k] == '\\' {
			escaped[k+1] = true
			k++
		}
	}
	return escaped
}

// outsideStrings tells whether b[i] is neither escaped nor after an odd
// number of unescaped quotes: where looseEnd may start.
func outsideStrings(b []byte, i int) bool {
	escaped := escapedBytes(b)
	inString := false
	for k := range i {
		if b[k] == '"' && !escaped[k] {
			inString = !inString
		}
	}
	return !inString && !escaped[i]
}

// looseEndOf is looseEnd of b from start.
func looseEndOf(b []byte, start int) (int, bool) {
	s := skimmer{b: b}
	return s.looseEnd(start)
}

// FuzzLooseEnd: from any bracket outside strings, looseEnd ends where a
// byte loop counting brackets outside strings ends, and on a well-formed
// value exactly where the value ends.
func FuzzLooseEnd(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"}\"]"},"\\"]}, "x"`), 0)
	f.Add([]byte(`[`+strings.Repeat(`"\\\\\"[{",`, 20)+`]]`), 0)
	f.Add(append(append([]byte(`{"k":"`), bytes.Repeat([]byte{'\\'}, 63)...), `"}"}`...), 0)
	f.Add([]byte(`x{"a":{"b":{"c":[[[]]]}}}`), 1)
	f.Add(append(bytes.Repeat([]byte(`{"k":"v"},`), 13), ']'), 9)
	f.Fuzz(func(t *testing.T, b []byte, start int) {
		if start < 0 || start >= len(b) || b[start] != '{' && b[start] != '[' || !outsideStrings(b, start) {
			return
		}
		end, ok := looseEndOf(b, start)
		wantEnd, wantOK := looseEndBytes(b, start)
		if end != wantEnd || ok != wantOK {
			t.Fatalf("looseEnd(%q, %d) = %d, %v; want %d, %v", b, start, end, ok, wantEnd, wantOK)
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b[start:]))
		if (start == 0 || b[start-1] != '\\') && d.Decode(&v) == nil && (!ok || end-start != int(d.InputOffset())) {
			t.Fatalf("looseEnd(%q, %d) = %d, %v; the value ends at %d", b, start, end, ok, start+int(d.InputOffset()))
		}
	})
}

// TestCheckKeptOnly reads the runs of TestKeep with Read(keep) checking
// every row and under Options.CheckKeptOnly: the same run (sameKeptRead).
func TestCheckKeptOnly(t *testing.T) {
	for name, dir := range readModeRuns(t) {
		for _, keep := range []func(string) bool{func(string) bool { return false }, func(id string) bool { return id == "a" || strings.HasSuffix(id, "1") }} {
			t.Run(name, func(t *testing.T) {
				strict, serr := readKept(dir, Options{Outline: true}, keep)
				loose, err := readKept(dir, Options{Outline: true, CheckKeptOnly: true}, keep)
				if serr != nil || err != nil {
					t.Fatal(serr, err)
				}
				sameKeptRead(t, strict, loose)
			})
		}
	}
}

// FuzzCheckKeptOnly: for any manifest, a read under Options.CheckKeptOnly
// reads the run a strict read does (sameKeptRead) when that one succeeds;
// when it fails, it fails alike or on a later line (a row not kept is
// checked only for what it is read for), and fails only where the
// strict read fails too; and TestIDAt names every position it read.
func FuzzCheckKeptOnly(f *testing.F) {
	f.Add("{\"test_id\":\"a\",\"score\":1,\"scores\":[{\"type\":\"t\",\"verdict\":\"fail\",\"x\":{\"y\":[1,2]}}]}\n\n{\"test_id\":\"b\",\"target\":\"x\",\"score\":0.5,\"result_dir\":\"one\",\"m\":{\"n\":tru}}\n{\"test_id\":\"a\",\"score\":0}\n{\"test_id\":\"b\"")
	f.Add("{\"test_id\":\"b\",\"score\":1,\"m\":[{]}\n{\"test_id\":\"a\",\"variant\":\"v\",\"score\":1,\"samples\":[{\"status\":\"pass\"}]}\n")
	f.Add("{\"test_id\":\"c\",\"score\":1,\"scores\":[{\"score\":\"x\"}]}\n{\"test_id\":\"a\",\"m\":{\"k\":\"\\\"}\"}}\n")
	f.Fuzz(func(t *testing.T, manifest string) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"index.jsonl": manifest})
		keep := func(id string) bool { return id == "a" }
		strict, serr := readKept(dir, Options{Outline: true}, keep)
		loose, err := readKept(dir, Options{Outline: true, CheckKeptOnly: true}, keep)
		switch {
		case serr == nil && err == nil:
			sameKeptRead(t, strict, loose)
		case serr == nil:
			t.Fatalf("a loose read fails (%v) where the strict one does not", err)
		case err == nil: // a row not kept is malformed: it still names its test id
			for i := range loose.Len() {
				if _, err := loose.TestIDAt(i); err != nil {
					t.Fatalf("TestIDAt(%d) of a loose read: %v", i, err)
				}
			}
		case err != nil && errLine(err) <= errLine(serr) && err.Error() != serr.Error():
			t.Fatalf("loose read: %v; strict read: %v", err, serr)
		}
	})
}

func readKept(dir string, opts Options, keep func(string) bool) (*Run, error) {
	r, err := Locate(dir, opts)
	if err != nil {
		return nil, err
	}
	return r, r.Read(keep)
}

// errLine is the manifest line an error names (0 for none).
func errLine(err error) int {
	var line int
	if _, after, ok := strings.Cut(err.Error(), "index.jsonl:"); ok {
		fmt.Sscanf(after, "%d", &line)
	}
	return line
}

// sameKeptRead checks that loose, a read under Options.CheckKeptOnly, read
// the run strict did: the same size, counts, rows and kept cases (each
// named and found alike), the same test id at every position; its
// warnings are strict's but for those of nested values in rows not kept.
func sameKeptRead(t *testing.T, strict, loose *Run) {
	t.Helper()
	sp, sf, se := strict.Counts()
	p, f, e := loose.Counts()
	if loose.Len() != strict.Len() || loose.Rows != strict.Rows || [3]int{p, f, e} != [3]int{sp, sf, se} {
		t.Fatalf("%d cases, %d rows, counts %d/%d/%d; want %d, %d, %d/%d/%d", loose.Len(), loose.Rows, p, f, e, strict.Len(), strict.Rows, sp, sf, se)
	}
	for _, w := range loose.Warnings {
		if !slices.Contains(strict.Warnings, w) {
			t.Fatalf("warning %v; the strict read's: %v", w, strict.Warnings)
		}
	}
	if !reflect.DeepEqual(loose.Cases, strict.Cases) {
		t.Fatalf("cases:\n%+v\nwant\n%+v", loose.Cases, strict.Cases)
	}
	for _, c := range strict.Cases {
		ref := strict.Ref(c)
		if found, err := loose.Find(ref); loose.Ref(c) != ref || err != nil || found.Index != c.Index {
			t.Errorf("Ref %q, Find(%q) = %v, %v", loose.Ref(c), ref, found, err)
		}
	}
	for i := range strict.Len() {
		id, err := strict.TestIDAt(i)
		lid, lerr := loose.TestIDAt(i)
		if id != lid || !errors.Is(lerr, err) && fmt.Sprint(lerr) != fmt.Sprint(err) {
			t.Errorf("TestIDAt(%d) = %q, %v; want %q, %v", i, lid, lerr, id, err)
		}
	}
}

// TestLooseEndDense holds looseEnd to the byte loop on random lines of
// nothing but quotes, backslashes and brackets (and a letter), from every
// bracket outside strings: runs of backslashes and strings that cross
// block boundaries everywhere, which a fuzzer finds only slowly. Each
// line is skipped from its brackets in order, then in reverse.
func TestLooseEndDense(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const alphabet = `"\\{}[]a`
	for range 3000 {
		b := make([]byte, 1+rnd.IntN(400))
		for k := range b {
			b[k] = alphabet[rnd.IntN(len(alphabet))]
		}
		var starts []int
		for start, c := range b {
			if (c == '{' || c == '[') && outsideStrings(b, start) {
				starts = append(starts, start)
			}
		}
		s := skimmer{b: b}
		backward := slices.Clone(starts)
		slices.Reverse(backward)
		for _, start := range append(starts, backward...) {
			end, ok := s.looseEnd(start)
			if wantEnd, wantOK := looseEndBytes(b, start); end != wantEnd || ok != wantOK {
				t.Fatalf("looseEnd(%q, %d) = %d, %v; want %d, %v", b, start, end, ok, wantEnd, wantOK)
			}
		}
	}
}

// BenchmarkLooseEnd skips a line holding an array of 5000 grader-like
// objects (a bracket every 15 bytes, escaped quotes in every object): MB/s
// is bytes skipped.
func BenchmarkLooseEnd(b *testing.B) {
	line := []byte("[" + strings.Repeat(`{"name":"contains-patch","type":"contains","assertions":[{"text":"Output contains \\"patch\\"","passed":false}],"x":[1,2,3]},`, 5000) + "0]")
	b.SetBytes(int64(len(line)))
	var s skimmer
	s.b = line
	for b.Loop() {
		if end, ok := s.looseEnd(0); !ok || end != len(line) {
			b.Fatal(end, ok)
		}
	}
}

// compactAsObject checks that compactRow reads line as object(nil) does
// in a loose read: when it takes the row, the same rowWire, type error and
// end; when it does not, nothing (the row begun again, for object).
func compactAsObject(t *testing.T, line []byte) (taken bool) {
	t.Helper()
	fast := skimmer{in: interner{}, views: true, loose: true}
	plain := skimmer{in: interner{}, views: true, loose: true}
	fast.begin(line)
	ok := fast.compactRow()
	plain.begin(line)
	err := plain.object(nil)
	if !ok {
		if fresh := (skimmer{}); fast.i != 0 || fast.typeErr != "" || !reflect.DeepEqual(fast.w, fresh.w) || fast.closedAt != 0 {
			t.Fatalf("compactRow(%q) = false, having read %+v (i %d, type error %q)", line, fast.w, fast.i, fast.typeErr)
		}
		return false
	}
	if err != nil || !reflect.DeepEqual(fast.w, plain.w) || fast.typeErr != plain.typeErr || fast.i != plain.i || fast.closedAt != 0 {
		t.Fatalf("compactRow(%q): %+v, type error %q, at %d; object: %v, %+v, %q, at %d", line, fast.w, fast.typeErr, fast.i, err, plain.w, plain.typeErr, plain.i)
	}
	return true
}

// writtenCompact tells whether line is a well-formed object written as
// AgentV writes rows: no space between its tokens (json.Compact leaves it
// as it is) and no escape in its member names.
func writtenCompact(line []byte) bool {
	var c bytes.Buffer
	if json.Compact(&c, line) != nil || !bytes.Equal(c.Bytes(), line) {
		return false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(line, &members) != nil {
		return false
	}
	for name := range members {
		if plain, _ := json.Marshal(name); !bytes.Contains(line, append(plain, ':')) || bytes.ContainsRune(plain, '\\') {
			return false
		}
	}
	return true
}

// FuzzCompactRow: compactRow reads any line as a loose read's object(nil)
// does, or leaves it to it (compactAsObject).
func FuzzCompactRow(f *testing.F) {
	for _, r := range skimEdgeRows {
		f.Add(r)
	}
	f.Add(`{"test_id":"a","score":1,"scores":[{"type":"t"}],"x":{"y":"}"},"n":-1.5e3,"t":true,"error":"e\"q"}`)
	f.Add(`{"a":"b","test_id":{"k":[1,"]"]},"score":"1","result_dir":null,"m":[],"z":01}`)
	f.Add(`{"a\u0062":1,"score":1}`)
	f.Add(`{"score":1,"scores":[{]},"q":1}`)
	f.Add(`{"score":1 ,"q":"x"}`)
	f.Add(`{"score":1,"q":"x""y":2}`)
	f.Fuzz(func(t *testing.T, line string) {
		compactAsObject(t, []byte(line))
	})
}

// TestCompactRowCorpus holds compactRow to object (compactAsObject) on
// every corpus row and its grammarChanges, and has it take every corpus
// row written compactly (a compactRow that gave every row to object would
// pass compactAsObject).
func TestCompactRowCorpus(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for _, line := range skimCorpusLines(t) {
		if !compactAsObject(t, line) && writtenCompact(line) {
			t.Fatalf("compactRow left %q, written compactly, to object", line)
		}
		if writtenCompact(line) {
			taken++
		}
		grammarChanges(line, rnd, func(b []byte) { compactAsObject(t, b) })
	}
	if taken == 0 {
		t.Fatal("no corpus row is written compactly: compactRow is not tested on one it takes")
	}
	t.Logf("compactRow took %d corpus rows", taken)
}

// grammarChanges calls check with line (up to 4 KiB of it) changed in one
// byte, at a third of its places chosen by rnd, to one that matters to
// the grammar: a quote, a backslash, a bracket, a comma, a colon, a space,
// a control character, a digit or a minus.
func grammarChanges(line []byte, rnd *rand.Rand, check func([]byte)) {
	const grammar = "\"\\{}[],: \x01\n0-"
	b := slices.Clone(line[:min(len(line), 4096)])
	for k := range b {
		if rnd.IntN(3) != 0 {
			continue
		}
		was := b[k]
		b[k] = grammar[rnd.IntN(len(grammar))]
		check(b)
		b[k] = was
	}
}

// TestRowNames: rowNames has every name rowField reads (its cases, read
// from skim.go), and they are rowWire's names.
func TestRowNames(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "skim.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	ast.Inspect(file, func(n ast.Node) bool {
		if fn, ok := n.(*ast.FuncDecl); ok && fn.Name.Name == "rowField" {
			ast.Inspect(fn, func(n ast.Node) bool {
				if cc, ok := n.(*ast.CaseClause); ok {
					for _, e := range cc.List {
						if lit, ok := e.(*ast.BasicLit); ok {
							name, _ := strconv.Unquote(lit.Value)
							cases = append(cases, name)
						}
					}
				}
				return true
			})
		}
		return true
	})
	var tags []string
	for f := range reflect.TypeFor[rowWire]().Fields() {
		tags = append(tags, f.Tag.Get("json"))
	}
	slices.Sort(cases)
	slices.Sort(tags)
	if len(cases) < 20 || !slices.Equal(cases, tags) {
		t.Fatalf("rowField reads %q; rowWire has %q", cases, tags)
	}
	for _, name := range cases {
		if !rowNames.has([]byte(name)) {
			t.Errorf("rowNames lacks %q", name)
		}
	}
}
