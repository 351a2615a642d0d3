package app

import (
	"runtime"
	"sync"
)

// inOrderChunk is how many items one inOrder task covers.
const inOrderChunk = 512

// inOrder computes work over [0, n) in chunks of consecutive items on
// every core, and hands each chunk's result to use in order, one at a time
// on the calling goroutine: list formats a run's cases on both cores and
// writes them in rank order. Results are recycled: work gets a *R that an
// earlier chunk's use is done with (the zero R at first) and must reset it
// as it needs. The first error, of work or use, in chunk order, stops it.
// Memory stays bounded: at most 2×GOMAXPROCS chunks are in flight.
func inOrder[R any](n int, work func(lo, hi int, r *R) error, use func(r *R) error) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+inOrderChunk-1)/inOrderChunk))
	type task struct {
		lo, hi int
		r      *R
		err    error
		done   chan struct{}
	}
	tasks := make(chan *task, 2*workers) // in chunk order, to the caller
	todo := make(chan *task, 2*workers)  // the same tasks, to the workers
	pool := make(chan *R, 2*workers+2)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := range todo {
				t.err = work(t.lo, t.hi, t.r)
				close(t.done)
			}
		})
	}
	go func() { // hands out the chunks
		defer close(tasks)
		defer close(todo)
		for lo := 0; lo < n; lo += inOrderChunk {
			var r *R
			select {
			case r = <-pool:
			default:
				r = new(R)
			}
			t := &task{lo: lo, hi: min(n, lo+inOrderChunk), r: r, done: make(chan struct{})}
			select {
			case tasks <- t:
			case <-quit:
				return
			}
			todo <- t // never blocks: todo holds as many tasks as tasks
		}
	}()
	var err error
	for t := range tasks {
		<-t.done
		if err = t.err; err == nil {
			err = use(t.r)
		}
		if err != nil {
			break
		}
		pool <- t.r
	}
	close(quit)
	for range tasks { // let the hand-out end
	}
	wg.Wait()
	return err
}
