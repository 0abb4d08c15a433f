package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
)

// mapNode holds maps of many shapes, all read by hashPure: keys and values
// of numbers, strings, arrays and slices, pointers to structs with maps of
// their own, maps of maps, pointer keys (encoded as their targets), values
// too large to be stored in a map's slots, and a pointer field.
type mapNode struct {
	sim.Base
	Peers  map[sim.NodeID]int
	Names  map[string][]int
	Conns  map[uint32]*mapConn
	Set    map[[3]uint8]struct{}
	Nested map[int8]map[uint16]string
	ByPtr  map[*token]bool
	Big    map[int16][20]int64
	Opt    *mapConn
	N      int
}

type mapConn struct {
	Seq  uint32
	Up   bool
	Pend map[uint32]string
	Log  []string
}

// mapSpec is the content of a mapNode as entries in a fixed order; build
// makes a mapNode of it, inserting in any order.
type mapSpec struct {
	peers  [][2]int
	names  []mapName
	conns  []mapConnSpec
	set    [][3]uint8
	nested []mapNested
	byPtr  []mapPtr
	big    [][2]int
	opt    *mapConnSpec
	n      int
}

type mapName struct {
	k string
	v []int
}

type mapConnSpec struct {
	key  uint32
	seq  uint32
	up   bool
	pend [][2]int
	log  []string
}

type mapNested struct {
	k int8
	v [][2]int
}

type mapPtr struct {
	n int
	v bool
}

// genMapSpec draws a mapSpec from small domains, so that equal contents
// come up often; keys may repeat (a later entry then replaces an earlier
// one, as in a map, except with pointer keys, which are all distinct).
func genMapSpec(r *rand.Rand) mapSpec {
	var sp mapSpec
	for range r.IntN(4) {
		sp.peers = append(sp.peers, [2]int{r.IntN(3), r.IntN(2)})
	}
	for range r.IntN(3) {
		sp.names = append(sp.names, mapName{[]string{"", "a", "ab"}[r.IntN(3)], []int{1, 2, 3}[:r.IntN(3)]})
	}
	conn := func() mapConnSpec {
		c := mapConnSpec{key: uint32(r.IntN(3)), seq: uint32(r.IntN(2)), up: r.IntN(2) == 0}
		for range r.IntN(3) {
			c.pend = append(c.pend, [2]int{r.IntN(2), r.IntN(2)})
		}
		if r.IntN(3) == 0 {
			c.log = []string{"x"}
		}
		return c
	}
	for range r.IntN(3) {
		sp.conns = append(sp.conns, conn())
	}
	for range r.IntN(3) {
		sp.set = append(sp.set, [3]uint8{uint8(r.IntN(2)), 0, uint8(r.IntN(2))})
	}
	for range r.IntN(3) {
		n := mapNested{k: int8(r.IntN(2) - 1)}
		for range r.IntN(3) {
			n.v = append(n.v, [2]int{r.IntN(2), r.IntN(2)})
		}
		sp.nested = append(sp.nested, n)
	}
	for range r.IntN(3) {
		sp.byPtr = append(sp.byPtr, mapPtr{r.IntN(2), r.IntN(2) == 0})
	}
	for range r.IntN(3) {
		sp.big = append(sp.big, [2]int{r.IntN(2), r.IntN(2)})
	}
	if r.IntN(2) == 0 {
		c := conn()
		sp.opt = &c
	}
	sp.n = r.IntN(2)
	return sp
}

