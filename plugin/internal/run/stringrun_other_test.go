//go:build !amd64 || purego

package run

import "iter"

// scanModes runs stringScan once: it is stringEnd here.
func scanModes() iter.Seq[string] {
	return func(yield func(string) bool) { yield("Go") }
}
