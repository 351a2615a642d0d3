//go:build !amd64 || purego

package run

import "bytes"

// newlineIndex is bytes.IndexByte(b, '\n').
func newlineIndex(b []byte) int { return bytes.IndexByte(b, '\n') }

// lastNewline is bytes.LastIndexByte(b, '\n') (see lastNewlineWords).
func lastNewline(b []byte) int { return lastNewlineWords(b) }
