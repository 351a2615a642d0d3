package history

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agentv-review/plugin/internal/feedback"
)

// LegacyNotes returns the notes of path when it is a feedback file in an
// older shape (AgentV dashboard, skill-creator); nil when it is missing or
// a review file.
func LegacyNotes(path string) ([]feedback.LegacyNote, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if feedback.Detect(data) == feedback.KindReview {
		return nil, nil
	}
	notes, _, err := feedback.LoadLegacy(path)
	return notes, err
}

// ArchivedNotes returns the notes of the legacy files kept in a feedback
// history folder: converting a legacy feedback.json archives it there, and
// its notes stay part of the case's history.
func ArchivedNotes(historyDir string) ([]feedback.LegacyNote, error) {
	entries, err := os.ReadDir(historyDir) // names as text, never a glob pattern
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var notes []feedback.LegacyNote
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		n, err := LegacyNotes(filepath.Join(historyDir, e.Name()))
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
	}
	return notes, nil
}
