package jsonnum

import (
	"encoding/json"
	"testing"
)

func FuzzValidMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "15.0", "1e0", "1E+9", "-", "01", "1.", ".5", "1e", "+1", "0x1", ""} {
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
