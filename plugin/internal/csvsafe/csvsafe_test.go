package csvsafe

import (
	"strings"
	"testing"
)

// TestCellNeutralisesFormulas tries every trigger after every leading run
// of spaces and quotes, before several payloads.
func TestCellNeutralisesFormulas(t *testing.T) {
	triggerList := []string{"=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠"}
	leads := []string{"", " ", "   ", `"`, `'`, `""`, ` "' `, `'"`}
	payloads := []string{"", "1+1", `HYPERLINK("http://x","y")`, `cmd|' /C calc'!A0`, "SUM(A1:A9)"}
	for _, tr := range triggerList {
		for _, lead := range leads {
			for _, p := range payloads {
				cell := lead + tr + p
				if got := Cell(cell); got != "'"+cell {
					t.Errorf("Cell(%q) = %q, want %q", cell, got, "'"+cell)
				}
			}
		}
	}
}

func TestCellKeepsText(t *testing.T) {
	for _, cell := range []string{"", " ", `"`, "'", "contains:a=b", "0.5", "a-b", "x@y", "テスト", "passed", " ok", `"quoted"`, "\ufeff", "\xff="} {
		if got := Cell(cell); got != cell {
			t.Errorf("Cell(%q) = %q, want it unchanged", cell, got)
		}
	}
	if strings.ContainsAny(Cell("=1"), "\t\r\n") {
		t.Error("Cell adds control characters")
	}
}