// build makes the mapNode of sp, each map filled in an order of r's (the
// later of two entries with the same key wins all the same), some made
// with room for many entries (laid out as a large map) and some with
// entries added and deleted again.
func (sp mapSpec) build(r *rand.Rand) *mapNode {
	order := func(n int) []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		r.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		return idx
	}
	hint := func() int { return []int{0, 0, 64}[r.IntN(3)] }
	// fill puts the last entry of each key, in an order of r's.
	fill := func(n int, key func(i int) any, put func(i int)) {
		last := map[any]int{}
		for i := range n {
			last[key(i)] = i
		}
		for _, i := range order(n) {
			if last[key(i)] == i {
				put(i)
			}
		}
	}
	conn := func(c mapConnSpec) *mapConn {
		mc := &mapConn{Seq: c.seq, Up: c.up, Log: slices.Clone(c.log)}
		if len(c.pend) > 0 || r.IntN(2) == 0 {
			mc.Pend = make(map[uint32]string, hint())
		}
		fill(len(c.pend), func(i int) any { return c.pend[i][0] }, func(i int) { mc.Pend[uint32(c.pend[i][0])] = fmt.Sprint(c.pend[i][1]) })
		return mc
	}
	m := &mapNode{N: sp.n}
	m.Peers = make(map[sim.NodeID]int, hint())
	if r.IntN(2) == 0 {
		for i := range 12 {
			m.Peers[sim.NodeID(100+i)] = i // deleted below: the map grows, then shrinks
		}
	}
	fill(len(sp.peers), func(i int) any { return sp.peers[i][0] }, func(i int) { m.Peers[sim.NodeID(sp.peers[i][0])] = sp.peers[i][1] })
	for i := range 12 {
		delete(m.Peers, sim.NodeID(100+i))
	}
	if len(sp.names) > 0 {
		m.Names = make(map[string][]int, hint())
	}
	fill(len(sp.names), func(i int) any { return sp.names[i].k }, func(i int) { m.Names[sp.names[i].k] = slices.Clone(sp.names[i].v) })
	m.Conns = make(map[uint32]*mapConn, hint())
	fill(len(sp.conns), func(i int) any { return sp.conns[i].key }, func(i int) { m.Conns[sp.conns[i].key] = conn(sp.conns[i]) })
	m.Set = make(map[[3]uint8]struct{}, hint())
	fill(len(sp.set), func(i int) any { return sp.set[i] }, func(i int) { m.Set[sp.set[i]] = struct{}{} })
	m.Nested = make(map[int8]map[uint16]string, hint())
	fill(len(sp.nested), func(i int) any { return sp.nested[i].k }, func(i int) {
		in := make(map[uint16]string, hint())
		v := sp.nested[i].v
		fill(len(v), func(j int) any { return v[j][0] }, func(j int) { in[uint16(v[j][0])] = fmt.Sprint(v[j][1]) })
		m.Nested[sp.nested[i].k] = in
	})
	m.ByPtr = make(map[*token]bool, hint())
	for _, i := range order(len(sp.byPtr)) {
		m.ByPtr[&token{N: sp.byPtr[i].n}] = sp.byPtr[i].v
	}
	m.Big = make(map[int16][20]int64, hint())
	fill(len(sp.big), func(i int) any { return sp.big[i][0] }, func(i int) {
		var v [20]int64
		v[19] = int64(sp.big[i][1])
		m.Big[int16(sp.big[i][0])] = v
	})
	if sp.opt != nil {
		m.Opt = conn(*sp.opt)
	}
	return m
}

func mapSim(t *testing.T, opts Options) *Sim {
	t.Helper()
	s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &mapNode{} }}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pureMapHash is the hash of v, which must be hashed straight from memory
// (not from its encoding).
func pureMapHash(t *testing.T, s *Sim, v any) uint64 {
	t.Helper()
	h, ok := s.hashValue(v)
	if !ok || h == xxhash.Sum64(AppendCanonical(nil, v)) {
		t.Fatalf("%T is not hashed straight from memory", v)
	}
	return h
}

// TestHashMapsAgreeWithEncoding: a struct with maps (and pointers) is hashed
// straight from memory, and two values hash equal exactly when their
// canonical encodings are equal, over many random values from small
// domains, each built in several insertion orders and layouts.
func TestHashMapsAgreeWithEncoding(t *testing.T) {
	p := progFor(reflect.TypeFor[mapNode]())
	if p == nil || !p.hashable || !p.tree {
		t.Fatal("mapNode has no hashable tree program")
	}
	s := mapSim(t, Options{})
	r := rand.New(rand.NewPCG(1, 2))
	byEnc := map[string]uint64{}
	byHash := map[uint64]string{}
	for range 3000 {
		sp := genMapSpec(r)
		var enc []byte
		for k := range 3 {
			v := sp.build(r)
			e := AppendCanonical(nil, v)
			if k == 0 {
				enc = e
			} else if !bytes.Equal(e, enc) {
				t.Fatalf("the same content encodes differently: %x and %x", enc, e)
			}
			h := pureMapHash(t, s, v)
			if prev, ok := byEnc[string(e)]; ok && prev != h {
				t.Fatalf("equal encodings hash differently: %v", FormatValue(v))
			}
			if prev, ok := byHash[h]; ok && prev != string(e) {
				t.Fatalf("different encodings hash equal: %v", FormatValue(v))
			}
			byEnc[string(e)], byHash[h] = h, string(e)
		}
	}
	if len(byEnc) < 500 {
		t.Fatalf("only %d distinct values: the domains are too small to test much", len(byEnc))
	}
}

