// Command genfeedback writes a feedback.json shaped like what `agentv
// review apply` writes for every case of a run (verdict, notes, target,
// suite, reviewer, reviewed_at, automated with graders, fingerprint), for
// benchmarks of the read path:
//
//	go run ./bench/genfeedback -run DIR [-out FILE]   one entry per case of DIR/index.jsonl
//	go run ./bench/genfeedback -cases N -out FILE     N synthetic entries
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"agentv-review/bench/gen/genfeedback"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genfeedback:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("genfeedback", flag.ContinueOnError)
	runDir := fs.String("run", "", "run directory whose index.jsonl names the cases")
	cases := fs.Int("cases", 0, "synthetic entries instead of a run's cases")
	out := fs.String("out", "", "file to write (default: <run>/feedback.json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var ids []genfeedback.ID
	switch {
	case *runDir != "":
		var err error
		if ids, err = runCases(filepath.Join(*runDir, "index.jsonl")); err != nil {
			return err
		}
		if *out == "" {
			*out = filepath.Join(*runDir, "feedback.json")
		}
	case *cases > 0 && *out != "":
		ids = genfeedback.IDs(*cases)
	default:
		return errors.New("pass -run DIR, or -cases N -out FILE")
	}
	runID := "bench"
	if *runDir != "" {
		runID = filepath.Base(filepath.Clean(*runDir))
	}
	data, err := genfeedback.JSON(runID, ids)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}

// runCases reads test_id, target and suite of each distinct case of a manifest.
func runCases(manifest string) ([]genfeedback.ID, error) {
	r, err := os.Open(manifest)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	seen := map[genfeedback.ID]bool{}
	var ids []genfeedback.ID
	for sc.Scan() {
		var row struct {
			TestID string `json:"test_id"`
			Target string `json:"target"`
			Suite  string `json:"suite"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s: %w", manifest, err)
		}
		c := genfeedback.ID{TestID: row.TestID, Target: row.Target, Suite: row.Suite}
		if !seen[c] {
			seen[c] = true
			ids = append(ids, c)
		}
	}
	return ids, sc.Err()
}
