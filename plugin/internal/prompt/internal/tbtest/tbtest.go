// Package tbtest runs test helpers against a testing.TB that records their
// failures instead of failing the real test.
package tbtest

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TB records Errorf, Fatalf and Cleanup calls; other testing.TB methods
// panic.
type TB struct {
	testing.TB
	mu       sync.Mutex
	failures []string
	cleanups []func()
}

func (tb *TB) Helper() {}

func (tb *TB) Errorf(format string, args ...any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.failures = append(tb.failures, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the calling goroutine, like testing.T.
func (tb *TB) Fatalf(format string, args ...any) {
	tb.Errorf(format, args...)
	runtime.Goexit()
}

func (tb *TB) Fatal(args ...any) { tb.Fatalf("%s", fmt.Sprint(args...)) }

func (tb *TB) Cleanup(fn func()) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.cleanups = append(tb.cleanups, fn)
}

// Run calls fn in its own goroutine as a test body, then the registered
// cleanups in reverse order, and returns the recorded failures.
func Run(fn func(tb *TB)) []string {
	tb := &TB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for i := len(tb.cleanups) - 1; i >= 0; i-- {
				tb.cleanups[i]()
			}
		}()
		fn(tb)
	}()
	<-done
	return tb.failures
}
