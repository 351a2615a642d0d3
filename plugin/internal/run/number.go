package run

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// parseNumber reads a valid JSON number literal as strconv.ParseFloat
// does, with the exact fast path for the short decimals manifests are full
// of (scores, weights): at most 15 digits and no exponent make an integer
// and a power of ten that are both exact in a float64, so one division
// rounds correctly. ok is false when the value is out of range.
func parseNumber(lit []byte) (v float64, ok bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	digits, frac, mant := 0, -1, uint64(0)
	for _, c := range lit[btoi(neg):] {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			digits = 99 // an exponent: the slow path
		}
	}
	if digits <= 15 {
		v = float64(mant)
		if frac > 0 {
			v /= pow10[frac]
		}
		if neg {
			v = -v
		}
		return v, true
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	return v, err == nil
}

// pow10 holds the powers of ten parseNumber divides by, all exact.
var pow10 = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseWhole reads a JSON number that means an integer (a sample index, a
// turn count). AgentV is JavaScript, where 15.0 and 1.5e1 are the number
// 15: any JSON number with an integral value that fits an int is accepted.
func parseWhole(lit []byte) (int, bool) {
	v, ok := parseNumber(lit)
	if !ok || v != math.Trunc(v) || v < math.MinInt64 || v >= math.MaxInt64 {
		return 0, false
	}
	return int(v), true
}

// whole is an int that decodes as parseWhole reads it; null leaves it
// unchanged, as for an int.
type whole int

func (w *whole) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v, ok := parseWhole(b)
	if !ok {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[int]()}
	}
	*w = whole(v)
	return nil
}
