package engine

import (
	"bytes"
	"encoding"
	"fmt"
	"github.com/cespare/xxhash/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// FormatValue returns a stable one-line text form of v, e.g.
// "Ack{seq: 6001, syn: true}": fields in declaration order (unexported
// ones included, tagged `macemc:"-"` ones and those that are no state
// left out), maps in key order, pointers followed, no addresses; a
// struct, array or slice with a text form of its own
// (encoding.TextMarshaler: a decimal, a UUID, a time) as that text, bytes
// as a quoted string. Two values with the same text are alike for the
// debugger (it pairs a delivery with its send by it); logs and event
// descriptions use FormatValueCut.
func FormatValue(v any) string { return formatValue(v, 0) }

// FormatValueCut is FormatValue with every string or byte slice longer than
// maxString bytes cut there and followed by how many bytes it left out and
// a digest of the whole, e.g. "Blob{Data: "aaaa"… (199,782 bytes more,
// digest 1c0ffee5)}", so that two values that differ past the cut still
// read differently. Logs and one-line mentions of an event use it: quoting
// a 200 KB payload at every logged step of a 20,000-step path took minutes.
func FormatValueCut(v any, maxString int) string { return formatValue(v, maxString) }

func formatValue(v any, maxString int) string {
	f := getFormatter(false, maxString)
	defer putFormatter(f)
	return f.oneLine(reflect.ValueOf(v))
}

// FormatState returns a stable multi-line text form of v for the
// debugger's state views and diffs (seed 003 Figure 3): one field per
// line, nested values indented, short values kept on one line.
func FormatState(v any) string {
	f := getFormatter(true, 0)
	defer putFormatter(f)
	return f.state(v)
}

// NodeText returns the text form of node id's state, with its scheduled
// timers (their names as safetext.QuoteUnsafe shows them) and pending
// driver requests.
func (s *Sim) NodeText(id sim.NodeID) string {
	nd := &s.w.nodes[id]
	var b strings.Builder
	b.WriteString(s.NodeTitle(id) + "\n")
	if nd.down {
		// Its struct stays as it was when it crashed, as properties
		// see it (sim.All): say that nothing of it runs any more.
		b.WriteString("down: crashed for good (Failures.Crashes); its state below is as it crashed, and nothing of it runs again\n")
	}
	b.WriteString(s.serviceText(id))
	var armed []string
	for _, t := range nd.timers {
		if t.armed {
			// A name is quoted when it holds a newline or a control
			// character: it must not make lines of the state's own.
			name := safetext.QuoteUnsafe(t.name)
			if t.periodic {
				armed = append(armed, name+" (periodic)")
			} else {
				armed = append(armed, name)
			}
		}
	}
	fmt.Fprintf(&b, "timers: [%s]\n", strings.Join(armed, ", "))
	if nd.appNext < len(nd.app) {
		var reqs []string
		for _, r := range nd.app[nd.appNext:] {
			reqs = append(reqs, FormatValue(r))
		}
		fmt.Fprintf(&b, "driver: [%s]\n", strings.Join(reqs, ", "))
	}
	return b.String()
}

// NodeTitle returns the first line of NodeText, e.g. "node 1 (Chord)": the
// node and the type of its service, without reading its state.
func (s *Sim) NodeTitle(id sim.NodeID) string {
	return fmt.Sprintf("node %d (%s)", id, typeName(reflect.TypeOf(s.w.svcs[id])))
}

// textMemo keeps, for each node, the state text NodeText made last and
// the canonical encoding of the service it was made from.
type textMemo struct {
	enc   encoder
	nodes []nodeText
}

// nodeText is a node's state text and the encoding it was made from (ok:
// made at all).
type nodeText struct {
	enc  []byte
	text string
	ok   bool
}

// serviceText returns FormatState of node id's service. Performance: the
// text made last for the node is reused when the service's canonical
// encoding is the one it was made from. Equal encodings give equal texts:
// the text shows exactly the fields the encoding holds (both leave out
// `macemc:"-"` fields, funcs and channels, and both go through the same
// canonical forms), maps in an order of their contents. Encoding a node
// costs a few percent of formatting it, and along a path most steps leave
// the node whose handler ran as it was: transport's 20,000-step dead path
// changes a node's state 7 times, so the report page, which shows every
// step's state, formats 7 states instead of 20,000.
func (s *Sim) serviceText(id sim.NodeID) string {
	svc := s.w.svcs[id]
	if s.texts == nil {
		s.texts = &textMemo{}
	}
	m := s.texts
	if len(m.nodes) != s.n {
		m.nodes = make([]nodeText, s.n)
	}
	// From scratch, even after an encoding a panicking Canonical cut short.
	m.enc.buf, m.enc.tmp = m.enc.buf[:0], m.enc.tmp[:0]
	m.enc.seen.truncate(0)
	nm := &m.nodes[id]
	if !m.encode(svc, s.maxBytes) {
		// Past the simulator's bound (a library's type graph reached
		// through a pointer, encoded once per path to each of its
		// objects): no memo, and the text is cut short (see formatter).
		nm.ok = false
		m.enc.buf = nil
		return FormatState(svc)
	}
	if nm.ok && bytes.Equal(nm.enc, m.enc.buf) {
		return nm.text
	}
	nm.ok = false
	nm.text = FormatState(svc)
	nm.enc, nm.ok = append(nm.enc[:0], m.enc.buf...), true
	if cap(m.enc.buf) > 1<<20 {
		m.enc.buf = nil // do not keep a huge buffer
	}
	return nm.text
}

// encode encodes v into m.enc.buf within limit bytes; false when it
// stopped there.
func (m *textMemo) encode(v any, limit int) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, stop := r.(encodeStop); !stop {
				panic(r)
			}
			m.enc.seen.truncate(0)
			m.enc.tmp = m.enc.tmp[:0]
			ok = false
		}
	}()
	m.enc.interrupt = nil
	m.enc.arm(limit)
	m.enc.value(v)
	return true
}

// NetworkText returns the text form of everything in flight.
func (s *Sim) NetworkText() string {
	var b strings.Builder
	for c := range s.w.conns {
		q := &s.w.conns[c]
		for j := q.head; j < len(q.items); j++ {
			p := &q.items[j]
			fmt.Fprintf(&b, "conn %d->%d: %s\n", p.from, p.to, s.messageText(p))
		}
	}
	for i := range s.w.dgrams {
		p := &s.w.dgrams[i]
		fmt.Fprintf(&b, "datagram %d->%d: %s\n", p.from, p.to, s.messageText(p))
	}
	for i, nd := range s.w.nodes {
		for _, p := range nd.connErrs {
			fmt.Fprintf(&b, "connerror at %d: peer %d\n", i, p)
		}
	}
	return b.String()
}

