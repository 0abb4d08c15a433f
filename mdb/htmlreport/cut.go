package htmlreport

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// A section (a node's state or the network) is shown on the page as its
// view: its lines as the simulator writes them (sim/engine's text form:
// one field per line, a long list's items one per line, indented), with
// what would make the page grow with the state cut (Limits):
//
//   - a line longer than Limits.LineBytes shows its start, its length and
//     a digest of the whole: "Text: "xxxx… [100,002 bytes, digest 9c1d07e2]";
//   - a list of more than Limits.ListItems items (a slice's, a map's or a
//     struct's items below a node's top level, or the messages in flight
//     on one connection) shows its first half and its last quarter, and a
//     marker for the rest: "… 99,970 more items (digest 5b0e21aa)";
//   - a section of more than Limits.SectionLines lines after that shows
//     its first three quarters and its last lines, with a marker between.
//
// A view depends on the section's text alone, so that equal states have
// equal views (the page compares paths by their views), and a digest
// differs when what it stands for does, so that a change hidden in a cut
// still shows. What a step changed is shown apart from the view, by
// excerpts (see excerpts).

// piece is one line of a view: the section's lines [from, to), as the
// string id; hidden when it is a marker for lines the view leaves out.
type piece struct {
	from, to, id int
	hidden       bool
}

// textLines is a section's text split into lines, and the id of each
// line as views show it (-1: not asked yet), carried from step to step
// for the lines a step leaves as they were. Performance: the lines are
// offsets into the text, not strings, and a view is made again at each
// step that changes its section, most of whose lines are the step
// before's; a node holding a 1,000,000-int list has a million lines.
type textLines struct {
	text string
	// starts[i] is where line i starts; starts[n] is one past the end of
	// the last line's newline (there or not).
	starts []uint32
	ids    []int32
}

// maxText bounds the text of a section textLines splits (starts are
// 32-bit): a longer one is cut there. (On 32-bit platforms no string is
// that long.)
const maxText = min(1<<32-2, math.MaxInt)

// newTextLines splits text into lines (without a final empty one).
func newTextLines(text string) *textLines {
	if len(text) > maxText {
		text = text[:maxText]
	}
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	t := &textLines{text: text, starts: make([]uint32, 0, n+1), ids: make([]int32, n)}
	for at := 0; at < len(text); {
		t.starts = append(t.starts, uint32(at))
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
	}
	t.starts = append(t.starts, uint32(len(text)+1))
	if strings.HasSuffix(text, "\n") {
		t.starts[n] = uint32(len(text))
	}
	for i := range t.ids {
		t.ids[i] = -1
	}
	return t
}

// len returns the number of lines.
func (t *textLines) len() int { return len(t.ids) }

// line returns line i.
func (t *textLines) line(i int) string { return t.text[t.starts[i] : t.starts[i+1]-1] }

// lines returns lines [from, to).
func (t *textLines) lines(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, t.line(i))
	}
	return out
}

// next returns the lines of text now, which hunks hs made of t's, with
// what is known of the lines they kept.
func (t *textLines) next(now *textLines, hs []hunk) *textLines {
	x, y := 0, 0 // t's line and now's line after the last hunk
	keep := func(to int) { copy(now.ids[y:], t.ids[x:to]) }
	for _, h := range hs {
		keep(h.os)
		x, y = h.os+h.ol, h.ns+h.nl
	}
	keep(t.len())
	return now
}

// diff returns the hunks that turn t's lines into u's.
func (t *textLines) diff(u *textLines) []hunk {
	return diffSeq(t.len(), u.len(), func(i, j int) bool { return t.line(i) == u.line(j) })
}

// id returns line i's id as views show it: cut when it is longer than
// Limits.LineBytes.
func (t *textLines) id(b *builder, i int) int {
	if t.ids[i] < 0 {
		t.ids[i] = int32(b.lineID(t.line(i)))
	}
	return int(t.ids[i])
}

// digest returns a digest of lines [from, to).
func (t *textLines) digest(from, to int) uint32 {
	return digest(t.text[t.starts[from] : t.starts[to]-1])
}

// digest returns a 32-bit digest of s (xxhash's, folded).
func digest(s string) uint32 {
	d := xxhash.Sum64String(s)
	return uint32(d>>32) ^ uint32(d)
}

