package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// Types for the text forms' tests.

// lruEntry, lruList and lruCache are an LRU cache as golang-lru builds
// one: a doubly linked list whose sentinel root is held by value, and a
// map of key -> element.
type lruEntry struct {
	next, prev *lruEntry
	list       *lruList
	Key        string
	Value      int
}

type lruList struct {
	root lruEntry
	len  int
}

type lruCache struct {
	size      int
	evictList *lruList
	items     map[string]*lruEntry
	evicted   []string
}

type lruNode struct {
	lru  *lruCache
	Name string
}

// newLRU returns a node holding an LRU cache of n entries, k0000 the
// least recently used.
func newLRU(n int) *lruNode {
	l := &lruList{}
	l.root.next, l.root.prev = &l.root, &l.root
	c := &lruCache{size: n, evictList: l, items: map[string]*lruEntry{}, evicted: []string{}}
	for i := range n {
		e := &lruEntry{Key: fmt.Sprintf("k%04d", i), Value: i, list: l}
		// Push front.
		at := &l.root
		e.prev, e.next = at, at.next
		at.next.prev = e
		at.next = e
		l.len++
		c.items[e.Key] = e
	}
	return &lruNode{lru: c, Name: "cache"}
}

// chain is a type that reaches itself: pointers to it are numbered by
// the encoder, so a text refers to one shown already.
type chain struct {
	N    int
	Next *chain
}

// leaf has a tree program: the encoder follows every pointer to it, so a
// text shows each whole.
type leaf struct{ X int }

// kid is a tree node that reaches itself through a slice.
type kid struct {
	Name string
	Kids []*kid
}

// textFixtures are the values testdata/text.txt formats.
func textFixtures() map[string]any {
	shared := &chain{N: 1}
	l1 := &leaf{X: 1}
	var long *chain
	var links []*chain
	for i := range 12 {
		long = &chain{N: 11 - i, Next: long}
	}
	for c := long; c != nil; c = c.Next {
		links = append(links, c)
	}
	var deep *kid
	for i := range 6 {
		deep = &kid{Name: strconv.Itoa(5 - i), Kids: []*kid{deep}}
	}
	var bottom *kid
	for k := deep; k != nil; k = k.Kids[0] {
		bottom = k
	}
	var nested *chain
	for i := range 30 {
		nested = &chain{N: 29 - i, Next: nested}
	}
	big := make([]int, 1000)
	for i := range big {
		big[i] = i
	}
	return map[string]any{
		"lru3":    newLRU(3),
		"diamond": &diamond{A: shared, B: shared, C: chain{N: 2, Next: shared}},
		"leaves":  &leaves{A: l1, B: l1},
		"map-scope": &mapScope{
			Before: shared,
			M: map[string]xyz{
				"a": {X: shared, Y: chainOf(7), Z: nil},
				"b": {X: long, Y: long, Z: shared},
			},
			After: long,
		},
		"runs":        &runs{List: long, Links: links[9:], Tree: deep, Last: bottom},
		"self":        selfLoop(),
		"empties":     &empties{Big: big[:40], Nums: []int{1, 2}, Empty: []int{}, M: map[string]int{"k": 1}, NilM: nil, P: shared, I: 3, S: "s", N: 5, F: chain{N: 3}},
		"empties-big": &empties{Big: big, Nums: []int{1, 2}, Empty: []int{}, M: map[string]int{"k": 1}, NilM: nil, P: shared, I: 3, S: "s", N: 5, F: chain{N: 3}},
		"nested":      &struct{ L *chain }{nested},
		"lists":       &lists{Strs: []string{"alpha", "beta", "gamma", "delta", "epsilon"}, Ptrs: links[:6], M: map[int]*chain{1: links[1], 2: links[2], 3: links[3]}, Tail: 9},
	}
}

// chainOf returns a chain of one link, n.
func chainOf(n int) *chain { return &chain{N: n} }

// selfLoop returns a value that points to itself.
func selfLoop() *selfRef {
	n := &selfRef{Name: "self"}
	n.Self = n
	return n
}

