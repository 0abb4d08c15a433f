package htmlreport

// hunk is one change between two sequences: a[os:os+ol] became
// b[ns:ns+nl].
type hunk struct{ os, ol, ns, nl int }

// diffWork bounds the comparisons diffSeq spends on the part of two
// sequences between their common prefix and suffix, and maxEdits the edits
// it looks for there: past either, that part is one hunk. A step's change
// is a few edits (a message taken off the front of one queue and another
// put at the end of another); a list shifted as a whole is not worth
// diffing line by line.
const (
	diffWork = 2_000_000
	maxEdits = 1000
)

// diffSeq is diffSeqWork within diffWork.
func diffSeq(n, m int, eq func(i, j int) bool) []hunk { return diffSeqWork(n, m, eq, diffWork) }

// diffInts returns the hunks that turn a into b (diffSeq).
func diffInts(a, b []int) []hunk {
	return diffSeq(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
}

// diffSeqWork returns the hunks that turn a sequence of n elements into
// one of m, eq(i, j) telling whether the first's element i is the
// second's j, in order. The common prefix and suffix are trimmed and the
// rest is diffed by Myers' algorithm (shortest edit script) within about
// work comparisons (and maxEdits edits); past it, the rest is one hunk.
//
// Applied one after the other in order, each hunk's ns is its position in
// the sequence the hunks before it made. (diffmatchpatch, which the page
// uses for short texts, bounds its work by wall-clock time, and a page must
// not depend on the machine: this bounds it by comparisons.)
func diffSeqWork(n, m int, eq func(i, j int) bool, work int) []hunk {
	pre := 0
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	x, y := n-pre-suf, m-pre-suf
	switch {
	case x == 0 && y == 0:
		return nil
	case x == 0 || y == 0:
		return []hunk{{pre, x, pre, y}}
	}
	hs, ok := myers(x, y, func(i, j int) bool { return eq(pre+i, pre+j) }, min(work/(x+y), maxEdits))
	if !ok {
		return []hunk{{pre, x, pre, y}}
	}
	for i := range hs {
		hs[i].os += pre
		hs[i].ns += pre
	}
	return hs
}

// myers returns the hunks of a shortest edit script from a sequence of n
// elements to one of m (eq as diffSeqWork's), or false when it has more
// than maxD edits. Each d's furthest-reaching x per diagonal k is kept
// (trace[d][k+d], -1: no path) to walk the script back.
func myers(n, m int, eq func(i, j int) bool, maxD int) ([]hunk, bool) {
	var trace [][]int
	at := func(d, k int) int {
		if d < 0 || k < -d || k > d {
			return -1
		}
		return trace[d][k+d]
	}
	// from returns where diagonal k's path at d starts: the x after the
	// move from d-1 (down from k+1: an insertion; right from k-1: a
	// deletion), and whether it moved down; x is -1 when none reaches k.
	from := func(d, k int) (int, bool) {
		if d == 0 {
			return 0, false
		}
		down, right := at(d-1, k+1), at(d-1, k-1)
		if right >= 0 {
			right++
		}
		if down >= right {
			return down, true
		}
		return right, false
	}
	for d := 0; d <= maxD; d++ {
		v := make([]int, 2*d+1)
		for i := range v {
			v[i] = -1
		}
		trace = append(trace, v)
		for k := -d; k <= d; k += 2 {
			x, _ := from(d, k)
			y := x - k
			if x < 0 || x > n || y < 0 || y > m {
				continue
			}
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			v[k+d] = x
			if x == n && y == m {
				return backtrack(d, n, m, from, at), true
			}
		}
	}
	return nil, false
}

// backtrack walks a script found at d edits back from (n, m) and returns
// its hunks: the stretches between the diagonals (the equal runs).
func backtrack(d, n, m int, from func(d, k int) (int, bool), at func(d, k int) int) []hunk {
	// Equal runs from the end back: each starts where its move ended.
	type run struct{ x, y, n int }
	var runs []run
	k := n - m
	for ; d >= 0; d-- {
		end := at(d, k)
		start, down := from(d, k)
		runs = append(runs, run{start, start - k, end - start})
		if d > 0 {
			if down {
				k++
			} else {
				k--
			}
		}
	}
	var hs []hunk
	px, py := 0, 0 // the end of the equal run before
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.n == 0 {
			continue // a move right after another: the same hunk
		}
		if r.x > px || r.y > py {
			hs = append(hs, hunk{px, r.x - px, py, r.y - py})
		}
		px, py = r.x+r.n, r.y+r.n
	}
	if px < n || py < m {
		hs = append(hs, hunk{px, n - px, py, m - py})
	}
	return hs
}
