package run

import "encoding/binary"

// stringRunWords is stringRun in portable Go, eight bytes at a time: the
// implementation on other architectures, and amd64's reference in tests.
func stringRunWords(b []byte, i int) (j int, escaped bool) {
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