// viewer makes the view of one section's lines.
type viewer struct {
	b       *builder
	t       *textLines
	network bool
	pieces  []piece
	cut     bool
}

// view returns the view of a section's lines, and whether it cut
// anything.
func (b *builder) view(t *textLines, network bool) ([]piece, bool) {
	lim := b.o.Limits
	if n := t.len(); n <= lim.ListItems && shortLines(t, lim.LineBytes) {
		// Every line as it is (most states): no list can be too long.
		ps := make([]piece, n)
		for i := range n {
			ps[i] = piece{from: i, to: i + 1, id: t.id(b, i)}
		}
		return ps, false
	}
	v := &viewer{b: b, t: t, network: network}
	v.level(0, t.len(), true)
	if n := len(v.pieces); n > lim.SectionLines {
		head := lim.SectionLines * 3 / 4
		tail := lim.SectionLines - head - 1
		from, to := v.pieces[head].from, v.pieces[n-tail-1].to
		m := piece{from: from, to: to, hidden: true, id: b.marker(t, from, to, "lines")}
		v.pieces = append(append(v.pieces[:head:head], m), v.pieces[n-tail:]...)
		v.cut = true
	}
	return v.pieces, v.cut
}

// shortLines reports whether no line of t is longer than limit.
func shortLines(t *textLines, limit int) bool {
	for i := range t.len() {
		if int(t.starts[i+1]-1-t.starts[i]) > limit {
			return false
		}
	}
	return true
}

// item is one entry of a list in a section: its first line, the deeper
// lines after it, and the line that closes it (at its indentation, when
// its first line opens a list or a struct).
type item struct {
	start, end int
	closed     bool // lines[end-1] closes it
}

// level adds the view of lines [lo, hi): the items at one level. At the
// top, lists are the runs of items with the same key (the messages on one
// connection; a node's fields are never cut as a list); below it, all the
// items are one list. Performance: a run is walked item by item (three
// times when it is cut), not gathered, so that a list of a million items
// costs no memory.
func (v *viewer) level(lo, hi int, top bool) {
	lim := v.b.o.Limits
	for i := lo; i < hi; {
		// The run that starts at line i: its end and its items.
		end, n := i, 0
		key := lineKey(v.t.line(i))
		for end < hi && (!top || n == 0 || lineKey(v.t.line(end)) == key) {
			end = v.item(end, hi).end
			n++
		}
		x := i
		// show adds the view of the next c items.
		show := func(c int) {
			for range c {
				it := v.item(x, hi)
				v.item1(it)
				x = it.end
			}
		}
		if n <= lim.ListItems || top && !v.network {
			show(n)
		} else {
			head, tail := lim.ListItems/2, lim.ListItems/4
			show(head)
			from := x
			for range n - head - tail {
				x = v.item(x, hi).end
			}
			noun := "items"
			if v.network {
				noun = "on " + strings.TrimSpace(key)
			}
			v.pieces = append(v.pieces, piece{from: from, to: x, hidden: true, id: v.b.marker(v.t, from, x, comma(n-head-tail)+" more "+noun)})
			v.cut = true
			show(tail)
		}
		i = end
	}
}

// item returns the item that starts at line i.
func (v *viewer) item(i, hi int) item {
	d := indent(v.t.line(i))
	j := i + 1
	for j < hi && indent(v.t.line(j)) > d {
		j++
	}
	if opens(v.t.line(i)) && j < hi && closes(v.t.line(j), d) {
		return item{i, j + 1, true}
	}
	return item{i, j, false}
}

// item1 adds the view of one item shown: its first line, its own items
// and its closing line.
func (v *viewer) item1(it item) {
	v.line(it.start)
	end := it.end
	if it.closed {
		end--
	}
	if it.start+1 < end {
		v.level(it.start+1, end, false)
	}
	if it.closed {
		v.line(end)
	}
}

// line adds line i, cut when it is too long.
func (v *viewer) line(i int) {
	if len(v.t.line(i)) > v.b.o.Limits.LineBytes {
		v.cut = true
	}
	v.pieces = append(v.pieces, piece{from: i, to: i + 1, id: v.t.id(v.b, i)})
}

