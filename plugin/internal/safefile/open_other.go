//go:build !unix

package safefile

// nonBlocking is 0 where opening a special file does not block.
const nonBlocking = 0
