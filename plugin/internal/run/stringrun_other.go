//go:build !amd64 || purego

package run

// stringScan is stringEnd.
func stringScan(b []byte, i int) (end int, ok, escaped bool) { return stringEnd(b, i) }