// messageText is FormatValue of the message in flight p, remembered by
// its type and canonical hash (msgHash, cached with it): NetworkText,
// which a report page asks for after every step, formats each message
// once, not once a step for as long as it is in flight. A message that
// holds what hashing cannot read is formatted afresh.
func (s *Sim) messageText(p *pending) string {
	h := s.msgHash(p)
	if h == 1 || h&2 != 0 {
		return FormatValue(p.msg)
	}
	k := textKey{h, reflect.TypeOf(p.msg)}
	if t, ok := s.msgTexts[k]; ok {
		return t
	}
	if len(s.msgTexts) >= 1<<14 || s.msgTexts == nil {
		s.msgTexts = make(map[textKey]string)
	}
	t := FormatValue(p.msg)
	s.msgTexts[k] = t
	return t
}

// textKey names a message's text: its canonical hash and its type.
type textKey struct {
	hash uint64
	t    reflect.Type
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// formatter makes the text forms in two passes. The first (value) walks
// the value once, in the order the text shows it, into a tree of nodes
// (tnode) that knows each value's one-line width; the second writes the
// tree on one line (oneLine) or one field per line (state), where a value
// goes on one line when it fits and is expanded otherwise. So a value's
// text is made once, however deep it lies: no level of nesting holds its
// children's text again.
//
// A pointer to a value the text already shows (reached by another route)
// is shown as where it was shown, "<same as .lru.evictList.root.next>",
// and a pointer back to a value that holds it as "<cycle>": a node that
// holds a doubly linked list and a map of its elements (an LRU cache)
// shows each element once, not once per route to it. The rule is the
// canonical encoding's (see the pointer encoder), so that equal encodings
// still give equal texts (serviceText reuses a text by its encoding): a
// pointer whose target's type has a tree program is shown whole wherever
// it is met, as the encoder follows it, a map's entry only refers to what
// came before the map or to itself, and the value at the top of an
// encoding (a node's state, a Canonical form) is no target.
//
// The text is bounded, whatever the value graph: past limit values (a
// graph with more paths than can be followed, shared sub-values in
// entries of maps) or maxNesting levels of nesting the values that hold
// something (a composite value that is not empty) are shown as "…", as
// is the rest of a list or map of such values; past bytes*7/8 bytes
// (every line of the text counted as if each value had one of its own,
// with its indentation, and at least minNodeBytes: the count is at least
// the text's length) so are strings, and the rest of any list or map is
// one "…", while the fields of a struct left are shown only as long as
// the text stays within bytes (and not in a struct deeper than
// maxLayoutDepth). An empty or nil value and a number are shown as
// themselves even past the cut: "…" always stands for something left
// out. A text cut short ends with cutText. Formatting takes memory in
// proportion to bytes: the tree, 40 bytes a value, and the text.
type formatter struct {
	// limit bounds the values formatted (0: maxLineValues), bytes the
	// text's length (0: maxLineBytes); maxString, when not 0, the bytes
	// of a string or byte slice shown (FormatValueCut).
	limit, bytes, maxString int
	// block: the text is laid out one field per line (FormatState).
	block bool

	n     int  // values formatted
	nest  int  // values nested around the one being formatted
	used  int  // the most bytes the text takes so far
	cut   bool // a value was left out
	depth int  // the composite values around the one being formatted
	inKey int  // > 0: formatting a map's key (shown inline, refers to nothing)
	top   bool // the value is at the top of an encoding (see pointer)

	nodes  []tnode
	labels []string // the nodes' labels; labels[0] is ""
	kids   []int32  // the children of each composite node, in order
	stk    []int32  // children of the composite nodes being formatted

	anc  ptrList // the pointers followed to the value being formatted
	seen ptrList // the pointers whose targets are shown, with where (pnodes)

	path   []pathStep // where the value being formatted is
	mat    int        // path[:mat] have their pnodes
	pnodes []pathNode
	runs   []int32 // sameAs's scratch
}

// tnode is a value's node in the formatter's tree.
type tnode struct {
	text  string // a leaf's text; a struct's type name; "chan"
	width int32  // the length of its one-line text
	// kids, nkids: its children in formatter.kids.
	kids, nkids int32
	amps        int32 // how many "&" before it
	// label: the field's name or the map key's text it follows, in
	// formatter.labels (0: none).
	label  int32
	kind   uint8
	closed bool // a closed channel
	rest   bool // "…": the remaining fields or elements were left out
}

// label returns node id's label ("" for none).
func (f *formatter) label(id int32) string { return f.labels[f.nodes[id].label] }

// setLabel labels node id.
func (f *formatter) setLabel(id int32, l string) {
	f.nodes[id].label = int32(len(f.labels))
	f.labels = append(f.labels, l)
}

// The kinds of tnode.
const (
	nodeLeaf = iota
	nodeStruct
	nodeMap
	nodeList
	nodeChan // shown on one line in any layout
)

// pathStep is a step of the path to a value: a field, an index or a key.
type pathStep struct {
	kind uint8
	s    string // field name, key text
	i    int    // index
	node int32  // its pathNode once made (see where)
}

const (
	stepField = iota
	stepIndex
	stepKey
)

// pathNode is a path kept for a pointer shown (formatter.seen): count
// times the same segment after parent's path (-1: the top). A segment is
// a field, an index or a key, or a field and the index or key after it
// (".Fields[0]").
type pathNode struct {
	parent, count int32
	field         string // "": none
	kind          uint8  // stepIndex, stepKey; stepField: neither
	s             string
	i             int
}

// textPtr names a pointer as the encoder does: its address and its type.
type textPtr struct {
	p uintptr
	t reflect.Type
}

// ptrList is a list of pointers with a value each, searched linearly
// while it is short and through an index once it is long (a deep list's
// chain of pointers).
type ptrList struct {
	keys  []textPtr
	vals  []int32
	index map[textPtr]int32 // key -> position
}

// ptrListIndex is the length past which a ptrList keeps an index.
const ptrListIndex = 32

// find returns k's value, if k is in the list.
func (l *ptrList) find(k textPtr) (int32, bool) {
	if l.index != nil {
		i, ok := l.index[k]
		if !ok {
			return 0, false
		}
		return l.vals[i], true
	}
	for i := len(l.keys) - 1; i >= 0; i-- {
		if l.keys[i] == k {
			return l.vals[i], true
		}
	}
	return 0, false
}

// add appends k, not in the list, with value v. (Not inlined: it would
// take formatter.pointer's frame, on the stack once per level of a chain,
// from 250 bytes to 400.)
//
//go:noinline
func (l *ptrList) add(k textPtr, v int32) {
	l.keys = append(l.keys, k)
	l.vals = append(l.vals, v)
	switch {
	case l.index != nil:
		l.index[k] = int32(len(l.keys) - 1)
	case len(l.keys) > ptrListIndex:
		l.index = make(map[textPtr]int32, 2*len(l.keys))
		for i, q := range l.keys {
			l.index[q] = int32(i)
		}
	}
}

func (l *ptrList) len() int { return len(l.keys) }

// truncate keeps the first n keys.
func (l *ptrList) truncate(n int) {
	if n <= ptrListIndex {
		l.index = nil
	} else {
		for _, k := range l.keys[n:] {
			delete(l.index, k)
		}
	}
	clear(l.keys[n:])
	l.keys, l.vals = l.keys[:n], l.vals[:n]
}

// maxTextValues bounds the values a node's text form formats (FormatState),
// maxLineValues those of a one-line form (FormatValue). maxTextBytes bounds
// a node's text form, its cut note included: a node of 100,000 numbers
// and a 100 KB string (the scale trial's bigstate) takes 1.7 MB, and 4
// MiB is a quarter of what a report page keeps of a path's
// states (htmlreport.Limits), while mdb and the page make one for each
// state of a path that changed. maxLineBytes bounds a one-line form: logs,
// event descriptions, the network view and the page make one for each
// message of a path (tens of thousands), and a line of more than 256 KiB
// is read by no one; it still holds maxLineValues values of 100 bytes,
// and a 200 KB payload whole where FormatValueCut does not cut it.
const (
	maxTextValues = 1 << 16
	maxLineValues = 1 << 11
	maxTextBytes  = 4 << 20
	maxLineBytes  = 256 << 10
)

// maxRefPath bounds the path a "<same as …>" shows: past it the path's
// middle is left out. Runs of the same step (a list's .next) are shown
// once with their count, so paths are longer than this only in trees
// hundreds of levels deep.
const maxRefPath = 200

// minNodeBytes is the least a value adds to formatter.used, whatever its
// text: the tree a text is made from takes 40 bytes a value, so that a
// list of a million zeros ("0, ") shown up to the bound of bytes took
// thirteen times the bound. Now the tree takes at most 2.5 times it.
const minNodeBytes = 16

// minEntryBytes is the least a map entry adds to formatter.used: a map
// shows at most (bytes left)/minEntryBytes + 1 entries before its cut.
const minEntryBytes = minNodeBytes

// cutText ends a text form cut at its bound of values or bytes.
const cutText = "(… text cut: too large; give the types that hold the bulk a canonical form, sim.RegisterCanonical, or tag their fields macemc:\"-\")"

const inlineWidth = 72

// maxLayoutDepth bounds the levels of nesting a multi-line text expands:
// a value deeper (at 40 spaces of indentation) is written on one line,
// fit or not. A linked list of 1,000 elements took 1,000 levels and 3.9
// MB of mostly spaces, most of it cut, where it now takes 20 levels and
// a line of 100 KB.
const maxLayoutDepth = 20

// maxNesting bounds the values nested in one another that a text shows
// (pointers followed included): formatting takes a few hundred bytes of
// stack per level (a list's element takes two), and a list of 100,000
// elements took 134 MB of it.
const maxNesting = 10_000

// formatters are reused: a report page formats a message or a state at
// every step.
var formatters = sync.Pool{New: func() any { return new(formatter) }}

// getFormatter returns a formatter for FormatState (block) or FormatValue.
func getFormatter(block bool, maxString int) *formatter {
	f := formatters.Get().(*formatter)
	f.block, f.maxString, f.n = block, maxString, 0
	if block {
		f.limit, f.bytes = maxTextValues, maxTextBytes
	} else {
		f.limit, f.bytes = maxLineValues, maxLineBytes
	}
	return f
}

// putFormatter returns f to the pool, without what it holds of a text.
func putFormatter(f *formatter) {
	f.reset()
	if cap(f.nodes) > 1<<16 || cap(f.pnodes) > 1<<16 {
		return // do not keep a huge tree
	}
	formatters.Put(f)
}

// reset readies f for a new text (not its count of values: see
// differ's mapKeys).
func (f *formatter) reset() {
	clear(f.nodes)
	clear(f.labels)
	clear(f.path)
	clear(f.pnodes)
	f.nodes, f.kids, f.stk, f.path, f.pnodes = f.nodes[:0], f.kids[:0], f.stk[:0], f.path[:0], f.pnodes[:0]
	f.labels = append(f.labels[:0], "")
	f.anc.truncate(0)
	f.seen.truncate(0)
	f.used, f.cut, f.depth, f.nest, f.inKey, f.top, f.mat = 0, false, 0, 0, 0, false, 0
}

func (f *formatter) max() int {
	if f.limit == 0 {
		return maxLineValues
	}
	return f.limit
}

func (f *formatter) maxBytes() int {
	if f.bytes == 0 {
		return maxLineBytes
	}
	return f.bytes
}

// cutAt is the bytes past which values that hold something are cut.
func (f *formatter) cutAt() int { return f.maxBytes() - f.maxBytes()/8 }

// ceil is the bytes the text stays within, but for its cut note (which
// fits in the rest when bytes is not tiny).
func (f *formatter) ceil() int { return f.maxBytes() - f.maxBytes()/64 }

// oneLine returns v's one-line text, ending with cutText if cut.
func (f *formatter) oneLine(v reflect.Value) string {
	txt := f.inline(v)
	if f.cut {
		txt += " " + cutText
	}
	return txt
}

// inline returns v's one-line text (the differ's descriptions of values
// use it on a formatter of their own).
func (f *formatter) inline(v reflect.Value) string {
	f.reset()
	f.top = true
	return f.text(f.value(v, 0))
}

// state returns v's multi-line text (FormatState).
func (f *formatter) state(v any) string { return f.layout(f.stateRoot(v)) }

// stateRoot formats v for state, and returns its node: its pointers are
// followed, as the top of an encoding is.
func (f *formatter) stateRoot(v any) int32 {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	f.reset()
	f.depth = -1 // the top's fields are not indented
	f.top = true
	return f.value(rv, 0)
}

// layout writes root, formatted by stateRoot, one field per line.
func (f *formatter) layout(root int32) string {
	var b strings.Builder
	b.Grow(f.layoutSize(root))
	if n := &f.nodes[root]; n.kind == nodeStruct && n.amps == 0 {
		for _, k := range f.kids[n.kids : n.kids+n.nkids] {
			f.writeLine(&b, 0, f.label(k), k)
		}
	} else {
		f.writeInline(&b, root)
		b.WriteByte('\n')
	}
	if f.cut {
		b.WriteString(cutText + "\n")
	}
	return b.String()
}

// lineCost is the most a value's line adds to the text: its text of n
// bytes after a label of lab bytes (its ": " included), indented on a
// line of its own, or followed by ", " on one line.
func (f *formatter) lineCost(lab, n int) int {
	if f.ownLine() {
		return 2*max(f.depth, 0) + lab + n + 1
	}
	return lab + n + 2
}

// ownLine reports whether the value being formatted may have a line of
// its own: in a multi-line text, not in a map's key, at most
// maxLayoutDepth deep.
func (f *formatter) ownLine() bool {
	return f.block && f.inKey == 0 && f.depth <= maxLayoutDepth
}

// room is how many bytes of text a value after a label of lab bytes may
// take before the cut (at least a few).
func (f *formatter) room(lab int) int {
	return max(f.cutAt()-f.used-f.lineCost(lab, 0), 64)
}

// leaf adds a value shown as text, after a label of lab bytes.
func (f *formatter) leaf(text string, lab int) int32 {
	f.used += max(f.lineCost(lab, len(text)), minNodeBytes)
	f.nodes = append(f.grow(), tnode{text: text, width: int32(len(text))})
	return int32(len(f.nodes) - 1)
}

// grow returns f.nodes with room for one more node. Performance: the
// nodes double, where append grows a large slice by a quarter (a text of a
// million numbers allocated five times its nodes).
func (f *formatter) grow() []tnode {
	if len(f.nodes) == cap(f.nodes) {
		f.nodes = slices.Grow(f.nodes, max(len(f.nodes), 64))
	}
	return f.nodes
}

// open adds a composite value of kind, shown after text (a struct's type
// name) and a label of lab bytes: the line it opens, and the line that
// closes it and one of "…" (see rest) when it is expanded.
func (f *formatter) open(kind uint8, text string, lab int) int32 {
	head := len(text) + 1
	if f.block && f.depth < 0 {
		head = 1 // the top of a state: its name is not shown (and may be long)
	}
	f.used += max(f.lineCost(lab, head), minNodeBytes)
	if f.ownLine() {
		d := max(f.depth, 0)
		f.used += 2*d + 2 + 2*(d+1) + len("…") + 1
	} else {
		f.used += 1 + len(", …")
	}
	if kind == nodeChan {
		f.used += len(" (closed)")
	}
	f.nodes = append(f.grow(), tnode{kind: kind, text: text})
	f.depth++
	return int32(len(f.nodes) - 1)
}

// close ends composite node id, whose children are f.stk[mark:].
func (f *formatter) close(id int32, mark int) {
	f.depth--
	n := &f.nodes[id]
	n.kids, n.nkids = int32(len(f.kids)), int32(len(f.stk)-mark)
	w := len(n.text) + 2
	for j, k := range f.stk[mark:] {
		kn := &f.nodes[k]
		if j > 0 {
			w += len(", ")
		}
		if kn.label != 0 {
			w += len(f.labels[kn.label]) + len(": ")
		}
		w += int(kn.width)
	}
	if n.closed {
		w += len(" (closed)")
	}
	n.width = int32(w)
	f.kids = append(f.kids, f.stk[mark:]...)
	f.stk = f.stk[:mark]
}

// rest adds "…" for the fields or elements of the composite value being
// formatted that are left out (its bytes were counted by open).
func (f *formatter) rest() {
	f.cut = true
	f.nodes = append(f.grow(), tnode{text: "…", width: int32(len("…")), rest: true})
	f.stk = append(f.stk, int32(len(f.nodes)-1))
}

// holds reports whether v holds something, which the cut shows as "…":
// a composite value that is not empty, past the bound of bytes a string
// or a channel that is not empty either.
func holds(v reflect.Value, bytes bool) bool {
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Struct:
		return len(textTypeOf(v.Type()).fields) > 0
	case reflect.Array, reflect.Slice, reflect.Map:
		return v.Len() > 0
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil()
	case reflect.String:
		return bytes && v.Len() > 0
	case reflect.Chan:
		return bytes && !v.IsNil() && v.Len() > 0
	}
	return false
}

