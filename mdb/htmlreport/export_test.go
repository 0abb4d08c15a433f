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