// Named types of the fixtures.
type (
	diamond struct {
		A, B *chain
		C    chain
	}
	leaves   struct{ A, B *leaf }
	xyz      struct{ X, Y, Z *chain }
	mapScope struct {
		Before *chain
		M      map[string]xyz
		After  *chain
	}
	runs struct {
		List  *chain
		Links []*chain
		Tree  *kid
		Last  *kid
	}
	selfRef struct {
		Name string
		Self any
	}
	empties struct {
		Big   []int
		Nums  []int
		Empty []int
		Nil   []int
		M     map[string]int
		NilM  map[string]int
		P     *chain
		NilP  *chain
		I     any
		NilI  any
		S     string
		Z     string
		N     int
		E     struct{}
		F     chain
	}
	lists struct {
		Strs []string
		Ptrs []*chain
		M    map[int]*chain
		Tail int
		Zero []int
	}
)

// TestTextGolden pins the text forms (testdata/text.txt): shared
// pointers shown once, cycles, runs of the same step in a path, what a
// cut leaves and what it shows. Directives: state name=NAME [limit=N]
// [bytes=N] prints FormatState of fixture NAME with a formatter of N
// values and N bytes (FormatState's by default); value name=NAME ... its
// one-line form. go test ./sim/engine -run TestTextGolden -rewrite
// regenerates the file.
func TestTextGolden(t *testing.T) {
	vals := textFixtures()
	datadriven.RunTest(t, "testdata/text.txt", func(t *testing.T, td *datadriven.TestData) string {
		var name string
		td.ScanArgs(t, "name", &name)
		v, ok := vals[name]
		if !ok {
			td.Fatalf(t, "no value %s", name)
		}
		f := &formatter{}
		switch td.Cmd {
		case "state":
			f.block, f.limit, f.bytes = true, maxTextValues, maxTextBytes
		case "value":
			f.limit, f.bytes = maxLineValues, maxLineBytes
		default:
			td.Fatalf(t, "unknown directive %s", td.Cmd)
		}
		if td.HasArg("limit") {
			td.ScanArgs(t, "limit", &f.limit)
		}
		if td.HasArg("bytes") {
			td.ScanArgs(t, "bytes", &f.bytes)
		}
		var txt string
		if f.block {
			txt = f.state(v)
		} else {
			txt = f.oneLine(reflect.ValueOf(v)) + "\n"
		}
		// The text is what the other form of it says, and the same
		// again (maps are iterated in another order each time).
		checkForms(t, v, f)
		for range 3 {
			if again := (&formatter{block: f.block, limit: f.limit, bytes: f.bytes}).oneLineOrState(v); again != txt {
				t.Fatalf("formatted again:\n%s\nwas\n%s", again, txt)
			}
		}
		return txt
	})
}

// oneLineOrState is the text TestTextGolden prints for f.
func (f *formatter) oneLineOrState(v any) string {
	if f.block {
		return f.state(v)
	}
	return f.oneLine(reflect.ValueOf(v)) + "\n"
}

// checkForms checks that FormatState's text of v, read back onto one
// line, is the one-line text of the same tree: a value spread over lines
// shows what it shows on one line (the same references, cycles and cuts).
func checkForms(t *testing.T, v any, f *formatter) {
	t.Helper()
	g := &formatter{block: true, limit: f.limit, bytes: f.bytes}
	root := g.stateRoot(v)
	txt := g.layout(root)
	if size := g.layoutSize(root); size != len(txt) {
		t.Fatalf("layoutSize %d, the text is %d bytes:\n%s", size, len(txt), txt)
	}
	lines := strings.Split(strings.TrimSuffix(txt, "\n"), "\n")
	if g.cut {
		lines = lines[:len(lines)-1] // the cut note
	}
	line := g.text(root)
	var got string
	if n := g.nodes[root]; n.kind == nodeStruct && n.amps == 0 {
		items, rest := unlayout(t, lines, 0)
		if len(rest) != 0 {
			t.Fatalf("lines left over: %q", rest)
		}
		got = n.text + "{" + strings.Join(items, ", ") + "}"
	} else {
		got = strings.Join(lines, "\n")
	}
	if got != line {
		t.Fatalf("the lines of the state read\n%s\nits one-line text is\n%s", got, line)
	}
}

