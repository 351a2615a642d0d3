package run

import (
	"slices"
	"sync"
)

// evalDefs shares the test definitions read from EVAL.yaml files among the
// cases of one Bases pass: the rows of a test on several targets name one
// bundle, which is read and parsed once (a file changed during the pass
// is seen as it was first read). A nil *evalDefs reads every time.
type evalDefs struct {
	mu sync.Mutex
	m  map[evalKey]*evalDef
}

type evalKey struct{ path, testID string }

type evalDef struct {
	once sync.Once
	task Task
}

// get is the eval part of the Task of k (see Run.evalTask), loaded by
// load the first time. Its slices are clipped: the Tasks that share them
// cannot append into one another's.
func (c *evalDefs) get(k evalKey, load func() Task) Task {
	if c == nil {
		return load()
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[evalKey]*evalDef{}
	}
	d := c.m[k]
	if d == nil {
		d = &evalDef{}
		c.m[k] = d
	}
	c.mu.Unlock()
	d.once.Do(func() {
		d.task = load()
		d.task.Assertions, d.task.Problems = slices.Clip(d.task.Assertions), slices.Clip(d.task.Problems)
	})
	return d.task
}
