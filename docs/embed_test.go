package docs

import (
	"slices"
	"strings"
	"testing"
)

func TestTopics(t *testing.T) {
	want := []string{"calibration", "cli", "feedback-schema", "human-review"}
	if got := Topics(); !slices.Equal(got, want) {
		t.Fatalf("Topics() = %v, want %v", got, want)
	}
}

func TestRead(t *testing.T) {
	for _, topic := range Topics() {
		b, err := Read(topic)
		if err != nil {
			t.Fatalf("Read(%q): %v", topic, err)
		}
		if !strings.HasPrefix(string(b), "# ") {
			t.Errorf("%s.md does not start with a title", topic)
		}
	}
	for _, bad := range []string{"nope", "cli.md", "../go", ""} {
		_, err := Read(bad)
		if err == nil {
			t.Fatalf("Read(%q) returned no error", bad)
		}
		if !strings.Contains(err.Error(), "calibration, cli, feedback-schema, human-review") {
			t.Errorf("Read(%q) error %q does not list the topics", bad, err)
		}
	}
}
