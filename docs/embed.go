// Package docs embeds the user documentation (*.md in this folder) so that
// `agentv review docs` prints the very files shown on GitHub.
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// FS holds every *.md file of this folder.
//
//go:embed *.md
var FS embed.FS

// Topics returns the topic names (file names without .md), sorted.
func Topics() []string {
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		panic(err) // the embedded root always exists
	}
	var topics []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			topics = append(topics, name)
		}
	}
	return topics
}

// Read returns the markdown of topic, or an error listing the topics.
func Read(topic string) ([]byte, error) {
	if !slices.Contains(Topics(), topic) {
		return nil, fmt.Errorf("unknown docs topic %q (topics: %s)", topic, strings.Join(Topics(), ", "))
	}
	return FS.ReadFile(topic + ".md")
}
