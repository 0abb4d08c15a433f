package htmlreport

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// apply applies hunks hs, which diffSeq made from a to b, to a in order,
// as the page's script applies a step's diffs.
func apply(a, b []int, hs []hunk) []int {
	out := slices.Clone(a)
	for _, h := range hs {
		out = slices.Replace(out, h.ns, h.ns+h.ol, b[h.ns:h.ns+h.nl]...)
	}
	return out
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b []int) int { return lcsTable(a, b)[0][0] }

// TestDiffSeq holds diffSeq against the naive longest common subsequence
// on random sequences: its hunks, applied in order, turn a into b; they
// are in order and apart; and they remove and add as few elements as can
// be (Myers' shortest edit script).
func TestDiffSeq(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		a, b := make([]int, r.IntN(30)), []int(nil)
		for j := range a {
			a[j] = r.IntN(4)
		}
		// b: a edited a few times, or unrelated.
		if i%5 == 0 {
			b = make([]int, r.IntN(30))
			for j := range b {
				b[j] = r.IntN(4)
			}
		} else {
			b = slices.Clone(a)
			for range r.IntN(5) {
				at := r.IntN(len(b) + 1)
				switch r.IntN(3) {
				case 0:
					b = slices.Insert(b, at, r.IntN(4))
				case 1:
					if at < len(b) {
						b = slices.Delete(b, at, at+1)
					}
				default:
					if at < len(b) {
						b[at] = r.IntN(4)
					}
				}
			}
		}
		hs := diffInts(a, b)
		if got := apply(a, b, hs); !slices.Equal(got, b) {
			t.Fatalf("%v -> %v: hunks %v make %v", a, b, hs, got)
		}
		edits := 0
		for k, h := range hs {
			edits += h.ol + h.nl
			if h.ol == 0 && h.nl == 0 || k > 0 && (h.os <= hs[k-1].os+hs[k-1].ol || h.ns <= hs[k-1].ns+hs[k-1].nl) {
				t.Fatalf("%v -> %v: hunks %v: an empty one, or two that touch", a, b, hs)
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%v -> %v: hunks %v remove and add %d elements, the fewest is %d", a, b, hs, edits, want)
		}
	}
	// Past its budget the middle is one hunk, still right.
	a, b := make([]int, 1000), make([]int, 1000)
	for i := range a {
		a[i], b[i] = i, i+1
	}
	hs := diffSeqWork(len(a), len(b), func(i, j int) bool { return a[i] == b[j] }, 10)
	if got := apply(a, b, hs); !slices.Equal(got, b) || len(hs) != 1 {
		t.Errorf("over its budget: hunks %v", hs)
	}
}

// TestCutLine: a cut line is valid UTF-8 wherever the cut falls, says the
// whole line's length, and with a change shows its bytes.
func TestCutLine(t *testing.T) {
	l := `Text: "` + strings.Repeat("ä€", 400) + `"`
	for limit := 80; limit < 120; limit++ {
		c := cutLine(l, limit, nil)
		if !utf8.ValidString(c) || !strings.Contains(c, "[2,008 bytes, digest ") || len(c) > limit+60 {
			t.Fatalf("limit %d: %q", limit, c)
		}
	}
	changedL := l[:1007] + "#" + l[1009:] // an ä
	a, b := changed(l, changedL)
	c := cutLine(changedL, 100, &b)
	if !utf8.ValidString(c) || !strings.Contains(c, "€#€") || a != (span{1007, 1009}) || b != (span{1007, 1008}) {
		t.Errorf("the change at byte 1000: %v %v %q", a, b, c)
	}
}

