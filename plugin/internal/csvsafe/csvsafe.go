// Package csvsafe keeps the text cells of a CSV export from running as
// formulas when the file is opened in a spreadsheet (OWASP, "CSV
// Injection"). Every CSV writer of agentv-review passes each cell that
// comes from a file (run ids, test ids, notes, grader names, reviewers)
// through Cell; numbers the program formats itself need not.
package csvsafe

import (
	"strings"
	"unicode/utf8"
)

// triggers start a formula (= + - @, and their fullwidth forms, which some
// spreadsheets fold to ASCII) or make a spreadsheet look past the start of
// the cell (tab, CR, LF).
const triggers = "=+-@\t\r\n＝＋－＠"

// Cell returns cell with a leading single quote when a spreadsheet could
// read it as a formula: it starts with a trigger, or with a trigger after
// leading spaces and quote marks (spreadsheets skip those before looking
// for a formula). Any other cell is returned unchanged. The quote makes a
// spreadsheet show the cell as text; a program reading the CSV sees it.
func Cell(cell string) string {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(cell, ` "'`))
	if r != utf8.RuneError && strings.ContainsRune(triggers, r) {
		return "'" + cell
	}
	return cell
}
