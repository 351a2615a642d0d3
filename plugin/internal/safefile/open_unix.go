//go:build unix

package safefile

import "syscall"

// nonBlocking makes opening a FIFO or a terminal return at once and never
// make it the controlling terminal; it changes nothing for a regular file.
const nonBlocking = syscall.O_NONBLOCK | syscall.O_NOCTTY