// TestView: a long list below a node's top level and a long run of
// messages on one connection show their first half and last quarter and a
// marker; a node's top level is never cut as a list; a section past
// SectionLines shows its start and end; and a digest changes with what it
// stands for.
func TestView(t *testing.T) {
	lim := Limits{ListItems: 8, SectionLines: 30}.withDefaults()
	b := &builder{o: Options{Limits: lim}}
	view := func(lines []string, network bool) []string {
		ps, _ := b.view(newTextLines(strings.Join(lines, "\n")), network)
		var out []string
		for _, p := range ps {
			out = append(out, b.strs.list[p.id])
		}
		return out
	}
	list := func(n, changed int) []string {
		ls := []string{"A: 1", "L: ["}
		for i := range n {
			v := i
			if i == changed {
				v = -1
			}
			ls = append(ls, "  "+itoa(i)+": "+itoa(v))
		}
		return append(ls, "]", "B: 2")
	}
	got := view(list(20, -1), false)
	want := []string{"A: 1", "L: [", "  0: 0", "  1: 1", "  2: 2", "  3: 3", "  … 14 more items (digest ", "  18: 18", "  19: 19", "]", "B: 2"}
	if len(got) != len(want) {
		t.Fatalf("view:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("view line %d is %q, want %q...:\n%s", i, got[i], want[i], strings.Join(got, "\n"))
		}
	}
	if other := view(list(20, 10), false); other[6] == got[6] || !slices.Equal(other[:6], got[:6]) {
		t.Errorf("a change hidden in the marker does not change its digest: %q %q", got[6], other[6])
	}
	// A node's top level: 12 fields are not a list.
	var fields []string
	for i := range 12 {
		fields = append(fields, "F"+itoa(i)+": 0")
	}
	if got := view(fields, false); !slices.Equal(got, fields) {
		t.Errorf("a node's fields were cut: %q", got)
	}
	// The network: runs of messages on one connection.
	var net []string
	for i := range 10 {
		net = append(net, "conn 0->1: M{"+itoa(i)+"}")
	}
	net = append(net, "conn 1->0: Ack")
	if got := view(net, true); len(got) != 8 || !strings.HasPrefix(got[4], "… 4 more on conn 0->1 (digest ") || got[7] != "conn 1->0: Ack" {
		t.Errorf("the network's view:\n%s", strings.Join(got, "\n"))
	}
	// A section too long even so.
	var many []string
	for i := range 100 {
		many = append(many, "F"+itoa(i)+": 0")
	}
	if got := view(many, false); len(got) != lim.SectionLines || !strings.HasPrefix(got[22], "… 71 more lines (digest ") || got[29] != "F99: 0" {
		t.Errorf("a long section's view (%d lines):\n%s", len(got), strings.Join(got, "\n"))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestExcerpts changes random lines of a long cut list and checks the
// step's excerpts against the view they go into: they replace pieces it
// has, in order and apart; with the lines removed left out and the
// markers taken as the lines they stand for, they show now's lines in
// order; and every changed line, old and new, shows.
func TestExcerpts(t *testing.T) {
	lim := Limits{ListItems: 10, SectionLines: 40}.withDefaults()
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		b := &builder{o: Options{Limits: lim}}
		old := []string{"L: ["}
		for i := range 30 + r.IntN(200) {
			old = append(old, "  "+itoa(i)+": "+itoa(i))
		}
		old = append(old, "]")
		now := slices.Clone(old)
		for range 1 + r.IntN(3) {
			at := 1 + r.IntN(len(now)-2)
			switch r.IntN(3) {
			case 0:
				now[at] = "  " + itoa(at) + ": x" + itoa(round)
			case 1:
				now = slices.Insert(now, at, "  new "+itoa(r.IntN(1000)))
			default:
				now = slices.Delete(now, at, at+1)
			}
		}
		ot, nt := newTextLines(strings.Join(old, "\n")), newTextLines(strings.Join(now, "\n"))
		hs := ot.diff(nt)
		if len(hs) == 0 {
			continue
		}
		ps, _ := b.view(nt, false)
		exs := b.excerpts(ot, nt, hs, ps)
		end := 0
		var shown []string // now's lines, as the view with the excerpts shows them
		for _, e := range exs {
			at, del, n := e[0], e[1], e[2]
			if at < end || at+del > len(ps) || len(e) != 3+2*n {
				t.Fatalf("round %d: excerpt %v over %d pieces after piece %d", round, e[:3], len(ps), end)
			}
			for _, p := range ps[end:at] {
				shown = append(shown, b.strs.list[p.id])
			}
			for j := range n {
				if op := e[3+2*j]; op != opDel {
					shown = append(shown, b.strs.list[e[4+2*j]])
				}
			}
			end = at + del
		}
		for _, p := range ps[end:] {
			shown = append(shown, b.strs.list[p.id])
		}
		// Expand the markers: "… N more ..." stands for N lines.
		i := 0
		for _, l := range shown {
			if k := strings.Index(l, "… "); k >= 0 {
				var n int
				for _, c := range strings.ReplaceAll(strings.Fields(l[k+len("… "):])[0], ",", "") {
					n = n*10 + int(c-'0')
				}
				i += n // each item is one line here
				continue
			}
			if i >= len(now) || l != now[i] {
				t.Fatalf("round %d: line %d shown is %q, want %q\nold %q\nnow %q\nexcerpts %v", round, i, l, now[min(i, len(now)-1)], old, now, exs)
			}
			i++
		}
		if i != len(now) {
			t.Fatalf("round %d: the view with its excerpts stands for %d lines, now has %d", round, i, len(now))
		}
		var all []string
		for _, e := range exs {
			for j := range e[2] {
				all = append(all, []string{"=", "-", "+"}[e[3+2*j]]+b.strs.list[e[4+2*j]])
			}
		}
		for _, h := range hs {
			for _, l := range old[h.os : h.os+h.ol] {
				if !slices.Contains(all, "-"+l) {
					t.Fatalf("round %d: removed line %q does not show in %q", round, l, all)
				}
			}
			for _, l := range now[h.ns : h.ns+h.nl] {
				if !slices.Contains(all, "+"+l) {
					t.Fatalf("round %d: added line %q does not show in %q", round, l, all)
				}
			}
		}
	}
}