// TestHashMapChanges: changing any one entry of any map (a key, a value,
// an entry more or less, values moved between keys, an entry of a map
// inside a value) changes the hash; a nil map and an empty one, which
// encode equal, hash equal.
func TestHashMapChanges(t *testing.T) {
	s := mapSim(t, Options{})
	base := func() *mapNode {
		tk := &token{N: 1}
		return &mapNode{
			Peers:  map[sim.NodeID]int{1: 10, 2: 20},
			Names:  map[string][]int{"a": {1}, "b": {2, 3}},
			Conns:  map[uint32]*mapConn{7: {Seq: 1, Pend: map[uint32]string{1: "x"}}, 8: nil},
			Set:    map[[3]uint8]struct{}{{1, 2, 3}: {}},
			Nested: map[int8]map[uint16]string{-1: {5: "v"}, 0: nil},
			ByPtr:  map[*token]bool{tk: true},
			Big:    map[int16][20]int64{3: {19: 1}},
			Opt:    &mapConn{Log: []string{"l"}},
		}
	}
	h0 := pureMapHash(t, s, base())
	changes := map[string]func(m *mapNode){
		"Peers value":          func(m *mapNode) { m.Peers[1] = 11 },
		"Peers key":            func(m *mapNode) { delete(m.Peers, 2); m.Peers[3] = 20 },
		"Peers values swapped": func(m *mapNode) { m.Peers[1], m.Peers[2] = 20, 10 },
		"Peers entry more":     func(m *mapNode) { m.Peers[0] = 0 },
		"Peers entry less":     func(m *mapNode) { delete(m.Peers, 1) },
		"Names value longer":   func(m *mapNode) { m.Names["a"] = []int{1, 0} },
		"Names key":            func(m *mapNode) { m.Names["c"] = m.Names["b"]; delete(m.Names, "b") },
		"Names bytes moved":    func(m *mapNode) { m.Names["a"], m.Names["b"] = []int{1, 2}, []int{3} },
		"Conns inner map":      func(m *mapNode) { m.Conns[7].Pend[1] = "y" },
		"Conns inner map key":  func(m *mapNode) { m.Conns[7].Pend = map[uint32]string{2: "x"} },
		"Conns nil value":      func(m *mapNode) { m.Conns[8] = &mapConn{} },
		"Conns field":          func(m *mapNode) { m.Conns[7].Up = true },
		"Set":                  func(m *mapNode) { m.Set[[3]uint8{1, 2, 4}] = struct{}{} },
		"Nested inner":         func(m *mapNode) { m.Nested[-1][5] = "w" },
		"Nested nil to empty":  func(m *mapNode) { m.Nested[0] = map[uint16]string{0: ""} },
		"ByPtr target": func(m *mapNode) {
			for k := range m.ByPtr {
				k.N = 2
			}
		},
		"ByPtr value": func(m *mapNode) {
			for k := range m.ByPtr {
				m.ByPtr[k] = false
			}
		},
		"Big value": func(m *mapNode) { m.Big[3] = [20]int64{18: 1} },
		"Opt nil":   func(m *mapNode) { m.Opt = nil },
		"Opt field": func(m *mapNode) { m.Opt.Log[0] = "m" },
	}
	for name, change := range changes {
		m := base()
		change(m)
		if pureMapHash(t, s, m) == h0 {
			t.Errorf("changing %s leaves the hash as it was", name)
		}
	}
	a, b := base(), base()
	b.Nested[0] = map[uint16]string{}
	a.Names, b.Names = nil, map[string][]int{}
	if !bytes.Equal(AppendCanonical(nil, a), AppendCanonical(nil, b)) {
		t.Fatal("a nil map and an empty one encode differently")
	}
	if pureMapHash(t, s, a) != pureMapHash(t, s, b) {
		t.Error("a nil map and an empty one hash differently")
	}
}

// TestHashMapBound: a map whose encoding passes the simulator's bound fails
// as the encoding does (HashErr); one within it is hashed from memory.
func TestHashMapBound(t *testing.T) {
	for _, c := range []struct {
		n    int
		fail bool
	}{{40, false}, {80, true}} {
		s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service {
			m := &mapNode{Peers: map[sim.NodeID]int{}}
			for i := range c.n {
				m.Peers[sim.NodeID(i)] = i
			}
			return m
		}}, Options{MaxStateBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		s.Hash()
		var ee *EncodingError
		if failed := errors.As(s.HashErr(), &ee); failed != c.fail {
			t.Errorf("%d entries in a bound of 1000 bytes: error %v", c.n, s.HashErr())
		}
		if !c.fail {
			pureMapHash(t, s, s.w.svcs[0])
		}
	}
}

