//go:build !amd64

package run

// stringRun returns the index of the first quote, control character or
// backslash from i on that does not start a two-byte escape (\" \\ \/ \b
// \f \n \r \t), len(b) when there is none, skipping those escapes; escaped
// tells whether it skipped one.
func stringRun(b []byte, i int) (j int, escaped bool) { return stringRunWords(b, i) }

// stringScan is stringEnd.
func stringScan(b []byte, i int) (end int, ok, escaped bool) { return stringEnd(b, i) }
