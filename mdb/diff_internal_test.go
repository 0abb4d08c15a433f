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

// TestDiffOfStatesTheTextsDoNotTellApart: two states of a node whose texts
// agree but whose structs hash apart (a change past a text's cut, a
// String method that shows less than the value holds) are not "same": the
// diff says the node differs where its text does not show.
func TestDiffOfStatesTheTextsDoNotTellApart(t *testing.T) {
	a := []section{{title: "node 0 (Big)", body: "N: [1, 2, …]", hash: 1}, {title: "node 1 (Big)", body: "N: []", hash: 5}, {title: "network"}}
	b := []section{{title: "node 0 (Big)", body: "N: [1, 2, …]", hash: 2}, {title: "node 1 (Big)", body: "N: []", hash: 5}, {title: "network"}}
	var w bytes.Buffer
	if !writeStateDiff(&w, a, b, "step 1", "step 2", false) {
		t.Fatalf("no difference reported:\n%s", w.String())
	}
	want := "--- step 1\n+++ step 2\nnode 0 (Big): differs where its text does not show (the text is cut at its bounds, or a String or MarshalText method shows less than the value holds)\nsame: node 1 (Big), network\n"
	if w.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", w.String(), want)
	}
}
