package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// diffContext is how many unchanged lines surround a change in a diff.
const diffContext = 4

// maxDiffEdits bounds the Myers search; beyond it the changed middle is shown
// as removed then added, which is still a correct diff, just not a minimal one.
const maxDiffEdits = 1000

// lineOp is one line of an edit script: ' ' keeps a[A] (== b[B]), '-'
// removes a[A], '+' inserts b[B].
type lineOp struct {
	kind byte
	a, b int
}

// diffLines returns an edit script turning a into b: common prefix and
// suffix, and a Myers diff of the middle.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]lineOp, 0, len(a)+len(b)-pre-suf)
	for i := range pre {
		ops = append(ops, lineOp{' ', i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if mid, ok := myers(ma, mb, maxDiffEdits); ok {
		for _, o := range mid {
			ops = append(ops, lineOp{o.kind, o.a + pre, o.b + pre})
		}
	} else {
		for i := range ma {
			ops = append(ops, lineOp{'-', pre + i, pre})
		}
		for j := range mb {
			ops = append(ops, lineOp{'+', pre + len(ma), pre + j})
		}
	}
	for i := range suf {
		ops = append(ops, lineOp{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers is the O((N+M)·D) greedy diff (Myers 1986); ok is false when more
// than maxD edits are needed.
func myers(a, b []string, maxD int) (ops []lineOp, ok bool) {
	n, m := len(a), len(b)
	lim := min(maxD, n+m)
	off := lim + 1
	v := make([]int, 2*lim+3)
	var trace [][]int // trace[d][k+d] is the furthest x on diagonal k after d edits
	found := -1
	for d := 0; d <= lim && found < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	if found < 0 {
		return nil, false
	}
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		px := at(prevK)
		py := px - prevK
		for x > px && y > py {
			x--
			y--
			ops = append(ops, lineOp{' ', x, y})
		}
		if prevK == k+1 {
			y--
			ops = append(ops, lineOp{'+', x, y})
		} else {
			x--
			ops = append(ops, lineOp{'-', x, y})
		}
	}
	for x > 0 {
		x--
		y--
		ops = append(ops, lineOp{' ', x, y})
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops, true
}

// compactDiff renders the reference's edit diff: "+N|text" for added lines
// (new numbering), "-N|text" for removed ones and " N|text" for context (old
// numbering), numbers right-aligned, with diffContext lines of context and
// " …|..." standing for skipped lines. firstChanged is the 1-based line of the
// new text where the first change is (0 when nothing changed).
func compactDiff(oldText, newText string) (diff string, firstChanged, added, removed int) {
	if strings.HasSuffix(oldText, "\n") && strings.HasSuffix(newText, "\n") {
		// Both end in a newline: no empty last "line" in the numbering.
		oldText, newText = oldText[:len(oldText)-1], newText[:len(newText)-1]
	}
	a, b := strings.Split(oldText, "\n"), strings.Split(newText, "\n")
	ops := diffLines(a, b)
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		if firstChanged == 0 {
			firstChanged = o.b + 1
		}
		if o.kind == '+' {
			added++
		} else {
			removed++
		}
		for j := max(0, i-diffContext); j <= min(len(ops)-1, i+diffContext); j++ {
			show[j] = true
		}
	}
	if firstChanged == 0 {
		return "", 0, 0, 0
	}
	width := len(strconv.Itoa(max(len(a), len(b))))
	skip := " " + strings.Repeat(" ", width) + "|..."
	var out []string
	skipping := false
	for i, o := range ops {
		if !show[i] {
			if !skipping {
				out = append(out, skip)
				skipping = true
			}
			continue
		}
		skipping = false
		switch o.kind {
		case '+':
			out = append(out, fmt.Sprintf("+%*d|%s", width, o.b+1, b[o.b]))
		case '-':
			out = append(out, fmt.Sprintf("-%*d|%s", width, o.a+1, a[o.a]))
		default:
			out = append(out, fmt.Sprintf(" %*d|%s", width, o.a+1, a[o.a]))
		}
	}
	return strings.Join(out, "\n"), firstChanged, added, removed
}