// value adds v, shown after a label of lab bytes, and returns its node.
// Past maxNesting values nested in one another (pointers followed
// included) a value that holds something is cut, so that a chain of
// pointers takes a bounded stack.
func (f *formatter) value(v reflect.Value, lab int) int32 {
	top := f.top
	f.top = false
	f.n++
	if past := f.used > f.cutAt(); past || f.n > f.max() || f.nest >= maxNesting {
		if holds(v, past) {
			f.cut = true
			return f.leaf("…", lab)
		}
	}
	if !v.IsValid() {
		return f.leaf("nil", lab)
	}
	var tt *textType
	if v.Kind() != reflect.Interface {
		tt = textTypeOf(v.Type())
		if cv, ok := f.canonicalOf(v, tt); ok {
			f.top = true // the encoder encodes a canonical form as a value of its own
			return f.value(cv, lab)
		}
		if tt.special {
			if id, ok := f.special(v, tt, lab); ok {
				return id
			}
		}
	}
	var id int32
	f.nest++
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Len() > 0 {
			id = f.leaf(f.quote(byteString(v), lab), lab)
		} else {
			id = f.list(v, lab)
		}
	case reflect.Map:
		id = f.mapValue(v, lab)
	case reflect.Pointer:
		id = f.pointer(v, tt, top, lab)
	case reflect.Interface:
		if v.IsNil() {
			id = f.leaf("nil", lab)
		} else {
			id = f.value(v.Elem(), lab)
		}
	case reflect.Struct:
		id = f.structValue(v, tt, lab)
	case reflect.Chan:
		id = f.chanValue(v, lab)
	default:
		id = f.leaf(f.scalar(v, lab), lab)
	}
	f.nest--
	return id
}

