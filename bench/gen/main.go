// Command gen writes a synthetic AgentV run for benchmarks:
//
//	go run ./bench/gen -layout 442|v5|flat -rows N -out DIR [-seed S] [-big-answers K] [-big-size BYTES] [-flat-size BYTES]
//
// 442 and v5 write a run directory at DIR (its base name is the run id).
// flat writes DIR itself when it ends in .jsonl, else DIR/eval_<timestamp>.jsonl,
// with at least -rows rows and at least -flat-size bytes (-flat-size 0 for
// exactly -rows). It prints what it wrote as one JSON object on stdout.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"agentv-review/bench/gen/genrun"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	layout := fs.String("layout", "442", "run layout: 442, v5 or flat")
	out := fs.String("out", "", "run directory to write (flat: a .jsonl file or a folder)")
	var o genrun.Options
	fs.IntVar(&o.Rows, "rows", 1000, "manifest rows, resume duplicates included")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed: the same seed writes the same bytes")
	fs.IntVar(&o.BigAnswers, "big-answers", 3, "number of big answers")
	fs.IntVar(&o.BigAnswerBytes, "big-size", genrun.DefaultBigAnswerBytes, "size of a big answer in bytes")
	fs.Int64Var(&o.FlatBytes, "flat-size", 1<<30, "flat: keep writing rows until the file has this many bytes")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: gen -layout 442|v5|flat -rows N -out DIR (got %q, extra args %q)", errUsage, *out, fs.Args())
	}
	write := map[string]func(string, genrun.Options) (genrun.Stats, error){
		"442": genrun.Write442, "v5": genrun.WriteV5, "flat": genrun.WriteFlat,
	}[*layout]
	if write == nil {
		return fmt.Errorf("%w: -layout %q: want 442, v5 or flat", errUsage, *layout)
	}
	dest := *out
	if *layout == "flat" && !strings.HasSuffix(dest, ".jsonl") {
		dest = filepath.Join(dest, "eval_2026-07-06T11-31-36-988Z.jsonl")
	}
	start := time.Now()
	st, err := write(dest, o)
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return json.NewEncoder(os.Stdout).Encode(struct {
		Layout string `json:"layout"`
		genrun.Stats
		Seconds float64 `json:"seconds"`
	}{*layout, st, time.Since(start).Seconds()})
}
