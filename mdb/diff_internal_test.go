package mdb

import (
	"bytes"
	"strings"
	"testing"
)

// TestDiffShowsEnclosingLines: a change deep in a node's state, far from
// the lines shown around it, is preceded by the hidden lines that open
// the structs and lists it is in (outermost first), and by no sibling's
// opening line at the same indent.
func TestDiffShowsEnclosingLines(t *testing.T) {
	a := `Node {
  Peers: [
    x
    y
  ]
  Table: {
    k1: 1
    k2: 2
    k3: 3
    k4: 4
    k5: 5
    k6: 6
  }
}`
	b := strings.Replace(a, "k6: 6", "k6: 7", 1)
	var w bytes.Buffer
	writeOps(&w, lineOps(a, b), false)
	want := `  ...
  Node {
    Table: {
      k4: 4
      k5: 5
-     k6: 6
+     k6: 7
    }
  }
`
	if w.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", w.String(), want)
	}
}
