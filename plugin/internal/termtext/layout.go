package termtext

import (
	"strings"

	"github.com/rivo/uniseg"
)

// Width returns the display width of one line of text in terminal cells.
func Width(s string) int { return uniseg.StringWidth(s) }

// Truncate shortens s to at most cells display cells, ending it with tail
// (for example "…") when anything was cut. It cuts only between grapheme
// clusters. A tail wider than cells is left out.
func Truncate(s string, cells int, tail string) string {
	if Width(s) <= cells {
		return s
	}
	limit := cells - Width(tail)
	if limit < 0 {
		return Truncate(s, cells, "")
	}
	end, w := 0, 0
	for rest, state := s, -1; rest != ""; {
		var c string
		var bounds int
		c, rest, bounds, state = uniseg.StepString(rest, state)
		if w += bounds >> uniseg.ShiftWidth; w > limit {
			break
		}
		end += len(c)
	}
	return s[:end] + tail
}

// Wrap breaks s into lines of at most cells display cells. Each "\n" ends a
// line (a trailing one does not add an empty line); longer lines break at the
// last Unicode line-break opportunity that fits (after spaces, between CJK
// ideographs, ...), dropping the spaces at the break, or else between grapheme
// clusters. Only a single grapheme cluster wider than cells can exceed it.
// Wrap returns nil for "".
func Wrap(s string, cells int) []string {
	cells = max(cells, 1)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	var lines []string
	for _, p := range strings.Split(s, "\n") {
		lines = wrapParagraph(lines, p, cells)
	}
	return lines
}

// wrapParagraph appends the lines of p, which holds no "\n", to lines.
// Spaces never force a break: they hang past the margin and are trimmed.
func wrapParagraph(lines []string, p string, cells int) []string {
	start, w := 0, 0  // current line is p[start:pos], w cells wide
	brk, brkW := 0, 0 // last break opportunity in it, and the width before it
	pos, state := 0, -1
	for rest := p; rest != ""; {
		var c string
		var bounds int
		c, rest, bounds, state = uniseg.StepString(rest, state)
		cw := bounds >> uniseg.ShiftWidth
		if c != " " && w+cw > cells && pos > start {
			if head := strings.TrimRight(p[start:brk], " "); brk > start && head != "" {
				lines = append(lines, head)
				start, w = brk, w-brkW
			}
			if w+cw > cells && pos > start {
				lines = append(lines, strings.TrimRight(p[start:pos], " "))
				start, w = pos, 0
			}
			brk = start
		}
		pos += len(c)
		w += cw
		if bounds&uniseg.MaskLine == uniseg.LineCanBreak {
			brk, brkW = pos, w
		}
	}
	last := p[start:]
	if w > cells {
		last = strings.TrimRight(last, " ")
	}
	return append(lines, last)
}