// special adds v when it is shown as a text of its own: a type that is no
// state as its name, a named scalar type's String, a struct, array or
// slice type's MarshalText.
//
//go:noinline
func (f *formatter) special(v reflect.Value, tt *textType, lab int) (int32, bool) {
	if tt.noState {
		return f.leaf("<"+v.Type().String()+">", lab), true
	}
	if tt.stringer {
		if name, ok := stringer(v); ok {
			return f.leaf(f.fit(name, lab), lab), true
		}
	}
	if tt.marshalValue || tt.marshalPtr {
		if txt, ok := textForm(v); ok {
			return f.leaf(f.fit(txt, lab), lab), true
		}
	}
	return 0, false
}

// scalar returns the text of v, of a kind that holds no other value,
// shown after a label of lab bytes.
//
//go:noinline
func (f *formatter) scalar(v reflect.Value, lab int) string {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return fmt.Sprint(v.Complex())
	case reflect.String:
		return f.quote(v.String(), lab)
	case reflect.Func:
		if v.IsNil() {
			return "nil"
		}
		return "func " + funcOf(v).short
	case reflect.UnsafePointer:
		return "<" + v.Kind().String() + ">"
	}
	return "?"
}

// pointer adds pointer v (of type tt; top: at the top of an encoding).
// A pointer back to a value that holds it is "<cycle>"; one to a value
// shown already "<same as PATH>", with the path where it was shown: only
// where the encoder writes a reference too (it numbers the pointers it
// follows but those whose targets have a tree program and those at the
// top of an encoding, and forgets those met in an entry of a map after
// it, see encodeMap), so that equal encodings give equal texts. Others
// are followed.
func (f *formatter) pointer(v reflect.Value, tt *textType, top bool, lab int) int32 {
	if v.IsNil() {
		return f.leaf("nil", lab)
	}
	if top {
		// The encoder follows it without numbering it: what points back
		// to it shows it again (once: that pointer is numbered).
		return f.amp(f.value(v.Elem(), lab))
	}
	k := textPtr{v.Pointer(), v.Type()}
	if _, ok := f.anc.find(k); ok {
		return f.leaf("<cycle>", lab)
	}
	if tt.shared && f.inKey == 0 {
		if at, ok := f.seen.find(k); ok {
			return f.leaf(f.sameAs(at), lab)
		}
		f.seen.add(k, f.where())
	}
	f.anc.add(k, 0)
	id := f.value(v.Elem(), lab)
	f.anc.truncate(f.anc.len() - 1)
	return f.amp(id)
}

