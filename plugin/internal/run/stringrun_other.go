//go:build !amd64

package run

import "encoding/binary"

// stringRun returns the index of the first quote, backslash or control
// character from i on, checking eight bytes at a time; len(b) when none.
func stringRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^ones*'"', x^ones*'\\'
		// Each term flags a byte that is zero (q, bs) or below 0x20 (x);
		// a flag is only ever wrong above a real hit, so a hit is real.
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
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
