package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"agentv-review/bench/gen/genrun"
)

// generatedRun returns a run written by genrun, cached under the user cache
// directory (agentv-review-bench/<layout>-<rows>) so a 100k-row run is
// written once, not per benchmark. Delete that folder after changing genrun.
func generatedRun(b *testing.B, layout string, rows int) (dir string, st genrun.Stats) {
	b.Helper()
	write := map[string]func(string, genrun.Options) (genrun.Stats, error){"442": genrun.Write442, "v5": genrun.WriteV5}[layout]
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "agentv-review-bench")
	dir = filepath.Join(root, fmt.Sprintf("%s-%d", layout, rows), "2026-07-06T11-31-36-988Z")
	done := filepath.Join(filepath.Dir(dir), "stats.json")
	if b, err := os.ReadFile(done); err == nil && json.Unmarshal(b, &st) == nil {
		return dir, st
	}
	if err := os.RemoveAll(filepath.Dir(dir)); err != nil {
		b.Fatal(err)
	}
	if st, err = write(dir, genrun.Options{Rows: rows, Seed: 1, BigAnswers: 3}); err != nil {
		b.Fatal(err)
	}
	j, _ := json.Marshal(st)
	if err := os.WriteFile(done, j, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, st
}

// BenchmarkOpenGenerated opens synthetic 4.42.4 and v5 runs, in full and
// with Options.Outline (what list uses) and counted only (-count: what
// status reads when nothing judges the run), and reports live-MiB:
// the heap an opened run keeps (HeapInuse after a collection, less the
// heap before Open). The 100k-row runs (about 0.5 GB of manifest each,
// written once into the cache) are skipped with -short.
func BenchmarkOpenGenerated(b *testing.B) {
	for _, layout := range []string{"442", "v5"} {
		for _, rows := range []int{10_000, 100_000} {
			for _, mode := range []string{"", "-outline", "-count"} {
				opts := Options{Outline: mode != ""}
				var keep func(string) bool
				if mode == "-count" { // what status reads when nothing judges the run
					keep = func(string) bool { return false }
				}
				name := fmt.Sprintf("%s-%dk%s", layout, rows/1000, mode)
				b.Run(name, func(b *testing.B) {
					if rows > 10_000 && testing.Short() {
						b.Skip("100k rows: run without -short")
					}
					dir, st := generatedRun(b, layout, rows)
					b.SetBytes(st.ManifestBytes)
					b.ReportAllocs()
					open := func() *Run {
						r, err := Locate(dir, opts)
						if err == nil {
							err = r.Read(keep)
						}
						if err != nil {
							b.Fatal(err)
						}
						if r.Len() != st.Cases {
							b.Fatalf("%d cases, want %d", r.Len(), st.Cases)
						}
						return r
					}
					for b.Loop() {
						open()
					}
					before := heapInuse()
					r := open()
					b.ReportMetric(float64(heapInuse()-before)/(1<<20), "live-MiB")
					runtime.KeepAlive(r)
				})
			}
		}
	}
}

// heapInuse returns HeapInuse after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