// amp marks node id as pointed to: "&" before it.
func (f *formatter) amp(id int32) int32 {
	n := &f.nodes[id]
	n.amps++
	n.width++
	f.used++
	return id
}

// structValue adds struct v of type tt.
func (f *formatter) structValue(v reflect.Value, tt *textType, lab int) int32 {
	id := f.open(nodeStruct, tt.name, lab)
	mark := len(f.stk)
	v = addressable(v) // see field
	for k, i := range tt.fields {
		name := tt.names[k]
		// Past the cut a field still shows what it is when it is empty
		// or a number, as long as it fits, but in a struct deeper than
		// a text is laid out (a long list's elements, left as the cut
		// unwinds) the rest is one "…".
		past := f.used > f.cutAt()
		if past && f.depth > maxLayoutDepth {
			f.rest()
			break
		}
		used, nodes, n := f.used, len(f.nodes), f.n
		f.push(pathStep{kind: stepField, s: name})
		kid := f.value(field(v, i), len(name)+len(": "))
		f.pop()
		if past && f.used > f.ceil() {
			f.used, f.nodes, f.n = used, f.nodes[:nodes], n
			f.rest()
			break
		}
		f.setLabel(kid, name)
		f.stk = append(f.stk, kid)
	}
	f.close(id, mark)
	return id
}

// list adds slice or array v (not of bytes).
func (f *formatter) list(v reflect.Value, lab int) int32 {
	id := f.open(nodeList, "", lab)
	mark := len(f.stk)
	for i := 0; i < v.Len(); i++ {
		el := v.Index(i)
		if f.restCut(el, reflect.Value{}) {
			f.rest()
			break
		}
		f.push(pathStep{kind: stepIndex, i: i})
		kid := f.value(el, f.indexLab(i))
		f.pop()
		f.stk = append(f.stk, kid)
	}
	f.close(id, mark)
	return id
}

// indexLab is the label of element i of a list: its index and ": " when
// the list is expanded.
func (f *formatter) indexLab(i int) int {
	if !f.block {
		return 0
	}
	n := len("0: ")
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// mapValue adds map v: its entries formatted in the canonical order of
// their keys (so that what a cut leaves out does not depend on Go's
// iteration order), shown in the order of their keys' texts. Each entry
// refers only to what came before the map and to itself, as the encoder
// encodes it.
func (f *formatter) mapValue(v reflect.Value, lab int) int32 {
	id := f.open(nodeMap, "", lab)
	mark := len(f.stk)
	scope := f.seen.len()
	// No more entries than the bounds let through are sorted.
	keep := (f.ceil()-f.used)/minEntryBytes + 1
	if composite(v.Type().Key().Kind()) || composite(v.Type().Elem().Kind()) {
		keep = min(keep, max(f.max()-f.n, 0)+1)
	}
	es := canonicalOrder(v, keep)
	cut := len(es) < v.Len()
	for _, e := range es {
		if f.restCut(e.key, e.val) {
			cut = true
			break
		}
		// The key is shown as its one-line text, in the entry's line.
		used, nodes, kids, labels := f.used, len(f.nodes), len(f.kids), len(f.labels)
		f.inKey++
		key := f.text(f.value(e.key, 0))
		f.inKey--
		f.used, f.nodes, f.kids, f.labels = used, f.nodes[:nodes], f.kids[:kids], f.labels[:labels]
		f.push(pathStep{kind: stepKey, s: key})
		kid := f.value(e.val, len(key)+len(": "))
		f.pop()
		f.seen.truncate(scope)
		f.setLabel(kid, key)
		f.stk = append(f.stk, kid)
	}
	// Ties (distinct keys with the same text, e.g. pointers to equal
	// values) are ordered by value, not left in map iteration order.
	type sortKey struct {
		id    int32
		num   float64
		isNum bool
	}
	ks := make([]sortKey, len(f.stk)-mark)
	for j, k := range f.stk[mark:] {
		ks[j].id = k
		ks[j].num, ks[j].isNum = numKey(f.label(k))
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := &ks[i], &ks[j]
		if a.isNum && b.isNum && a.num != b.num {
			return a.num < b.num
		}
		if la, lb := f.label(a.id), f.label(b.id); la != lb {
			return la < lb
		}
		return f.text(a.id) < f.text(b.id)
	})
	for j := range ks {
		f.stk[mark+j] = ks[j].id
	}
	if cut {
		f.rest()
	}
	f.close(id, mark)
	return id
}

// restCut reports whether the rest of a list or map being formatted is
// left out, before an element v (a map's: key k and value v): past the
// bound of bytes, or past that of values when it holds something.
func (f *formatter) restCut(v, k reflect.Value) bool {
	return f.used > f.cutAt() || f.n >= f.max() && (holds(v, false) || holds(k, false))
}

// composite reports whether values of kind k may hold other values.
func composite(k reflect.Kind) bool {
	switch k {
	case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		return true
	}
	return false
}

// chanValue adds channel v: its buffered elements (a channel is shown on
// one line).
func (f *formatter) chanValue(v reflect.Value, lab int) int32 {
	if v.IsNil() {
		return f.leaf("nil", lab)
	}
	cv, ok := readChan(v, nil)
	if !ok {
		return f.leaf("<chan>", lab)
	}
	id := f.open(nodeChan, "chan", lab)
	mark := len(f.stk)
	for i, p := range cv.elems {
		el := reflect.NewAt(v.Type().Elem(), p).Elem()
		if f.restCut(el, reflect.Value{}) {
			f.rest()
			break
		}
		f.push(pathStep{kind: stepIndex, i: i})
		kid := f.value(el, 0)
		f.pop()
		f.stk = append(f.stk, kid)
	}
	f.nodes[id].closed = cv.closed
	f.close(id, mark)
	return id
}

func (f *formatter) push(s pathStep) { f.path = append(f.path, s) }

func (f *formatter) pop() {
	f.path = f.path[:len(f.path)-1]
	f.mat = min(f.mat, len(f.path))
}