// canonMap is a map value whose canonical form (sim.Canonicalizer) drops
// its Skip field.
type canonMap struct {
	N    int
	Skip int
}

func (c canonMap) Canonical() any { return c.N }

// TestHashMapCanonicalizer: a map whose values have a sim.Canonicalizer is
// not read from memory but encoded, so the canonical form decides.
func TestHashMapCanonicalizer(t *testing.T) {
	type node struct {
		sim.Base
		M map[int]canonMap
	}
	if p := progFor(reflect.TypeFor[node]()); p == nil || p.hashable {
		t.Fatal("a map of values with a Canonicalizer is read from memory")
	}
	s := mapSim(t, Options{})
	h1, _ := s.hashValue(&node{M: map[int]canonMap{1: {N: 1, Skip: 1}}})
	h2, _ := s.hashValue(&node{M: map[int]canonMap{1: {N: 1, Skip: 2}}})
	h3, _ := s.hashValue(&node{M: map[int]canonMap{1: {N: 2, Skip: 1}}})
	if h1 != h2 || h1 == h3 {
		t.Errorf("hashes %x %x %x: want the first two equal and the third different", h1, h2, h3)
	}
}

// TestHashMapMonitor: a monitor with a map is hashed from memory, whatever
// the order its map was filled in.
func TestHashMapMonitor(t *testing.T) {
	s := mapSim(t, Options{})
	a, b := &tally{Events: map[int]int{}}, &tally{Events: map[int]int{}}
	for i := range 5 {
		a.Events[i] = i
		b.Events[4-i] = 4 - i
	}
	if pureMapHash(t, s, a) != pureMapHash(t, s, b) {
		t.Error("equal monitors hash differently")
	}
	b.Events[0] = 1
	if pureMapHash(t, s, a) == pureMapHash(t, s, b) {
		t.Error("different monitors hash equal")
	}
}

// cell is a linked list: a type that reaches itself through a pointer.
type cell struct {
	V    int
	Next *cell
}

// TestHashCyclicTypes: a struct that reaches itself through pointers or
// maps has no tree program (its values may hold cycles), and a value with
// a cycle is hashed from its encoding: the hash ends, and tells values
// apart.
func TestHashCyclicTypes(t *testing.T) {
	type node struct {
		sim.Base
		L *cell
		M map[int]*cell
	}
	if p := progFor(reflect.TypeFor[node]()); p == nil || p.hashable || p.tree {
		t.Fatal("a type that reaches itself is read from memory")
	}
	s := mapSim(t, Options{})
	ring := func(v int) *node {
		a := &cell{V: v}
		a.Next = &cell{V: 2, Next: a}
		return &node{L: a, M: map[int]*cell{1: a}}
	}
	h1, ok1 := s.hashValue(ring(1))
	h2, ok2 := s.hashValue(ring(1))
	h3, _ := s.hashValue(ring(3))
	if !ok1 || !ok2 || h1 != h2 || h1 == h3 {
		t.Errorf("hashes %x %x %x: want the first two equal and the third different", h1, h2, h3)
	}
}

// bigMonitor grows past any small bound, in a field hashPure cannot read
// (an interface holding a pointer), so it is encoded.
type bigMonitor struct {
	Xs []int
	P  any
}

func (m *bigMonitor) Handle(any) error {
	m.Xs = append(m.Xs, make([]int, 200)...)
	m.P = &token{N: len(m.Xs)}
	return nil
}

// boxedPtr is a node encoded (not hashed from memory): its interface holds
// a pointer.
type boxedPtr struct {
	sim.Base
	P any
}

func (n *boxedPtr) Start(ctx *sim.Context)                 { ctx.SetPeriodic("t"); n.P = &token{} }
func (n *boxedPtr) HandleTimer(ctx *sim.Context, _ string) { ctx.Notify(1) }

// TestHashBigMonitor: a monitor is hashed without the bound on nodes and
// messages, even right after a node was encoded within it: the hash goes
// on (it stopped with a panic when the node's bound was left armed), and
// tells the monitor's states apart.
func TestHashBigMonitor(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &boxedPtr{} },
		Monitors: []sim.MonitorSpec{{Name: "big", New: func() sim.Monitor { return &bigMonitor{} }}}}
	s, err := New(cfg, Options{MaxStateBytes: 1000, Chooser: NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for range 5 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		s.w.nodes[0].dirty = true
		s.touch(0)
		h := s.Hash()
		if seen[h] {
			t.Fatal("the monitor grew and the hash stayed as it was")
		}
		seen[h] = true
	}
	if err := s.HashErr(); err != nil {
		t.Fatal(err)
	}
}
