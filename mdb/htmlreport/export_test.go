package htmlreport

import "strings"

// View returns the lines of the view of a section's lines (see cut.go)
// under limits lim (zero fields take the defaults).
func View(lines []string, network bool, lim Limits) []string {
	b := &builder{o: Options{Limits: lim.withDefaults()}}
	ps, _ := b.view(newTextLines(strings.Join(lines, "\n")), network)
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = b.strs.list[p.id]
	}
	return out
}

// LCSTable is lcsTable, for the external tests.
var LCSTable = lcsTable

// lcsTable returns the table of the lengths of the longest common
// subsequences of a's and b's suffixes: L[i][j] for a[i:] and b[j:].
func lcsTable(a, b []int) [][]int {
	L := make([][]int, len(a)+1)
	for i := range L {
		L[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				L[i][j] = L[i+1][j+1] + 1
			} else {
				L[i][j] = max(L[i+1][j], L[i][j+1])
			}
		}
	}
	return L
}