// lineID returns the id of line l as views show it.
func (b *builder) lineID(l string) int {
	if len(l) > b.o.Limits.LineBytes {
		return b.strs.id(cutLine(l, b.o.Limits.LineBytes, nil))
	}
	return b.strs.id(l)
}

func indent(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

func opens(l string) bool { return strings.HasSuffix(l, "[") || strings.HasSuffix(l, "{") }

func closes(l string, d int) bool {
	return len(l) == d+1 && indent(l) == d && (l[d] == ']' || l[d] == '}')
}

// lineKey is what a line's item is named by: the text before its first
// ": " ("conn 0->1" for a message in flight, a field's name, a list's
// index or a map's key).
func lineKey(l string) string {
	k, _, _ := strings.Cut(l, ": ")
	return k
}

// marker returns the id of a marker standing for lines [from, to) of t:
// indented as the first of them, it says how many there are (text: "12
// more items"; "lines": the count of lines) and their digest.
func (b *builder) marker(t *textLines, from, to int, text string) int {
	if text == "lines" {
		text = comma(to-from) + " more lines"
	}
	return b.markerText(strings.Repeat(" ", indent(t.line(from))) + "… " + text + " (digest " + hex32(t.digest(from, to)) + ")")
}

func hex32(x uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[x&15]
		x >>= 4
	}
	return string(b[:])
}

// markerText returns the id of a marker's text, which the page styles as
// one.
func (b *builder) markerText(text string) int {
	id := b.strs.id(text)
	if b.markers == nil {
		b.markers = map[int]bool{}
	}
	b.markers[id] = true
	return id
}

// span is a range of bytes of a line.
type span struct{ from, to int }

// Bytes of a cut line shown around a change, and at its start when a
// change is shown too.
const (
	aroundChange = 24
	changeBytes  = 80
	startBytes   = 40
)

// cutLine cuts line l, longer than limit bytes: it shows the line's start
// (about three quarters of limit) or, given the bytes a change spans,
// the first startBytes and the change with aroundChange bytes either
// side (at most changeBytes of the change), then the line's length and
// digest.
func cutLine(l string, limit int, change *span) string {
	var shown []span
	if change == nil {
		shown = []span{{0, limit * 3 / 4}}
	} else {
		from := max(0, change.from-aroundChange)
		to := min(len(l), min(change.to, change.from+changeBytes)+aroundChange)
		shown = []span{{0, startBytes}}
		if from <= startBytes {
			shown[0].to = max(startBytes, to)
		} else {
			shown = append(shown, span{from, to})
		}
	}
	var b strings.Builder
	end := 0
	for _, s := range shown {
		from, to := runeStart(l, s.from), runeStart(l, min(s.to, len(l)))
		if from > end {
			b.WriteString("…")
		}
		b.WriteString(l[from:to])
		end = to
	}
	if end < len(l) {
		b.WriteString("…")
	}
	fmt.Fprintf(&b, " [%s bytes, digest %s]", comma(len(l)), hex32(digest(l)))
	return b.String()
}

// runeStart moves i back to the start of the rune it is in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// changed returns the bytes of a and b that differ: [from, a's to) and
// [from, b's to), between their common start and end.
func changed(a, b string) (sa, sb span) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return span{pre, len(a) - suf}, span{pre, len(b) - suf}
}

// Excerpts. When a step changes a section whose view is cut (or was), the
// page shows what changed in an excerpt of the view: the changed lines
// (those removed, then those added) with contextLines unchanged lines
// either side, taken whole from the section's text however deep in a cut
// list they lie, in place of the pieces of the view they fall in. A
// change of more than 2*changeLines lines shows its first and last
// changeLines lines removed and added; the step's changes past maxHunks
// are shown as one.
const (
	contextLines = 2
	changeLines  = 4
	maxHunks     = 16
)

// Excerpt line kinds (pathData.Views).
const (
	opSame = 0
	opDel  = 1
	opAdd  = 2
)

