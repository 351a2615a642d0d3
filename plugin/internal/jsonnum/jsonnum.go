// Package jsonnum checks JSON's number grammar, for the hand-written
// decoders of run rows and feedback files.
package jsonnum

import "strconv"

// Valid reports whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func Valid[T ~string | ~[]byte](s T) bool { return End(s, 0) == len(s) }

// End reads the number at s[i:] by that grammar, each part as long as it
// goes, and returns where it ends; -1 when a part is missing or empty.
// s[i:] is a number when End returns len(s); when the byte at the end
// can continue a literal, s[i:] is none.
func End[T ~string | ~[]byte](s T, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch j := digits(s, i); {
	case i < len(s) && s[i] == '0':
		i++
	case j == i:
		return -1
	default:
		i = j
	}
	if i < len(s) && s[i] == '.' {
		if i = digits(s, i+1); s[i-1] == '.' {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// digits is the end of the run of decimal digits in s from i.
func digits[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// Float returns the float64 nearest the number s, as
// strconv.ParseFloat(s, 64) does; valid reports whether s is a JSON
// number (Valid), ok whether it is one and ParseFloat reports no error
// (its value is within float64's range). A short decimal without
// exponent, the common case, costs one scan.
func Float(s string) (f float64, valid, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	var mant uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		mant = mant*10 + uint64(s[i]-'0')
	}
	whole, frac := i-start, 0
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			mant = mant*10 + uint64(s[i]-'0')
		}
		if frac = i - j; frac == 0 {
			return 0, false, false
		}
	}
	// A mantissa and a power of ten that float64 holds exactly make one
	// correctly rounded division, as ParseFloat's exact path does.
	if i == len(s) && (whole == 1 || whole > 1 && s[start] != '0') && whole+frac <= 19 && mant < 1<<53 && frac < len(pow10) {
		f = float64(mant) / pow10[frac]
		if start > 0 {
			f = -f
		}
		return f, true, true
	}
	if !Valid(s) {
		return 0, false, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, true, err == nil
}

// pow10 are the powers of ten float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
