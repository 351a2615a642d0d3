package run

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchManifest writes a manifest of n rows made from the real 4.42.4 rows
// (with their large scores[].input prompts), each with a unique test_id.
func benchManifest(b *testing.B, n int) (dir string, size int64) {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(corpus, "runs", "core-pass-fail-error", "index.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
	dir = b.TempDir()
	f, err := os.Create(filepath.Join(dir, "index.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		w.Write(bytes.Replace(lines[i%len(lines)], []byte(`"test_id":"`), fmt.Appendf(nil, `"test_id":"%06d-`, i), 1))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return dir, info.Size()
}

func BenchmarkOpen(b *testing.B) {
	dir, size := benchManifest(b, 10_000)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Cases) != 10_000 {
			b.Fatalf("%d cases", len(r.Cases))
		}
	}
}

func BenchmarkDetail(b *testing.B) {
	r := mustOpen(b, filepath.Join(corpus, "runs", "core-pass-fail-error"), Options{})
	c, err := r.Find("capital-france")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Detail(c); err != nil {
			b.Fatal(err)
		}
	}
}