// excerpts returns the excerpts of a step that changed a section's lines
// from old to now by hunks hs, now's view being ps: each is the position
// of the first piece it replaces, how many, and its lines as (op, id)
// pairs.
func (b *builder) excerpts(old, nt *textLines, hs []hunk, ps []piece) [][]int {
	if len(hs) > maxHunks {
		last := hs[len(hs)-1]
		h := hs[maxHunks-1]
		hs = append(hs[:maxHunks-1:maxHunks-1], hunk{h.os, last.os + last.ol - h.os, h.ns, last.ns + last.nl - h.ns})
	}
	// Windows: the hunks with their context, in now's lines, merged when
	// they touch.
	type window struct {
		from, to int
		hs       []hunk
	}
	var ws []window
	for _, h := range hs {
		from, to := max(0, h.ns-contextLines), min(nt.len(), h.ns+h.nl+contextLines)
		if n := len(ws); n > 0 && from <= ws[n-1].to {
			ws[n-1].to = max(ws[n-1].to, to)
			ws[n-1].hs = append(ws[n-1].hs, h)
			continue
		}
		ws = append(ws, window{from, to, []hunk{h}})
	}
	// The pieces each window falls in; windows in the same pieces make
	// one excerpt.
	pieceAt := func(line int) int { // the piece that holds line, or len(ps)
		lo, hi := 0, len(ps)
		for lo < hi {
			m := (lo + hi) / 2
			if ps[m].to <= line {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo
	}
	var out [][]int
	for i := 0; i < len(ws); {
		pa, pb := pieceAt(ws[i].from), pieceAt(max(ws[i].from, ws[i].to-1))+1
		j := i + 1
		for j < len(ws) && pieceAt(ws[j].from) < pb {
			pb = pieceAt(max(ws[j].from, ws[j].to-1)) + 1
			j++
		}
		pb = min(pb, len(ps))
		pa = min(pa, pb)
		var lines []int
		add := func(op, id int) { lines = append(lines, op, id) }
		// gap adds now's lines [x, y) as the view shows them: the pieces
		// shown, and a marker for the part of a hidden one.
		gap := func(x, y int) {
			if x >= y {
				return
			}
			for k := pieceAt(x); k < len(ps) && ps[k].from < y; k++ {
				p := ps[k]
				switch {
				case !p.hidden || p.from >= x && p.to <= y:
					add(opSame, p.id)
				default:
					f, t := max(p.from, x), min(p.to, y)
					add(opSame, b.markerText(fmt.Sprintf("%s… %s more lines", strings.Repeat(" ", indent(nt.line(f))), comma(t-f))))
				}
			}
		}
		x := 0
		if pa < len(ps) {
			x = ps[pa].from
		}
		for _, w := range ws[i:j] {
			gap(x, w.from)
			x = w.from
			for _, h := range w.hs {
				for ; x < h.ns; x++ {
					add(opSame, nt.id(b, x))
				}
				b.changeLines(add, old, h.os, h.ol, nt, h.ns, h.nl)
				x = h.ns + h.nl
			}
			for ; x < w.to; x++ {
				add(opSame, nt.id(b, x))
			}
		}
		if pb > pa {
			gap(x, ps[pb-1].to)
		}
		out = append(out, append([]int{pa, pb - pa, len(lines) / 2}, lines...))
		i = j
	}
	return out
}

// changeLines adds the lines a hunk removed (old's lines [os, os+ol)) and
// added (now's [ns, ns+nl)), at most changeLines either end of each; a
// long line paired with the one that took its place shows the bytes that
// changed.
func (b *builder) changeLines(add func(op, id int), old *textLines, os, ol int, now *textLines, ns, nl int) {
	limit := b.o.Limits.LineBytes
	side := func(op int, t *textLines, at, n int, other *textLines, oat, on int, noun string) {
		for i := 0; i < n; i++ {
			if n > 2*changeLines && i == changeLines {
				add(op, b.markerText(fmt.Sprintf("%s… %s more lines %s", strings.Repeat(" ", indent(t.line(at+i))), comma(n-2*changeLines), noun)))
				i = n - changeLines
			}
			l := t.line(at + i)
			if len(l) > limit {
				var ch *span
				if i < on {
					s, _ := changed(l, other.line(oat+i))
					ch = &s
				}
				l = cutLine(l, limit, ch)
			}
			add(op, b.strs.id(l))
		}
	}
	side(opDel, old, os, ol, now, ns, nl, "removed")
	side(opAdd, now, ns, nl, old, os, ol, "added")
}
