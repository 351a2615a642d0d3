package feedback

import (
	"bytes"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"agentv-review/bench/gen/genfeedback"
	"agentv-review/plugin/internal/caseid"
)

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

// bench100k writes a 100k-entry feedback file shaped like apply's once, to
// one fixed file in the temp folder that later runs reuse (it is 78 MB).
func bench100k(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		var data []byte
		if data, benchErr = genfeedback.JSON("run100k", genfeedback.IDs(100_000)); benchErr == nil {
			benchPath = filepath.Join(os.TempDir(), "agentv-review-feedback-bench-100k.json")
			benchErr = os.WriteFile(benchPath, data, 0o644)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

// BenchmarkLoad100k is the read of status, list and history.
func BenchmarkLoad100k(b *testing.B) {
	path := bench100k(b)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Load(path)
		if err != nil || len(f.PerCase) != 100_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate100k is `agentv review validate` without the printing.
func BenchmarkValidate100k(b *testing.B) {
	data, err := os.ReadFile(bench100k(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if problems, err := Validate(data); err != nil || len(problems) > 0 {
			b.Fatal(err, problems)
		}
	}
}

// BenchmarkEncode100k is the write of apply: encoding and validating
// 100k entries, written as Write writes them.
func BenchmarkEncode100k(b *testing.B) {
	f, err := Load(bench100k(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if problems, err, _ := writeChecked(io.Discard, f); err != nil || len(problems) > 0 {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the CPU time (user and system, all threads) per
// operation of the loop it is deferred around, as cpu-ms/op: on a shared
// machine it varies less than the wall time.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWCL100k is the reference: read the file and count its lines, as wc -l does.
func BenchmarkWCL100k(b *testing.B) {
	path := bench100k(b)
	for b.Loop() {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		_ = bytes.Count(data, []byte("\n"))
	}
}

// BenchmarkLoadView100k is the read of status and list: the file bound to
// the 100k cases it judges.
func BenchmarkLoadView100k(b *testing.B) {
	path := bench100k(b)
	gen := genfeedback.IDs(100_000)
	cases := indexedIDs{byTestID: map[string][]int{}}
	for i, id := range gen {
		cases.ids = append(cases.ids, caseid.ID{TestID: id.TestID, Target: id.Target, Suite: id.Suite})
		cases.byTestID[id.TestID] = append(cases.byTestID[id.TestID], i)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		v, err := LoadView(path, "run100k", cases)
		if err != nil || reviewedIn(v) != len(gen) {
			b.Fatal(err, reviewedIn(v))
		}
	}
}

// indexedIDs is ids with the test id index a run has.
type indexedIDs struct {
	ids
	byTestID map[string][]int
}

func (l indexedIDs) WithTestID(t string) iter.Seq[int] { return slices.Values(l.byTestID[t]) }

// EachWithTestID makes indexedIDs a caseid.TestIDIndex, as a run's cases are.
func (l indexedIDs) EachWithTestID(t string, yield func(int, caseid.ID) bool) {
	for _, i := range l.byTestID[t] {
		if !yield(i, l.ID(i)) {
			return
		}
	}
}

// reviewedIn counts the cases of v's run that have an entry, making each
// as status does.
func reviewedIn(v *View) int {
	n := 0
	var buf Scratch
	for i := range v.byCase {
		if v.EntryIn(i, &buf) != nil {
			n++
		}
	}
	return n
}
