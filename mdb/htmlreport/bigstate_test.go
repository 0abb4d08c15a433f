package htmlreport_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/sim/trace"
)

// panel returns the state panel of path i at step s as the page's script
// shows it diffed against the step before: each section's title, then its
// lines marked "- " (removed), "+ " (added) or "  ", from the excerpts of
// a section whose view is cut, else from a line diff of the two views. At
// step 0, or with changed set, only the sections the step changed.
func (p *page) panel(i, s int, changed bool) []string {
	d := p.data.Paths[i]
	now := p.viewAt(i, s)
	var was [][]int
	if s > 0 {
		was = p.viewAt(i, s-1)
	}
	// The step's excerpts by section: offsets into d.Views.
	exc := map[int][]int{}
	for o := 0; o < len(d.Views); o += 5 + 2*d.Views[o+4] {
		if d.Views[o] == s {
			exc[d.Views[o+1]] = append(exc[d.Views[o+1]], o)
		}
	}
	titles := slices.Concat(p.data.Nodes, p.data.Monitors, []string{"network"})
	var out []string
	for k := range now {
		var ops []string
		switch {
		case exc[k] != nil:
			for _, l := range now[k] {
				ops = append(ops, "  "+p.data.Strs[l])
			}
			offs := exc[k]
			for j := len(offs) - 1; j >= 0; j-- {
				o := offs[j]
				at, del, n := d.Views[o+2], d.Views[o+3], d.Views[o+4]
				var add []string
				for x := range n {
					add = append(add, []string{"  ", "- ", "+ "}[d.Views[o+5+2*x]]+p.data.Strs[d.Views[o+6+2*x]])
				}
				ops = slices.Replace(ops, at, at+del, add...)
			}
		case was != nil:
			ops = lineDiff(p.data.Strs, was[k], now[k])
		default:
			for _, l := range now[k] {
				ops = append(ops, "  "+p.data.Strs[l])
			}
		}
		differs := slices.ContainsFunc(ops, func(l string) bool { return !strings.HasPrefix(l, "  ") })
		if changed && !differs {
			continue
		}
		out = append(out, titles[k]+":")
		for _, l := range ops {
			out = append(out, "  "+l)
		}
	}
	return out
}

// lineDiff diffs two views' lines by their longest common subsequence, as
// the page's script does.
func lineDiff(strs []string, a, b []int) []string {
	L := htmlreport.LCSTable(a, b)
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+strs[a[i]])
			i++
			j++
		case i < len(a) && (j == len(b) || L[i+1][j] >= L[i][j+1]):
			out = append(out, "- "+strs[a[i]])
			i++
		default:
			out = append(out, "+ "+strs[b[j]])
			j++
		}
	}
	return out
}

// TestBigState renders reporttest.BigState's paths, whose nodes hold
// 3,000 ints and a 5,000-byte string and whose network holds 50 messages
// on one connection, and compares the state panel at every step of the
// error path and the comparison at the critical step with
// testdata/bigstate.golden (-rewrite regenerates it). The views cut the
// long list, the long string and the long queue, and still show each
// step's change deep inside them; the page stays small; and every view
// the script rebuilds is the view of the simulator's state at that step.
func TestBigState(t *testing.T) {
	dir := t.TempDir()
	et := reporttest.BigState(t, dir)
	page := renderAsOut(t, dir)
	file := filepath.Join(dir, htmlreport.PageFile)
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, file)
	ep := p.data.Paths[0]
	if !ep.Cut || len(p.data.Markers) == 0 {
		t.Error("the error path's views are not cut")
	}
	// Without the cuts the states alone are over 100 KB a step.
	if len(p.raw) > 100_000 {
		t.Errorf("the page is %d bytes", len(p.raw))
	}
	// The views the script rebuilds are those of the simulator's states.
	lt, err := trace.Read(filepath.Join(dir, htmlreport.LiveTrace))
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range []*trace.Trace{et, lt} {
		for n := 0; n <= tr.Steps; n++ {
			got := p.viewAt(i, n)
			for k, text := range replayed(t, tr, n) {
				var full []string
				if text != "" {
					full = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
				}
				want := htmlreport.View(full, k == len(got)-1, htmlreport.Limits{})
				var lines []string
				for _, id := range got[k] {
					lines = append(lines, p.data.Strs[id])
				}
				if !slices.Equal(lines, want) {
					t.Errorf("%s path, step %d, section %d: the page's view differs from the replay's:\n%q\n%q", p.data.Paths[i].Name, n, k, lines, want)
				}
				if len(lines) > 400 {
					t.Errorf("%s path, step %d, section %d: %d lines", p.data.Paths[i].Name, n, k, len(lines))
				}
			}
		}
	}
	// Node 1 takes the first ball at step 2: the int and the byte it
	// changes, deep inside the cut list and string, show.
	two := strings.Join(p.panel(0, 2, true), "\n")
	for _, want := range []string{"-   1501: 1501", "+   1501: 1502", `…babababababababababababa#abababababababababababab…`} {
		if !strings.Contains(two, want) {
			t.Errorf("step 2's panel does not show %q:\n%s", want, two)
		}
	}

	var g strings.Builder
	for s := 0; s <= ep.Steps; s++ {
		desc := "the initial state"
		if s > 0 {
			desc = p.data.Strs[ep.Ev[(s-1)*5+3]]
		}
		fmt.Fprintf(&g, "== error path, step %d: %s\n", s, desc)
		for _, l := range p.panel(0, s, s > 0) {
			g.WriteString(l + "\n")
		}
	}
	g.WriteString("== the page's outline: headline notes and the comparison at the critical step\n")
	for _, id := range []string{"headline", "compare"} {
		var sub bytes.Buffer
		if err := html.Render(&sub, byID(p.doc, id)); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(&sub)
		if err != nil {
			t.Fatal(err)
		}
		g.WriteString(outline(doc))
	}
	golden := filepath.Join("testdata", "bigstate.golden")
	if rewrite() {
		if err := os.WriteFile(golden, []byte(g.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to make it)", err)
	}
	if g.String() != string(want) {
		t.Errorf("the big state's panels changed (run with -rewrite if intended):\n%s", diffLines(string(want), g.String()))
	}
}