// where returns the pathNode of the value being formatted (-1: the top),
// made for the steps that have none yet: a run of the same segment (a
// list's .next.next.next, a tree's .Kids[0].Kids[0]) is one node with
// its count.
func (f *formatter) where() int32 {
	for k := f.mat; k < len(f.path); k++ {
		st := &f.path[k]
		pn := pathNode{parent: -1, count: 1, kind: st.kind, s: st.s, i: st.i}
		if st.kind == stepField {
			pn.s = ""
			pn.field = st.s
		}
		if k > 0 {
			pn.parent = f.path[k-1].node
			if q := &f.pnodes[pn.parent]; st.kind != stepField && q.kind == stepField && q.count == 1 {
				// The field's segment takes the index or key after it.
				pn.field, pn.parent = q.field, q.parent
			}
		}
		if pn.parent >= 0 {
			if q := &f.pnodes[pn.parent]; q.field == pn.field && q.kind == pn.kind && q.s == pn.s && q.i == pn.i {
				pn.parent, pn.count = q.parent, q.count+1
			}
		}
		st.node = int32(len(f.pnodes))
		f.pnodes = append(f.pnodes, pn)
	}
	f.mat = len(f.path)
	if f.mat == 0 {
		return -1
	}
	return f.path[f.mat-1].node
}

// sameAs returns the text of a pointer to what the text shows at path
// node at: "<same as .lru.evictList.root.next>", a run of three or more
// of the same step as "(.next ×37)".
func (f *formatter) sameAs(at int32) string {
	f.runs = f.runs[:0]
	for p := at; p >= 0; p = f.pnodes[p].parent {
		f.runs = append(f.runs, p)
	}
	var b strings.Builder
	for j := len(f.runs) - 1; j >= 0; j-- {
		pn := &f.pnodes[f.runs[j]]
		if pn.count >= 3 {
			b.WriteByte('(')
			writeStep(&b, pn)
			b.WriteString(" ×" + strconv.Itoa(int(pn.count)) + ")")
			continue
		}
		for range pn.count {
			writeStep(&b, pn)
		}
	}
	p := b.String()
	if p == "" {
		p = "the whole value"
	}
	if len(p) > maxRefPath {
		head, tail := maxRefPath/2, len(p)-maxRefPath/2
		for head > 0 && !utf8.RuneStart(p[head]) {
			head--
		}
		for tail < len(p) && !utf8.RuneStart(p[tail]) {
			tail++
		}
		p = p[:head] + "…" + p[tail:]
	}
	return "<same as " + p + ">"
}

// writeStep writes pn's segment.
func writeStep(b *strings.Builder, pn *pathNode) {
	if pn.field != "" {
		b.WriteString("." + pn.field)
	}
	switch pn.kind {
	case stepIndex:
		b.WriteString("[" + strconv.Itoa(pn.i) + "]")
	case stepKey:
		b.WriteString("[" + pn.s + "]")
	}
}

// text returns node id's one-line text.
func (f *formatter) text(id int32) string {
	if n := &f.nodes[id]; n.kind == nodeLeaf && n.amps == 0 {
		return n.text
	}
	var b strings.Builder
	b.Grow(int(f.nodes[id].width))
	f.writeInline(&b, id)
	return b.String()
}

func brackets(kind uint8) (open, close byte) {
	if kind == nodeList || kind == nodeChan {
		return '[', ']'
	}
	return '{', '}'
}

// writeInline writes node id's one-line text.
func (f *formatter) writeInline(b *strings.Builder, id int32) {
	n := &f.nodes[id]
	for range n.amps {
		b.WriteByte('&')
	}
	b.WriteString(n.text)
	if n.kind == nodeLeaf {
		return
	}
	open, close := brackets(n.kind)
	b.WriteByte(open)
	for j, k := range f.kids[n.kids : n.kids+n.nkids] {
		if j > 0 {
			b.WriteString(", ")
		}
		if l := f.label(k); l != "" {
			b.WriteString(l)
			b.WriteString(": ")
		}
		f.writeInline(b, k)
	}
	b.WriteByte(close)
	if n.closed {
		b.WriteString(" (closed)")
	}
}

// writeLine writes "label: value" at indent, the value on one line when
// it fits (or cannot be expanded, or is maxLayoutDepth deep), else its
// fields or elements one per line.
func (f *formatter) writeLine(b *strings.Builder, indent int, label string, id int32) {
	n := &f.nodes[id]
	writeIndent(b, indent)
	if n.rest {
		b.WriteString("…\n")
		return
	}
	b.WriteString(label)
	b.WriteString(": ")
	if n.kind == nodeLeaf || n.kind == nodeChan || indent+len(label)+int(n.width) <= inlineWidth || indent >= 2*maxLayoutDepth {
		f.writeInline(b, id)
		b.WriteByte('\n')
		return
	}
	for range n.amps {
		b.WriteByte('&')
	}
	b.WriteString(n.text)
	open, close := brackets(n.kind)
	b.WriteByte(open)
	b.WriteByte('\n')
	for j, k := range f.kids[n.kids : n.kids+n.nkids] {
		l := f.label(k)
		if n.kind == nodeList {
			l = strconv.Itoa(j)
		}
		f.writeLine(b, indent+2, l, k)
	}
	writeIndent(b, indent)
	b.WriteByte(close)
	b.WriteByte('\n')
}

// layoutSize is the length of layout's text of root. Performance: the
// text is written in a buffer of its size (a text of a million numbers
// allocated three times its size in a growing one).
func (f *formatter) layoutSize(root int32) int {
	n := &f.nodes[root]
	size := int(n.width) + 1
	if n.kind == nodeStruct && n.amps == 0 {
		size = 0
		for _, k := range f.kids[n.kids : n.kids+n.nkids] {
			size += f.lineSize(0, len(f.label(k)), k)
		}
	}
	if f.cut {
		size += len(cutText) + 1
	}
	return size
}

// lineSize is the length of what writeLine writes for node id at indent
// after a label of lab bytes.
func (f *formatter) lineSize(indent, lab int, id int32) int {
	n := &f.nodes[id]
	if n.rest {
		return indent + len("…\n")
	}
	size := indent + lab + len(": ")
	if n.kind == nodeLeaf || n.kind == nodeChan || indent+lab+int(n.width) <= inlineWidth || indent >= 2*maxLayoutDepth {
		return size + int(n.width) + 1
	}
	size += int(n.amps) + len(n.text) + 2 + indent + 2
	for j, k := range f.kids[n.kids : n.kids+n.nkids] {
		l := len(f.label(k))
		if n.kind == nodeList {
			l = 1
			for x := j; x >= 10; x /= 10 {
				l++
			}
		}
		size += f.lineSize(indent+2, l, k)
	}
	return size
}

func writeIndent(b *strings.Builder, n int) {
	const spaces = "                                                                "
	for ; n > len(spaces); n -= len(spaces) {
		b.WriteString(spaces)
	}
	b.WriteString(spaces[:n])
}

