package run

import "encoding/binary"

// stringRun returns the index of the first quote, control character or
// backslash from i on that does not start a two-byte escape (\" \\ \/ \b
// \f \n \r \t), len(b) when there is none, skipping those escapes eight
// bytes at a time; escaped tells whether it skipped one. It is stringEnd's
// scan: on amd64 only the reference of the assembly stringScan in tests.
func stringRun(b []byte, i int) (j int, escaped bool) {
	for {
		for ; i+8 <= len(b); i += 8 {
			if specialBytes(binary.LittleEndian.Uint64(b[i:])) != 0 {
				break
			}
		}
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
		}
		if i+1 >= len(b) || b[i] != '\\' || b[i+1] == 'u' || escapeLen(b[i:]) != 2 {
			return i, escaped
		}
		i += 2
		escaped = true
	}
}