// unlayout reads lines at indent back into the one-line items they show,
// and returns the lines after them.
func unlayout(t *testing.T, lines []string, indent int) (items, rest []string) {
	t.Helper()
	pad := strings.Repeat(" ", indent)
	for len(lines) > 0 {
		l := lines[0]
		if sp := len(l) - len(strings.TrimLeft(l, " ")); sp < indent {
			return items, lines // the line that closes them
		} else if sp > indent {
			t.Fatalf("line %q is not at indent %d", l, indent)
		}
		body := l[indent:]
		lines = lines[1:]
		if body == "…" {
			items = append(items, body)
			continue
		}
		label, val, ok := strings.Cut(body, ": ")
		if !ok {
			t.Fatalf("line %q has no label", l)
		}
		if open := val[len(val)-1]; (open == '{' || open == '[') && len(lines) > 0 &&
			(strings.HasPrefix(lines[0], pad+"  ") || lines[0] == pad+"}" || lines[0] == pad+"]") {
			kids, after := unlayout(t, lines, indent+2)
			if len(after) == 0 || after[0] != pad+string(rune(open+2)) {
				t.Fatalf("no line closes %q", l)
			}
			lines = after[1:]
			if open == '[' {
				for i, k := range kids {
					if _, v, ok := strings.Cut(k, ": "); ok && k != "…" {
						kids[i] = v
					}
				}
			}
			val += strings.Join(kids, ", ") + after[0][indent:]
		}
		items = append(items, label+": "+val)
	}
	return items, nil
}

