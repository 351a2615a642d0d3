package genrun

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// jsonl streams one compact JSON value per line, like AgentV's manifests
// (no HTML escaping, as JSON.stringify writes).
type jsonl struct {
	f   *os.File
	w   *bufio.Writer
	c   *counter
	enc *json.Encoder
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// createJSONL creates path; it fails when the file exists.
func createJSONL(path string) (*jsonl, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	c := &counter{w: w}
	enc := json.NewEncoder(c)
	enc.SetEscapeHTML(false)
	return &jsonl{f: f, w: w, c: c, enc: enc}, nil
}

func (j *jsonl) write(v any) error { return j.enc.Encode(v) }

// close flushes and closes the file and returns its size.
func (j *jsonl) close() (int64, error) {
	err := j.w.Flush()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return j.c.n, err
}

// writeManifest writes one JSONL line per row (line(r, seq) with seq
// counting from 1) to a new file at path and returns its size.
func writeManifest(path string, rows []*row, line func(r *row, seq int) any) (int64, error) {
	m, err := createJSONL(path)
	if err != nil {
		return 0, err
	}
	for i, r := range rows {
		if err := m.write(line(r, i+1)); err != nil {
			m.close()
			return 0, err
		}
	}
	return m.close()
}

// sumParallel writes the sidecars of every row in parallel and returns the
// total of the answer sizes write reports.
func sumParallel(rows []*row, write func(*row) (int64, error)) (int64, error) {
	sizes := make([]int64, len(rows))
	err := eachParallel(len(rows), func(i int) error {
		var err error
		sizes[i], err = write(rows[i])
		return err
	})
	var total int64
	for _, n := range sizes {
		total += n
	}
	return total, err
}

// writeJSON writes v indented by two spaces, as AgentV writes its sidecars.
func writeJSON(path string, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.TrimSuffix(b.String(), "\n")), 0o644)
}

// emptyDir creates dir, or checks that it holds nothing: the generator
// never writes over an earlier run.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return fmt.Errorf("%s is not empty: remove it or pick another folder", dir)
	}
	return nil
}

// mkdirs creates each folder in turn, the parent existing: one syscall
// each, where MkdirAll stats every level first.
func mkdirs(paths ...string) error {
	for _, p := range paths {
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// eachParallel runs fn(i) for i in [0,n) on a few goroutines (file creation
// is bound by syscalls, not CPU) and returns the first error.
func eachParallel(n int, fn func(i int) error) error {
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		failed  atomic.Bool
		first   error
	)
	for range min(n, 16) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || failed.Load() {
					return
				}
				if err := fn(i); err != nil {
					errOnce.Do(func() { first = err; failed.Store(true) })
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// hexOf is a stable hex digest of parts, for ids that look like AgentV's.
func hexOf(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// stat accumulates a mean and a population standard deviation.
type stat struct{ n, sum, sq float64 }

func (s *stat) add(x float64) { s.n++; s.sum += x; s.sq += x * x }

type meanStd struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

func (s stat) summary() meanStd {
	if s.n == 0 {
		return meanStd{}
	}
	m := s.sum / s.n
	return meanStd{Mean: round3(m), Stddev: round3(math.Sqrt(max(s.sq/s.n-m*m, 0)))}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