// quote is strconv.Quote of s, cut after f.maxString bytes, and where it
// would take the text past its cut (after a label of lab bytes), there: a
// cut string is quoted up to the cut (on a rune boundary) and followed by
// how many bytes it left out and a digest of the whole, "\"LLLL\"…
// (199,788 bytes more, digest 1c0ffee5)".
func (f *formatter) quote(s string, lab int) string {
	n := len(s)
	if f.maxString > 0 {
		n = min(n, f.maxString)
	}
	if room := f.room(lab) - len(`""`); 4*n > room {
		// Escapes take up to four bytes a byte: quote no more than fits.
		if fit := quotedPrefix(s[:n], room); fit < n {
			n, f.cut = fit, true
		}
	}
	if n == len(s) {
		return strconv.Quote(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + cutNote(len(s)-n, s)
}

// quotedPrefix returns the length of the longest prefix of s that
// strconv.Quote writes in at most room bytes (without its quotes).
func quotedPrefix(s string, room int) int {
	w := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			w += 2
		case r >= 0x20 && r < 0x7f:
			w++
		case r == '\a' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t' || r == '\v':
			w += 2
		case r < utf8.RuneSelf || r == utf8.RuneError && size == 1:
			w += len(`\x00`)
		case strconv.IsPrint(r):
			w += size
		case r < 0x10000:
			w += len(`\u0000`)
		default:
			w += len(`\U00000000`)
		}
		if w > room {
			return i
		}
		i += size
	}
	return len(s)
}

// fit returns txt (a type's own text), or where it would take the text
// past its cut (after a label of lab bytes), its start and a note of what
// it left out.
func (f *formatter) fit(txt string, lab int) string {
	room := f.room(lab)
	if len(txt) <= room {
		return txt
	}
	f.cut = true
	cut := room
	for cut > 0 && !utf8.RuneStart(txt[cut]) {
		cut--
	}
	return txt[:cut] + cutNote(len(txt)-cut, txt)
}

func (f *formatter) canonical(v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || v.Kind() == reflect.Interface {
		return v, false
	}
	return f.canonicalOf(v, textTypeOf(v.Type()))
}

// canonicalOf is canonical of a valid value v of a type other than an
// interface, of which tt says what the text forms ask.
func (f *formatter) canonicalOf(v reflect.Value, tt *textType) (reflect.Value, bool) {
	switch {
	case tt.canonValue:
		if cv, ok := clean(v); ok && !(cv.Kind() == reflect.Pointer && cv.IsNil()) {
			return reflect.ValueOf(cv.Interface().(sim.Canonicalizer).Canonical()), true
		}
	case tt.canonPtr:
		if cv, ok := clean(v); ok {
			// addressable: a map value is not, but a copy of it is.
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(cv.Addr().Interface().(sim.Canonicalizer).Canonical()), true
			}
		}
	case tt.form != nil:
		if cv, ok := clean(v); ok {
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(tt.form(cv)), true
			}
		}
	}
	return v, false
}

// textType is what the text forms ask of a type, worked out once per type
// (and again once a canonical form is registered: hook.Generation).
// Performance: asking reflect whether a type implements an interface, and
// looking up registered forms, took a third of the time of formatting a
// large node's state (etcd raft's, made at every step of a report page:
// 30.1 s of that page, 20.5 s with these answers kept).
type textType struct {
	gen uint64
	// canonValue: the type implements sim.Canonicalizer; canonPtr: its
	// pointer does (it is no pointer); form: otherwise, its registered
	// or library form (registered).
	canonValue, canonPtr bool
	form                 func(reflect.Value) any
	// stringer: a named scalar type with a String method (see stringer).
	stringer bool
	// noState: a type that is no state (see encodedField), shown as
	// its name; special: noState, stringer, marshalValue or marshalPtr.
	noState, special bool
	// shared: a pointer type whose pointers the encoder writes as
	// references to the first one to a target (see formatter.pointer):
	// its target's type has no tree program.
	shared bool
	// marshalValue, marshalPtr: a struct, array or slice type, or its
	// pointer, implements encoding.TextMarshaler (see textForm).
	marshalValue, marshalPtr bool
	// name is typeName's; fields and names the fields a struct's text
	// shows (stateFields) and their names.
	name   string
	fields []int
	names  []string
}

// textTypes caches textTypeOf: reflect.Type -> *textType.
var textTypes sync.Map

