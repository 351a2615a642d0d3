package run

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// parseWhole reads a JSON number that means an integer (a sample index, a
// turn count). AgentV is JavaScript, where 15.0 and 1.5e1 are the number
// 15: any JSON number with an integral value that fits an int is accepted.
func parseWhole(lit []byte) (int, bool) {
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || v != math.Trunc(v) || v < math.MinInt64 || v >= math.MaxInt64 {
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
