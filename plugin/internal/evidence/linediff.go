package evidence

import (
	"slices"
	"strings"
)

// Op says what a line diff does with a line.
type Op byte

const (
	Keep Op = ' ' // in both texts
	Del  Op = '-' // only in the old text
	Add  Op = '+' // only in the new text
)

// Change is one line of a line diff.
type Change struct {
	Op   Op
	Line string // raw text, without its line break: sanitise before display
}

// maxEdits bounds the work of LineDiff: texts further apart than this many
// changed lines (after their common start and end) are shown as the old
// middle removed and the new one added, which is still a correct diff.
const maxEdits = 500

// LineDiff is a shortest line diff of old against new (Myers' algorithm
// after trimming the common first and last lines): applying its Keep and
// Add lines gives new, its Keep and Del lines give old. CRLF counts as LF.
func LineDiff(old, new string) []Change {
	a, b := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := kept(nil, a[:pre])
	out = append(out, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	return kept(out, a[len(a)-suf:])
}

// Counts returns how many lines a diff removes and adds.
func Counts(changes []Change) (deleted, added int) {
	for _, c := range changes {
		switch c.Op {
		case Del:
			deleted++
		case Add:
			added++
		}
	}
	return deleted, added
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
}

func kept(out []Change, lines []string) []Change {
	for _, l := range lines {
		out = append(out, Change{Keep, l})
	}
	return out
}

// middle diffs a and b, which share neither their first nor last line.
func middle(a, b []string) []Change {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaced(a, b)
	}
	limit := min(n+m, maxEdits)
	// v[k+off] is the furthest x on diagonal k; trace[d] keeps diagonals
	// -d-1..d+1 of v after round d, for the walk back.
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: a line of b added
			} else {
				x = v[off+k-1] + 1 // right: a line of a deleted
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return walkBack(a, b, append(trace, slices.Clone(v[off-d-1:off+d+2])), d)
			}
		}
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
	}
	return replaced(a, b)
}

// walkBack reads the edit path of D edits out of trace, end to start.
func walkBack(a, b []string, trace [][]int, D int) []Change {
	var out []Change
	x, y := len(a), len(b)
	for d := D; d > 0; d-- {
		prev := trace[d-1] // diagonal k at index k+d
		at := func(k int) int { return prev[k+d] }
		k := x - y
		down := k == -d || k != d && at(k-1) < at(k+1)
		pk := k - 1
		if down {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		sx := px + 1 // where the snake after the edit starts
		if down {
			sx = px
		}
		for x > sx {
			out = append(out, Change{Keep, a[x-1]})
			x, y = x-1, y-1
		}
		if down {
			out = append(out, Change{Add, b[py]})
		} else {
			out = append(out, Change{Del, a[px]})
		}
		x, y = px, py
	}
	for x > 0 {
		out = append(out, Change{Keep, a[x-1]})
		x--
	}
	slices.Reverse(out)
	return out
}

func replaced(a, b []string) []Change {
	out := make([]Change, 0, len(a)+len(b))
	for _, l := range a {
		out = append(out, Change{Del, l})
	}
	for _, l := range b {
		out = append(out, Change{Add, l})
	}
	return out
}