// textTypeOf returns what the text forms ask of type t.
func textTypeOf(t reflect.Type) *textType {
	gen := hook.Generation()
	if x, ok := textTypes.Load(t); ok {
		if tt := x.(*textType); tt.gen == gen {
			return tt
		}
	}
	tt := &textType{gen: gen}
	if t.Kind() != reflect.Interface {
		switch {
		case t.Implements(canonType):
			tt.canonValue = true
		case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(canonType):
			tt.canonPtr = true
		default:
			tt.form, _ = registered(t)
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
		tt.stringer = t.Name() != "" && t.Implements(stringerType)
	case reflect.Struct, reflect.Array, reflect.Slice:
		tt.marshalValue = t.Implements(textMarshalerType)
		tt.marshalPtr = !tt.marshalValue && reflect.PointerTo(t).Implements(textMarshalerType)
	}
	tt.noState = noState[t]
	tt.special = tt.noState || tt.stringer || tt.marshalValue || tt.marshalPtr
	if t.Kind() == reflect.Pointer {
		p := progFor(t.Elem())
		tt.shared = p == nil || !p.tree
	}
	tt.name = typeName(t)
	if t.Kind() == reflect.Struct {
		tt.fields = stateFields(t)
		for _, i := range tt.fields {
			tt.names = append(tt.names, t.Field(i).Name)
		}
	}
	textTypes.Store(t, tt)
	return tt
}

// stateFields returns the indexes of the fields of struct type t that the
// text forms show: those the canonical encoding holds (encodedField). They
// are worked out once per type (logs format a value at every step); the
// slice is shared: callers must not change it.
func stateFields(t reflect.Type) []int {
	if idx, ok := stateFieldsOf.Load(t); ok {
		return idx.([]int)
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		if encodedField(t.Field(i)) {
			idx = append(idx, i)
		}
	}
	stateFieldsOf.Store(t, idx)
	return idx
}

// stateFieldsOf caches stateFields by type.
var stateFieldsOf sync.Map

var (
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// textForm returns the text a struct, array or slice type gives itself
// through encoding.TextMarshaler (a decimal number, a UUID, a time, an
// address), so that the text forms show "100.00" rather than the big
// integer and exponent inside; the hash still reads every field. A value
// whose MarshalText fails or panics is shown field by field.
func textForm(v reflect.Value) (txt string, ok bool) {
	if !v.IsValid() {
		return "", false
	}
	switch v.Kind() {
	case reflect.Struct, reflect.Array, reflect.Slice:
	default:
		return "", false
	}
	tt := textTypeOf(v.Type())
	var m encoding.TextMarshaler
	switch {
	case tt.marshalValue:
		cv, ok := clean(v)
		if !ok {
			return "", false
		}
		m = cv.Interface().(encoding.TextMarshaler)
	case tt.marshalPtr:
		cv, ok := clean(v)
		if !ok {
			return "", false
		}
		if cv = addressable(cv); !cv.CanAddr() {
			return "", false
		}
		m = cv.Addr().Interface().(encoding.TextMarshaler)
	default:
		return "", false
	}
	defer func() {
		if recover() != nil {
			txt, ok = "", false
		}
	}()
	b, err := m.MarshalText()
	if err != nil {
		return "", false
	}
	return string(b), true
}

// byteString returns the bytes of a byte slice or array as a string, so
// that they are shown quoted: a log buffer or an encoded message reads as
// text, not as a list of numbers. A slice's bytes are not copied.
func byteString(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		if cv, ok := clean(v); ok {
			b := cv.Bytes()
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	b := make([]byte, v.Len())
	for i := range b {
		b[i] = byte(v.Index(i).Uint())
	}
	return string(b)
}

// cutNote says that a text left out more bytes of whole, with whole's
// digest: " … (N bytes more, digest XXXXXXXX)" without the space.
func cutNote(more int, whole string) string {
	return fmt.Sprintf("… (%s bytes more, digest %08x)", thousands(more), uint32(xxhash.Sum64String(whole)))
}

// textEntry is a map's entry, with its key's canonical encoding and, when a
// tie asked for it, its value's.
type textEntry struct {
	key, val   reflect.Value
	kenc, venc []byte
}

// canonicalOrder returns map v's entries in the order of their keys'
// canonical encodings (ties, such as pointers to equal values, by their
// values'), not in the map's iteration order: the text forms format them
// in this order, so that which values are cut past a formatter's bounds
// ("…") does not depend on the iteration order. Only the first keep are
// returned: a map of millions of entries, of which a text shows the
// first few, is sorted in memory that grows with keep, not with it, and
// a key past the last kept one costs its encoding in a reused buffer.
func canonicalOrder(v reflect.Value, keep int) []textEntry {
	keep = max(keep, 1)
	valEnc := func(e *textEntry) []byte {
		if e.venc == nil {
			e.venc = append(encodeValue(e.val), 0) // not nil
		}
		return e.venc
	}
	sortEntries := func(es []textEntry) {
		sort.Slice(es, func(i, j int) bool {
			if c := bytes.Compare(es[i].kenc, es[j].kenc); c != 0 {
				return c < 0
			}
			return bytes.Compare(valEnc(&es[i]), valEnc(&es[j])) < 0
		})
	}
	ke := newKeyEncoder(v.Type().Key())
	// A key is read into scratch, without a copy of its own, where the
	// map may be read (not reached through an unexported field).
	var scratch reflect.Value
	if v.CanInterface() {
		scratch = reflect.New(v.Type().Key()).Elem()
	}
	var (
		es    []textEntry
		arena []byte // the kept keys' encodings
		worst []byte // the last kept key's, once some were left out
	)
	it := v.MapRange()
	for it.Next() {
		var key reflect.Value
		if scratch.IsValid() {
			scratch.SetIterKey(it)
			key = scratch
		} else {
			key = it.Key()
		}
		kenc := ke.encode(key)
		if worst != nil && bytes.Compare(kenc, worst) > 0 {
			continue
		}
		if scratch.IsValid() {
			key = it.Key() // a copy of its own
		}
		at := len(arena)
		arena = append(arena, kenc...)
		es = append(es, textEntry{key: key, val: it.Value(), kenc: arena[at:len(arena):len(arena)]})
		if len(es) >= 2*keep && v.Len() > keep {
			sortEntries(es)
			clear(es[keep:])
			es = es[:keep]
			// The kept encodings in an arena of their own.
			var kept []byte
			for i := range es {
				at := len(kept)
				kept = append(kept, es[i].kenc...)
				es[i].kenc = kept[at:len(kept):len(kept)]
			}
			arena, worst = kept, es[keep-1].kenc
		}
	}
	sortEntries(es)
	if len(es) > keep {
		clear(es[keep:])
		es = es[:keep]
	}
	return es
}

// keyEncoder encodes values of one type, as encodeValue does, one after
// another in one buffer.
type keyEncoder struct {
	e   encoder
	enc encFunc
	t   reflect.Type
	v   reflect.Value
	run func()
}

func newKeyEncoder(t reflect.Type) *keyEncoder {
	k := &keyEncoder{enc: encoderFor(t), t: t}
	k.run = func() { k.enc(&k.e, k.v) }
	return k
}

// encode returns v's encoding, valid until the next call.
func (k *keyEncoder) encode(v reflect.Value) []byte {
	k.e.buf, k.v = k.e.buf[:0], v
	ok := k.e.within(MaxCanonicalBytes, k.run)
	k.v = reflect.Value{}
	if !ok {
		return tooLarge(k.e.buf[:0], k.t) // see AppendCanonical
	}
	return k.e.buf
}

// stringer returns String() of a named scalar type that has one (an enum
// such as a protocol state), so the text form shows "joined" rather than 2;
// the hash still encodes the number. Structs, pointers and collections are
// shown field by field whatever methods they have.
func stringer(v reflect.Value) (string, bool) {
	t := v.Type()
	if !textTypeOf(t).stringer {
		return "", false
	}
	cv, ok := clean(v)
	if !ok {
		// Not addressable and reached through an unexported field: copy
		// the scalar into a fresh value of the same type.
		cv = reflect.New(t).Elem()
		switch {
		case v.CanInt():
			cv.SetInt(v.Int())
		case v.CanUint():
			cv.SetUint(v.Uint())
		case t.Kind() == reflect.Bool:
			cv.SetBool(v.Bool())
		default:
			cv.SetString(v.String())
		}
	}
	return callString(cv.Interface().(fmt.Stringer))
}

// callString returns s.String(), or false when it panics (an enum's
// String indexing an array of names with a value out of its range): the
// value is then shown as the number it is. A panic there took down the
// report page and made the log say a handler panicked.
func callString(s fmt.Stringer) (txt string, ok bool) {
	defer func() {
		if recover() != nil {
			txt, ok = "", false
		}
	}()
	return s.String(), true
}

// lessKey orders numbers numerically and everything else as text.
func lessKey(a, b string) bool {
	x, okA := numKey(a)
	y, okB := numKey(b)
	if okA && okB && x != y {
		return x < y
	}
	return a < b
}

// numKey returns the number key text a reads as, if any. Performance: a
// quoted string is none, without strconv.ParseFloat's error (sorting a
// map of 100,000 string keys allocated 280 MB of them).
func numKey(a string) (float64, bool) {
	if a == "" || a[0] == '"' {
		return 0, false
	}
	x, err := strconv.ParseFloat(a, 64)
	return x, err == nil
}
