package feedback

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"agentv-review/bench/gen/genfeedback"
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
	for b.Loop() {
		if problems, err := Validate(data); err != nil || len(problems) > 0 {
			b.Fatal(err, problems)
		}
	}
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
