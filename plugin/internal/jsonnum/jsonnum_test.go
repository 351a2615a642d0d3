package jsonnum

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

var seeds = []string{"0", "-0", "1.5", "15.0", "1e0", "1E+9", "-", "01", "1.", ".5", "1e", "+1", "0x1", "",
	"-0.0", "0.1", "0.3", "1e400", "-1e-400", "9007199254740993", "9007199254740992.5", "123456789012345678.9",
	"0.0000000000000000000001", "1.00000000000000000000001", "Inf", "NaN", "1_0", "4.9e-324"}

func FuzzValidMatchesEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n json.Number
		want := json.Unmarshal([]byte(s), &n) == nil && string(n) == s
		if got := Valid(s); got != want || Valid([]byte(s)) != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	})
}

// FuzzFloatMatchesParseFloat checks Float against Valid and
// strconv.ParseFloat, to the bit (-0 included).
func FuzzFloatMatchesParseFloat(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, valid, ok := Float(s)
		if valid != Valid(s) {
			t.Fatalf("Float(%q) valid = %v, Valid says %v", s, valid, !valid)
		}
		if !valid {
			if ok {
				t.Fatalf("Float(%q) ok for an invalid number", s)
			}
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Float(%q) = %v, %v; ParseFloat: %v, %v", s, got, ok, want, err)
		}
	})
}
