package mdb_test

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReorderSVG: in the SVG event graph of mdbtest.Reorder, every arrow
// runs from the row of the step that sent its datagram (or made the copy)
// to the row of the step that took it, so the arrows of datagrams that
// overtake each other cross; the copy is drawn from its sender's column.
func TestReorderSVG(t *testing.T) {
	data := drawSVG(t, reorderOutput(t), 1, 7)
	// Rows are 48 apart, step 1's at 104; node 0's column at 260, node 1's at 520.
	row := func(step int) int { return 104 + 48*(step-1) }
	want := []string{
		fmt.Sprintf("datagram Put{N: 1} from node 0 to node 1, sent at step 1, received at step 6: (260,%d)-(520,%d)", row(1), row(6)),
		fmt.Sprintf("datagram Put{N: 1} from node 0 to node 1, sent at step 2, received at step 4: (260,%d)-(520,%d)", row(2), row(4)),
		fmt.Sprintf("a copy of datagram Put{N: 1} from node 0 to node 1, made at step 3 from the datagram sent at step 1, received at step 5: (260,%d)-(520,%d)", row(3), row(5)),
		fmt.Sprintf("datagram Put{N: 1} from node 0 to node 1, sent at step 7, in flight: (260,%d)-(390,426)", row(7)),
	}
	var got []string
	for _, m := range svgArrow.FindAllStringSubmatch(string(data), -1) {
		got = append(got, fmt.Sprintf("%s: (%s,%s)-(%s,%s)", html.UnescapeString(m[1]), m[2], m[3], m[4], m[5]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("arrows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// svgArrow matches an arrow of the SVG event graph: its title and line.
var svgArrow = regexp.MustCompile(`<g>\n<title>([^<]*)</title>\n<line x1="(\d+)" y1="(\d+)" x2="(\d+)" y2="(\d+)"`)
