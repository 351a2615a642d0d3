package app

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"agentv-review/plugin/internal/clierr"
	"agentv-review/plugin/internal/demo"
)

func demoCommand(s *Streams) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "copy a real AgentV 4.42.4 run embedded in this binary to a temporary folder and review it",
		Description: "The demo run has passes, quality failures, execution errors and most grader types.\n" +
			"Its feedback.json is written inside the copy; the path is printed at the end.",
		Flags: append(guidedFlags(),
			&cli.StringFlag{Name: "dir", Usage: "copy the demo run into `DIR` (must not exist yet) instead of a temporary folder"}),
		Action: act(s, demoAction, 0, 0, ""),
	}
}

func demoAction(s *Streams, c *cli.Context, _ []string) error {
	if err := needTerminal(s); err != nil {
		return err
	}
	dir := c.String("dir")
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agentv-review-demo-")
		if err != nil {
			return clierr.Failure(err, "cannot create a temporary folder: "+clierr.Cause(err), "pass --dir DIR")
		}
		dir = filepath.Join(tmp, demo.Name)
	}
	if err := copyDemo(dir); err != nil {
		return err
	}
	return guided(s, c, dir)
}

// copyDemo writes the embedded demo run to dir.
func copyDemo(dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		return clierr.Usage(dir+" already exists", "pass a new folder to --dir, or review it directly: agentv review "+dir)
	}
	sub, err := fs.Sub(demo.Run, demo.Name)
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, sub); err != nil {
		return clierr.Failure(err, "cannot copy the demo run: "+clierr.Cause(err), "pass --dir DIR on a writable disk")
	}
	return nil
}