// TestTextLinesMatchOneLine: at every bound of values and bytes, a state's
// lines read back onto one line are its one-line text (checkForms), for a
// graph with sharing, cycles and maps, and the text stays within its
// bound of bytes.
func TestTextLinesMatchOneLine(t *testing.T) {
	vals := textFixtures()
	for _, name := range []string{"lru3", "diamond", "map-scope", "runs", "empties", "empties-big", "nested", "lists"} {
		for _, limit := range []int{1, 2, 5, 13, 40, 97, 200, maxTextValues} {
			for _, b := range []int{100, 300, 700, 1500, 4000, maxTextBytes} {
				f := &formatter{block: true, limit: limit, bytes: b}
				checkForms(t, vals[name], f)
				if txt := f.state(vals[name]); b >= 4000 && len(txt) > b {
					t.Fatalf("%s limit %d bytes %d: a text of %d bytes:\n%s", name, limit, b, len(txt), txt)
				}
				g := &formatter{limit: limit, bytes: b}
				if txt := g.oneLine(reflect.ValueOf(vals[name])); b >= 4000 && len(txt) > b {
					t.Fatalf("%s limit %d bytes %d: a line of %d bytes:\n%s", name, limit, b, len(txt), txt)
				}
			}
		}
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	goruntime.GC()
	var a, b goruntime.MemStats
	goruntime.ReadMemStats(&a)
	f()
	goruntime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestTextOfLRUIsBounded: the text forms of a node holding an LRU cache
// (a doubly linked list and a map of its elements) show each element once
// (the map refers to the list), within their bound of bytes, in memory
// in proportion to that bound: a cache of 1,000 entries took 3 GB and 3 s
// per text and showed "lru: …".
func TestTextOfLRUIsBounded(t *testing.T) {
	for _, n := range []int{1_000, 100_000} {
		v := newLRU(n)
		var state, line string
		sa := allocated(func() { state = FormatState(v) })
		la := allocated(func() { line = FormatValue(v) })
		t.Logf("%d entries: FormatState %d bytes, %d allocated; FormatValue %d bytes, %d allocated", n, len(state), sa, len(line), la)
		if len(state) > maxTextBytes || len(line) > maxLineBytes {
			t.Errorf("%d entries: texts of %d and %d bytes", n, len(state), len(line))
		}
		if sa > 16*maxTextBytes || la > 16*maxLineBytes {
			t.Errorf("%d entries: %d and %d bytes allocated", n, sa, la)
		}
		if !strings.Contains(state, `"k0000": <same as .lru.evictList.root(.next ×`) && n == 1_000 {
			t.Errorf("the map does not refer to the list:\n%.3000s", state)
		}
		if n == 1_000 && (strings.Contains(state, "text cut") || strings.Count(state, `Key: "k0`) != n) {
			t.Errorf("a cache of 1,000 entries is not shown whole, each entry once")
		}
		if n == 100_000 && (!strings.HasSuffix(state, cutText+"\n") || !strings.Contains(state, "  evicted: []\n}\nName: \"cache\"\n")) {
			t.Errorf("the text of 100,000 entries is not cut, or the fields after the cut are not shown:\n%s", state[max(0, len(state)-2000):])
		}
	}
}

// TestTextOfDeepChainIsBounded: a chain of pointers, or of lists, nested
// deeper than maxNesting is cut there, its text within its bound:
// formatting takes stack in proportion to the nesting.
func TestTextOfDeepChainIsBounded(t *testing.T) {
	var c *chain
	for i := range 200_000 {
		c = &chain{N: i, Next: c}
	}
	var l any
	for range 200_000 {
		l = []any{l}
	}
	for _, v := range []any{c, &struct{ L any }{l}} {
		var state, line string
		sa := allocated(func() { state = FormatState(v) })
		la := allocated(func() { line = FormatValue(v) })
		if len(state) > maxTextBytes || len(line) > maxLineBytes || !strings.Contains(state, "text cut") || !strings.Contains(line, "text cut") {
			t.Errorf("texts of %d and %d bytes", len(state), len(line))
		}
		if sa > 16*maxTextBytes || la > 16*maxLineBytes {
			t.Errorf("%d and %d bytes allocated", sa, la)
		}
	}
}

// TestTextOfHugeScalarsIsBounded: numbers and strings, which the bound
// of values does not cut, are cut at the bound of bytes: a million
// numbers, a 10 MB string.
func TestTextOfHugeScalarsIsBounded(t *testing.T) {
	type huge struct {
		Ints []int
		S    string
		B    []byte
		N    int
	}
	ints := make([]int, 1_000_000)
	for i := range ints {
		ints[i] = i
	}
	for _, v := range []*huge{{Ints: ints, N: 1}, {S: strings.Repeat("x", 10<<20), N: 1}, {B: bytes.Repeat([]byte{0}, 10<<20), N: 1}} {
		var state, line string
		sa := allocated(func() { state = FormatState(v) })
		la := allocated(func() { line = FormatValue(v) })
		if len(state) > maxTextBytes || len(line) > maxLineBytes || !strings.HasSuffix(state, "N: 1\n"+cutText+"\n") || !strings.Contains(line, "N: 1} "+cutText) {
			t.Errorf("texts of %d and %d bytes: %s … %s", len(state), len(line), state[:200], state[len(state)-200:])
		}
		t.Logf("FormatState %d bytes, %d allocated; FormatValue %d bytes, %d allocated", len(state), sa, len(line), la)
		if sa > 16*maxTextBytes || la > 16*maxLineBytes {
			t.Errorf("%d and %d bytes allocated", sa, la)
		}
	}
}

// textGraph is a small random graph of pointers (chain and kid reach
// themselves, leaf has a tree program), maps and slices, for
// TestTextIsOfTheEncoding.
type textGraph struct {
	A, B  *chain
	M     map[int]*chain
	N     map[int]struct{ P, Q *chain }
	S     []*chain
	L1    *leaf
	L2    *leaf
	After *chain
	K     *kid
}

// randomGraph builds a textGraph from a pool of few values, so that many
// graphs encode alike.
func randomGraph(r *rand.Rand) *textGraph {
	pool := make([]*chain, 2)
	for i := range pool {
		pool[i] = &chain{N: 1}
	}
	pick := func() *chain {
		if i := r.IntN(len(pool) + 1); i < len(pool) {
			return pool[i]
		}
		return nil
	}
	for _, c := range pool {
		c.Next = pick()
	}
	leaves := []*leaf{{X: 1}, {X: 1}}
	g := &textGraph{A: pick(), B: pick(), M: map[int]*chain{}, N: map[int]struct{ P, Q *chain }{},
		L1: leaves[r.IntN(2)], L2: leaves[r.IntN(2)], After: pick()}
	for i := range r.IntN(3) {
		g.M[i] = pick()
	}
	for i := range r.IntN(3) {
		g.N[i] = struct{ P, Q *chain }{pick(), pick()}
	}
	for range r.IntN(3) {
		g.S = append(g.S, pick())
	}
	kids := []*kid{{Name: "k"}, {Name: "k"}}
	g.K = &kid{Kids: []*kid{kids[r.IntN(2)], kids[r.IntN(2)]}}
	return g
}

// TestTextIsOfTheEncoding: values whose canonical encodings are equal
// have equal texts (serviceText reuses a node's text by its encoding),
// though a text shows a pointer to a value shown already as a reference
// to it: the text refers to one only where the encoding does (not across
// a map's entries, nor to a target whose type has a tree program). And
// values whose texts show references are among them.
func TestTextIsOfTheEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type texts struct{ state, line string }
	byEnc := map[string]texts{}
	refs, shared := 0, 0
	for range 20_000 {
		g := randomGraph(r)
		enc := string(AppendCanonical(nil, g))
		got := texts{FormatState(g), FormatValue(g)}
		if strings.Contains(got.state, "<same as") {
			refs++
		}
		if was, ok := byEnc[enc]; ok {
			shared++
			if was != got {
				t.Fatalf("equal encodings, different texts:\n%s\n%s\nand\n%s\n%s", was.state, was.line, got.state, got.line)
			}
			continue
		}
		byEnc[enc] = got
	}
	if refs < 1000 || shared < 1000 {
		t.Fatalf("%d texts with references, %d encodings met again: the test does not test what it says", refs, shared)
	}
}

// TestTextReferenceFollowsTheEncoding: two pointers to one value show a
// reference where the encoding writes one, and two pointers to equal
// copies do not; where the encoding does not tell them apart (in two
// entries of a map, to a tree type), neither does the text.
func TestTextReferenceFollowsTheEncoding(t *testing.T) {
	c1, c2 := &chain{N: 1}, &chain{N: 1}
	l1, l2 := &leaf{X: 1}, &leaf{X: 1}
	type pair struct{ A, B *chain }
	type leaves struct{ A, B *leaf }
	type inMap struct{ M map[string]*chain }
	for _, c := range []struct {
		name         string
		same, copies any
		differ       bool
	}{
		{"fields", &pair{c1, c1}, &pair{c1, c2}, true},
		{"tree type", &leaves{l1, l1}, &leaves{l1, l2}, false},
		{"map entries", &inMap{map[string]*chain{"a": c1, "b": c1}}, &inMap{map[string]*chain{"a": c1, "b": c2}}, false},
		{"the top", selfLoop(), func() any { s := selfLoop(); s.Self = selfLoop(); return s }(), false},
	} {
		encDiffer := !bytes.Equal(AppendCanonical(nil, c.same), AppendCanonical(nil, c.copies))
		textDiffer := FormatState(c.same) != FormatState(c.copies) || FormatValue(c.same) != FormatValue(c.copies)
		if encDiffer != c.differ || textDiffer != c.differ {
			t.Errorf("%s: encodings differ %v, texts %v; want %v:\n%s\n%s", c.name, encDiffer, textDiffer, c.differ, FormatState(c.same), FormatState(c.copies))
		}
	}
}
