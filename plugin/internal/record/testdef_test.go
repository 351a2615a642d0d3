package record

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"agentv-review/plugin/internal/run"
)

// fuzzAssertions builds assertions from a seed, words and a weight: every
// field set or left empty, children nested up to depth.
func fuzzAssertions(rng *rand.Rand, words []string, weight float64, depth int) []run.Assertion {
	word := func() string { return words[rng.IntN(len(words))] }
	maybe := func() *float64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		w := weight * float64(rng.IntN(4))
		return &w
	}
	as := make([]run.Assertion, rng.IntN(4))
	for i := range as {
		a := run.Assertion{Name: word(), Type: word(), Value: word(), Negate: rng.IntN(2) == 0, Required: word(), Weight: maybe()}
		for range rng.IntN(3) {
			a.Settings = append(a.Settings, run.Setting{Key: word(), Value: word()})
		}
		for range rng.IntN(3) {
			a.Rubrics = append(a.Rubrics, run.Rubric{ID: word(), Outcome: word(), Operator: word(), Weight: maybe(), Required: rng.IntN(2) == 0})
		}
		if rng.IntN(4) == 0 {
			a.Settings = []run.Setting{} // empty, not nil: omitted as well
		}
		if depth > 0 {
			a.Children = fuzzAssertions(rng, words, weight, depth-1)
		}
		as[i] = a
	}
	return as
}

// FuzzTestDefJSON: a testDef's appendJSON writes what json.Marshal writes
// of it (what fingerprints hashed before), or fails with its error.
func FuzzTestDefJSON(f *testing.F) {
	f.Add("Say <hi> & \"bye\"", "in\u2028put", "", uint64(1), "a\n\nb:c\x00\xff\n日本", 0.5)
	f.Add("", "", "", uint64(0), "", 0.0)
	f.Add("c", "i", "e", uint64(7), "x", math.NaN())
	f.Add("c", "", "", uint64(3), "w\nv", 1e-7)
	f.Fuzz(func(t *testing.T, criteria, input, expected string, seed uint64, words string, weight float64) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		d := testDef{Criteria: criteria, Input: input, Expected: expected}
		if seed%5 != 0 {
			d.Assertions = fuzzAssertions(rng, append(strings.Split(words, "\n"), ""), weight, 2)
		}
		want, wantErr := json.Marshal(d)
		got, err := d.appendJSON([]byte("kept"))
		if wantErr != nil || err != nil {
			if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("appendJSON error %v, json.Marshal error %v", err, wantErr)
			}
			return
		}
		if string(got) != "kept"+string(want) {
			t.Fatalf("appendJSON = %s\njson.Marshal = %s", got, want)
		}
	})
}

// TestTestDefJSONWritesEveryField fills every field of a testDef, at every
// level, by reflection: a field added to run.Assertion, Setting or Rubric
// that appendJSON does not write by hand would drop out of fingerprints
// (json.Marshal, which it replaces, wrote every field), and fails here.
func TestTestDefJSONWritesEveryField(t *testing.T) {
	var d testDef
	fillEvery(reflect.ValueOf(&d).Elem(), 2)
	want, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("appendJSON writes these fields by hand: update it (and decide on a fingerprint version)\nappendJSON = %s\njson.Marshal = %s", got, want)
	}
}

// fillEvery sets every field of v, a settable value, to something no
// omitempty drops: slices get two elements, nested to depth.
func fillEvery(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(0.25)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem(), depth)
	case reflect.Slice:
		if depth < 0 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillEvery(v.Index(i), depth-1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillEvery(v.Field(i), depth)
		}
	default:
		panic("fillEvery: no rule for " + v.Kind().String())
	}
}
