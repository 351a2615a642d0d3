//go:build !amd64

package run

import "encoding/binary"

// stringRun returns the index of the first quote, backslash or control
// character from i on, checking eight bytes at a time; len(b) when none.
func stringRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if specialBytes(binary.LittleEndian.Uint64(b[i:])) != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
