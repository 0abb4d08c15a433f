package mdb

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// diffContext is how many unchanged lines a state diff shows around each
// change (seed 003 Figure 3).
const diffContext = 2

// section is one part of the global state's text: a node or the network.
type section struct {
	title string
	body  string
	// hash is the hash of the node's or monitor's struct
	// (engine.Sim.StructHash), 0 for the network: two sections of the same
	// text whose hashes differ differ where the text does not show.
	hash uint64
}

// stateSections returns the text of every node (sim.NodeText), every
// monitor (sim.MonitorText) and the network (sim.NetworkText) in sm's
// current state.
func stateSections(sm *engine.Sim) []section {
	out := make([]section, 0, sm.Nodes()+1)
	for i := 0; i < sm.Nodes(); i++ {
		title, body, _ := strings.Cut(sm.NodeText(sim.NodeID(i)), "\n")
		out = append(out, section{title: title, body: body, hash: sm.StructHash(i, false)})
	}
	for i := 0; i < sm.Monitors(); i++ {
		title, body, _ := strings.Cut(sm.MonitorText(i), "\n")
		out = append(out, section{title: title, body: body, hash: sm.StructHash(i, true)})
	}
	return append(out, section{title: "network", body: sm.NetworkText()})
}

type lineOp struct {
	op   diffmatchpatch.Operation
	text string
}

// splitLines splits text into lines, without a final empty one.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// lineOps diffs two texts line by line.
func lineOps(a, b string) []lineOp {
	if !strings.HasSuffix(a, "\n") && a != "" {
		a += "\n"
	}
	if !strings.HasSuffix(b, "\n") && b != "" {
		b += "\n"
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		for _, l := range splitLines(d.Text) {
			ops = append(ops, lineOp{op: d.Type, text: l})
		}
	}
	return ops
}

// ANSI escapes for the terminal.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiBold   = "\x1b[1m"
	ansiUnbold = "\x1b[22m"
	ansiReset  = "\x1b[0m"
)

// writeOps writes the changed lines of ops with diffContext lines of
// context, "..." where lines are left out, "- " before a line of the first
// text and "+ " before one of the second. With color, removed lines are
// red, added ones green, and the text that differs between a removed line
// and the added line paired with it is bold.
func writeOps(w io.Writer, ops []lineOp, color bool) {
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.op == diffmatchpatch.DiffEqual {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(ops)-1, i+diffContext); j++ {
			show[j] = true
		}
	}
	gap := false
	for i := 0; i < len(ops); i++ {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			fmt.Fprintln(w, "  ...")
			gap = false
			for _, j := range enclosing(ops, show, i) {
				fmt.Fprintln(w, "  "+ops[j].text)
			}
		}
		if ops[i].op == diffmatchpatch.DiffEqual {
			fmt.Fprintln(w, "  "+ops[i].text)
			continue
		}
		// A run of removed lines followed by a run of added ones.
		var del, ins []string
		for ; i < len(ops) && ops[i].op == diffmatchpatch.DiffDelete; i++ {
			del = append(del, ops[i].text)
		}
		for ; i < len(ops) && ops[i].op == diffmatchpatch.DiffInsert; i++ {
			ins = append(ins, ops[i].text)
		}
		i--
		if !color {
			for _, l := range del {
				fmt.Fprintln(w, "- "+l)
			}
			for _, l := range ins {
				fmt.Fprintln(w, "+ "+l)
			}
			continue
		}
		delOut, insOut := make([]string, len(del)), make([]string, len(ins))
		copy(delOut, del)
		copy(insOut, ins)
		for j := 0; j < len(del) && j < len(ins); j++ {
			delOut[j], insOut[j] = boldDiff(del[j], ins[j])
		}
		for _, l := range delOut {
			fmt.Fprintln(w, ansiRed+"- "+l+ansiReset)
		}
		for _, l := range insOut {
			fmt.Fprintln(w, ansiGreen+"+ "+l+ansiReset)
		}
	}
	if gap {
		fmt.Fprintln(w, "  ...")
	}
}

// indent returns the number of leading spaces of a line.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// enclosing returns, outermost first, the hidden lines that open the
// structs, maps and lists (lines ending in "{" or "[") that line i is in,
// so that a change deep inside a node's state shows where it is.
func enclosing(ops []lineOp, show []bool, i int) []int {
	var out []int
	in := indent(ops[i].text)
	for j := i - 1; j >= 0 && in > 0; j-- {
		if ops[j].op == diffmatchpatch.DiffInsert {
			continue
		}
		l := ops[j].text
		if d := indent(l); d < in && (strings.HasSuffix(l, "{") || strings.HasSuffix(l, "[")) {
			in = d
			if !show[j] {
				out = append(out, j)
			}
		}
	}
	slices.Reverse(out)
	return out
}

// boldDiff marks in bold what differs between two lines that are mostly
// the same.
func boldDiff(a, b string) (string, string) {
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false))
	same := 0
	for _, d := range diffs {
		if d.Type == diffmatchpatch.DiffEqual {
			same += len(d.Text)
		}
	}
	if 2*same < max(len(a), len(b)) {
		return a, b // too different for marking the difference to help
	}
	var x, y strings.Builder
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			x.WriteString(d.Text)
			y.WriteString(d.Text)
		case diffmatchpatch.DiffDelete:
			x.WriteString(ansiBold + d.Text + ansiUnbold)
		case diffmatchpatch.DiffInsert:
			y.WriteString(ansiBold + d.Text + ansiUnbold)
		}
	}
	return x.String(), y.String()
}

// writeStateDiff writes what differs between two global states, section by
// section, and names the sections that are the same. It reports whether
// anything differs.
func writeStateDiff(w io.Writer, a, b []section, labelA, labelB string, color bool) bool {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", labelA, labelB)
	var same []string
	differs := false
	for i := range max(len(a), len(b)) {
		var x, y section
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x == y {
			same = append(same, x.title)
			continue
		}
		differs = true
		if x.title == y.title && x.body == y.body {
			fmt.Fprintf(w, "%s: differs where its text does not show (the text is cut at its bounds, or a String or MarshalText method shows less than the value holds)\n", x.title)
			continue
		}
		ta, tb := x.body, y.body
		title := x.title
		if x.title != y.title {
			ta, tb = x.title+"\n"+ta, y.title+"\n"+tb
			title = fmt.Sprintf("section %d", i)
			if i == len(a)-1 || i == len(b)-1 {
				title = "network"
			}
		}
		fmt.Fprintln(w, title+":")
		writeOps(w, lineOps(ta, tb), color)
	}
	if !differs {
		fmt.Fprintln(w, "no difference")
		return false
	}
	if len(same) > 0 {
		fmt.Fprintf(w, "same: %s\n", strings.Join(same, ", "))
	}
	return true
}
