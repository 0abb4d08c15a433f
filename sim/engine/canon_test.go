package engine_test

import (
	"bytes"
	"fmt"
	htemplate "html/template"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	ttemplate "text/template"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

type inner struct {
	Name string
	Vals []int
	m    map[string]int
}

type state struct {
	M      map[string]int
	Nested map[int]map[string][]int
	Lists  map[string][]string
	Ptrs   map[string]*inner
	P      *inner
	Arr    [3]uint8
	F      float64
	B      []byte
	hidden int
	Cache  map[string]int `macemc:"-"`
	fn     func()
	ch     chan int
	sim.Base
}

// build makes a state whose maps get keys 0..n-1 in the order perm.
func build(n int, perm []int) *state {
	s := &state{
		M: map[string]int{}, Nested: map[int]map[string][]int{}, Lists: map[string][]string{},
		Ptrs: map[string]*inner{}, P: &inner{Name: "p", Vals: []int{1, 2}, m: map[string]int{}},
		Arr: [3]uint8{1, 2, 3}, F: 1.5, B: []byte("bytes"), hidden: 7, Cache: map[string]int{},
	}
	for _, i := range perm {
		k := fmt.Sprintf("k%03d", i)
		s.M[k] = i * i
		if s.Nested[i%7] == nil {
			s.Nested[i%7] = map[string][]int{}
		}
		s.Nested[i%7][k] = []int{i, -i}
		s.Lists[k] = []string{k, "x"}
		s.Ptrs[k] = &inner{Name: k, Vals: []int{i}, m: map[string]int{k: i}}
		s.P.m[k] = i
		s.Cache[k] = i // left out of the state
	}
	return s
}

func perm(seed uint64, n int) []int {
	return rand.New(rand.NewPCG(seed, seed)).Perm(n)
}

func TestCanonicalMapOrder(t *testing.T) {
	const n = 100
	base := build(n, perm(0, n))
	want := engine.AppendCanonical(nil, base)
	wantH := engine.Hash(base)
	for seed := uint64(1); seed <= 20; seed++ {
		s := build(n, perm(seed, n))
		if got := engine.AppendCanonical(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: encodings differ", seed)
		}
		if engine.Hash(s) != wantH {
			t.Fatalf("seed %d: hashes differ", seed)
		}
		// Deleting and re-adding changes a map's internal layout, not its state.
		delete(s.M, "k050")
		s.M["k050"] = 2500
		if engine.Hash(s) != wantH {
			t.Fatalf("seed %d: delete and re-add changed the hash", seed)
		}
	}
	// Repeated encoding of one value (Go randomises iteration) is stable.
	for i := 0; i < 20; i++ {
		if !bytes.Equal(engine.AppendCanonical(nil, base), want) {
			t.Fatal("encoding the same value twice differs")
		}
	}
	// AppendCanonical appends.
	if got := engine.AppendCanonical([]byte("pre"), base); !bytes.Equal(got[3:], want) || string(got[:3]) != "pre" {
		t.Fatal("AppendCanonical does not append")
	}
}

func TestCanonicalChanges(t *testing.T) {
	const n = 30
	h0 := engine.Hash(build(n, perm(0, n)))
	changes := map[string]func(s *state){
		"map value":             func(s *state) { s.M["k001"]++ },
		"map key":               func(s *state) { v := s.M["k001"]; delete(s.M, "k001"); s.M["k001x"] = v },
		"nested slice":          func(s *state) { s.Nested[1]["k001"][1] = 5 },
		"map of slices":         func(s *state) { s.Lists["k002"] = append(s.Lists["k002"], "y") },
		"pointee":               func(s *state) { s.P.Name = "q" },
		"pointee unexported":    func(s *state) { s.P.m["k003"] = 99 },
		"map pointer target":    func(s *state) { s.Ptrs["k004"].Vals[0] = -1 },
		"unexported field":      func(s *state) { s.hidden = 8 },
		"array":                 func(s *state) { s.Arr[2] = 9 },
		"float":                 func(s *state) { s.F = 1.25 },
		"bytes":                 func(s *state) { s.B[0] = 'B' },
		"nil pointer":           func(s *state) { s.P = nil },
		"empty vs nil map":      func(s *state) { s.Nested[1] = nil },
		"slice moved in map":    func(s *state) { s.Lists["k005"], s.Lists["k006"] = s.Lists["k006"], s.Lists["k005"] },
		"unexported nested map": func(s *state) { s.Ptrs["k007"].m = nil },
		"func":                  func(s *state) { s.fn = func() {} },
		"chan":                  func(s *state) { s.ch = make(chan int) },
	}
	names := make([]string, 0, len(changes))
	for k := range changes {
		names = append(names, k)
	}
	sort.Strings(names)
	seen := map[uint64]string{h0: "unchanged"}
	for _, name := range names {
		s := build(n, perm(0, n))
		changes[name](s)
		h := engine.Hash(s)
		if prev, dup := seen[h]; dup {
			t.Errorf("change %q hashes like %q", name, prev)
		}
		seen[h] = name
	}
	// Left out of the state: the tagged field.
	same := map[string]func(s *state){
		"tagged field": func(s *state) { s.Cache["k001"] = -5; s.Cache["new"] = 1 },
		"tagged nil":   func(s *state) { s.Cache = nil },
		"equal copy":   func(s *state) { cp := *s.P; cp.Vals = slices.Clone(cp.Vals); s.P = &cp },
	}
	for name, f := range same {
		s := build(n, perm(0, n))
		f(s)
		if engine.Hash(s) != h0 {
			t.Errorf("%s changed the hash", name)
		}
	}
}

// sortedSet is a set kept as a slice in insertion order; its canonical form
// is sorted (value receiver).
type sortedSet struct{ items []int }

func (s sortedSet) Canonical() any {
	c := slices.Clone(s.items)
	slices.Sort(c)
	return c
}

// ptrSet is the same with a pointer receiver, and a cache to leave out.
type ptrSet struct {
	items []int
	hits  int
}

func (s *ptrSet) Canonical() any {
	c := slices.Clone(s.items)
	slices.Sort(c)
	return c
}

type withSets struct {
	A  sortedSet
	b  sortedSet
	C  ptrSet
	d  ptrSet
	E  *ptrSet
	M  map[string]sortedSet
	m  map[string]sortedSet
	I  any
	i  any
	MP map[string]ptrSet
}

func setsOf(order []int) *withSets {
	w := &withSets{
		A: sortedSet{slices.Clone(order)}, b: sortedSet{slices.Clone(order)},
		C: ptrSet{items: slices.Clone(order), hits: order[0]}, d: ptrSet{items: slices.Clone(order), hits: order[1]},
		E: &ptrSet{items: slices.Clone(order), hits: order[2]},
		M: map[string]sortedSet{"x": {slices.Clone(order)}},
		m: map[string]sortedSet{"x": {slices.Clone(order)}},
		I: sortedSet{slices.Clone(order)}, i: sortedSet{slices.Clone(order)},
		MP: map[string]ptrSet{"x": {items: slices.Clone(order), hits: order[0]}},
	}
	return w
}

func TestCanonicalizer(t *testing.T) {
	a, b := setsOf([]int{3, 1, 2}), setsOf([]int{2, 3, 1})
	if engine.Hash(a) != engine.Hash(b) {
		t.Fatalf("Canonical() not used somewhere:\n%s\n%s", engine.FormatState(a), engine.FormatState(b))
	}
	// Each field on its own, so a failure names the place.
	fields := map[string]func(w *withSets) any{
		"value receiver":            func(w *withSets) any { return w.A },
		"value receiver unexported": func(w *withSets) any { return struct{ x sortedSet }{w.b} },
		"pointer receiver field":    func(w *withSets) any { return &struct{ C ptrSet }{w.C} },
		"pointer receiver unexp":    func(w *withSets) any { return &struct{ d ptrSet }{w.d} },
		"pointer":                   func(w *withSets) any { return w.E },
		"exported map value":        func(w *withSets) any { return w.M },
		"unexported map value":      func(w *withSets) any { return &struct{ m map[string]sortedSet }{w.m} },
		"interface":                 func(w *withSets) any { return &struct{ I any }{w.I} },
		"unexported interface":      func(w *withSets) any { return &struct{ i any }{w.i} },
		"map value, pointer recv":   func(w *withSets) any { return w.MP },
	}
	for name, f := range fields {
		if engine.Hash(f(a)) != engine.Hash(f(b)) {
			t.Errorf("%s: Canonical() not used", name)
		}
		if engine.FormatValue(f(a)) != engine.FormatValue(f(b)) {
			t.Errorf("%s: text form does not use Canonical(): %s vs %s", name, engine.FormatValue(f(a)), engine.FormatValue(f(b)))
		}
	}
	c := setsOf([]int{3, 1, 4})
	if engine.Hash(a) == engine.Hash(c) {
		t.Fatal("different sets hash equal")
	}
}

type ring struct {
	V    int
	Next *ring
	byID map[int]*ring
}

func makeRing(vals ...int) *ring {
	nodes := make([]*ring, len(vals))
	for i, v := range vals {
		nodes[i] = &ring{V: v, byID: map[int]*ring{}}
	}
	for i := range nodes {
		nodes[i].Next = nodes[(i+1)%len(nodes)]
		for j := range nodes {
			nodes[i].byID[j] = nodes[j]
		}
	}
	return nodes[0]
}

func TestCanonicalCycles(t *testing.T) {
	self := &ring{V: 1}
	self.Next = self
	h1 := engine.Hash(self)
	a, b := makeRing(1, 2, 3), makeRing(1, 2, 3)
	if engine.Hash(a) != engine.Hash(b) {
		t.Fatal("equal rings hash differently")
	}
	if engine.Hash(a) == engine.Hash(makeRing(1, 2, 4)) || engine.Hash(a) == engine.Hash(makeRing(1, 2)) {
		t.Fatal("different rings hash equal")
	}
	if engine.Hash(a) == h1 {
		t.Fatal("self loop hashes like a ring")
	}
	_ = engine.FormatValue(a)
	_ = engine.FormatState(a)
	// A cycle through an interface and a slice.
	type box struct{ X []any }
	bx := &box{}
	bx.X = append(bx.X, bx, 1)
	_ = engine.Hash(bx)
	_ = engine.FormatValue(bx)
}

type plain struct{ V any }

type myInt int

func TestCanonicalInterfaceTypes(t *testing.T) {
	var nilPtr *inner
	vals := []any{nil, 1, int64(1), int32(1), uint(1), myInt(1), 1.0, "1", []int{1}, [1]int{1},
		nilPtr, &inner{}, inner{}, Num{Seq: 1}, Tick{N: 1}, true, map[int]int{1: 1}}
	seen := map[uint64]int{}
	for i, v := range vals {
		h := engine.Hash(plain{V: v})
		if j, dup := seen[h]; dup {
			t.Errorf("%T(%v) hashes like %T(%v)", v, v, vals[j], vals[j])
		}
		seen[h] = i
	}
	// Messages of different types with the same fields.
	type A struct{ N int }
	type B struct{ N int }
	if engine.Hash(A{1}) == engine.Hash(B{1}) {
		t.Error("different types hash equal")
	}
}

// TestCanonicalPointerKeys: a map keyed by pointers whose targets encode
// equal must still encode the same way every time.
func TestCanonicalPointerKeys(t *testing.T) {
	k1, k2 := &inner{Name: "same"}, &inner{Name: "same"}
	m := map[*inner]string{k1: "a", k2: "b"}
	want := engine.AppendCanonical(nil, m)
	wantText := engine.FormatValue(m)
	for i := 0; i < 100; i++ {
		m2 := map[*inner]string{}
		if i%2 == 0 {
			m2[k1], m2[k2] = "a", "b"
		} else {
			m2[k2], m2[k1] = "b", "a"
		}
		if !bytes.Equal(engine.AppendCanonical(nil, m2), want) {
			t.Fatalf("iteration %d: encoding depends on map order", i)
		}
		if engine.FormatValue(m2) != wantText {
			t.Fatalf("iteration %d: text depends on map order: %s vs %s", i, engine.FormatValue(m2), wantText)
		}
	}
}

// Counted counts how often the simulator encodes it.
type Counted struct {
	sim.Base
	N     int
	calls *int
}

func (c *Counted) Canonical() any { *c.calls++; return c.N }

func (c *Counted) HandleApp(ctx *sim.Context, req any) {
	c.N++
	if req == "send" {
		ctx.Send(1-ctx.Self(), Num{Seq: c.N})
	}
}

func (c *Counted) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) { c.N += 10 }

// TestHashReencodesOnlyDirtyNodes: Sim.Hash encodes a node again only after
// one of its handlers ran (or it was reset).
func TestHashReencodesOnlyDirtyNodes(t *testing.T) {
	calls := make([]int, 2)
	cfg := &sim.Config{
		Nodes:    2,
		Service:  func(id sim.NodeID) sim.Service { return &Counted{calls: &calls[id]} },
		App:      func(id sim.NodeID) []any { return []any{"send", "send", "x"} },
		Failures: sim.Failures{Breaks: 1, Resets: 1},
	}
	s := mustNew(t, cfg, engine.Options{})
	h := s.Hash()
	if !slices.Equal(calls, []int{1, 1}) {
		t.Fatalf("first Hash: calls %v, want [1 1]", calls)
	}
	if s.Hash() != h || !slices.Equal(calls, []int{1, 1}) {
		t.Fatalf("second Hash re-encoded: %v", calls)
	}
	// Node 0's app request: only node 0 is encoded again.
	mustStepEvent(t, s, findReady(t, s, "app at 0", func(e engine.Event) bool { return e.Kind == engine.EvApp && e.Node == 0 }))
	h2 := s.Hash()
	if !slices.Equal(calls, []int{2, 1}) || h2 == h {
		t.Fatalf("after node 0 ran: calls %v, hash changed %v", calls, h2 != h)
	}
	// A break runs no handler: nobody is encoded, but the hash changes (the
	// message in flight is gone, connection errors are pending).
	mustStepEvent(t, s, findReady(t, s, "break", func(e engine.Event) bool { return e.Kind == engine.EvBreak }))
	h3 := s.Hash()
	if !slices.Equal(calls, []int{2, 1}) || h3 == h2 {
		t.Fatalf("after a break: calls %v, hash changed %v", calls, h3 != h2)
	}
	// Node 1 learns of the break.
	mustStepEvent(t, s, findReady(t, s, "connerror at 1", func(e engine.Event) bool { return e.Kind == engine.EvConnError && e.Node == 1 }))
	s.Hash()
	if !slices.Equal(calls, []int{2, 2}) {
		t.Fatalf("after node 1 ran: calls %v", calls)
	}
	// A reset makes a fresh node 1, which is encoded.
	mustStepEvent(t, s, findReady(t, s, "reset of 1", func(e engine.Event) bool { return e.Kind == engine.EvReset && e.Node == 1 }))
	s.Hash()
	if !slices.Equal(calls, []int{2, 3}) {
		t.Fatalf("after reset of node 1: calls %v", calls)
	}
	// A clone has the same hash without re-encoding anything.
	c := s.Clone(nil)
	if c.Hash() != s.Hash() || !slices.Equal(calls, []int{2, 3}) {
		t.Fatalf("clone: calls %v", calls)
	}
}

// TestSimHashCoversPendingEvents: states that differ only in pending events
// hash differently.
func TestSimHashCoversPendingEvents(t *testing.T) {
	hashAfter := func(do Do) uint64 {
		s := mustNew(t, scriptConfig(2, func(id sim.NodeID) []Do {
			if id == 0 {
				return []Do{do}
			}
			return nil
		}), engine.Options{})
		mustStepEvent(t, s, 0)
		return s.Hash()
	}
	variants := map[string]Do{
		"nothing":        func(ctx *sim.Context, n *Script) {},
		"send 1":         sendNums(1, 1, false),
		"send 2":         sendNums(1, 2, false),
		"send to self":   sendNums(0, 1, false),
		"datagram 1":     sendNums(1, 1, true),
		"datagram 2":     sendNums(1, 2, true),
		"timer a":        func(ctx *sim.Context, n *Script) { ctx.SetTimer("a") },
		"timer b":        func(ctx *sim.Context, n *Script) { ctx.SetTimer("b") },
		"periodic a":     func(ctx *sim.Context, n *Script) { ctx.SetPeriodic("a") },
		"timer cancel":   func(ctx *sim.Context, n *Script) { ctx.SetTimer("a"); ctx.CancelTimer("a") },
		"other message":  func(ctx *sim.Context, n *Script) { ctx.Send(1, Num{Seq: 9}) },
		"other datagram": func(ctx *sim.Context, n *Script) { ctx.SendDatagram(1, Num{Seq: 9}) },
	}
	seen := map[uint64]string{}
	names := make([]string, 0, len(variants))
	for k := range variants {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		h := hashAfter(variants[name])
		if prev, dup := seen[h]; dup && !(name == "timer cancel" && prev == "nothing" || name == "nothing" && prev == "timer cancel") {
			t.Errorf("%q hashes like %q", name, prev)
		}
		seen[h] = name
	}
	if hashAfter(variants["nothing"]) != hashAfter(variants["timer cancel"]) {
		t.Error("a cancelled timer left a trace in the hash")
	}
}

type phase int

func (p phase) String() string { return [...]string{"idle", "busy"}[p] }

type withPhase struct {
	P     phase
	inner phase
	M     map[phase]phase
}

func TestTextFormUsesStringerOfScalars(t *testing.T) {
	v := &withPhase{P: 1, inner: 0, M: map[phase]phase{1: 0}}
	got := engine.FormatValue(v)
	if got != "&withPhase{P: busy, inner: idle, M: {busy: idle}}" {
		t.Errorf("FormatValue = %s", got)
	}
	// The hash still encodes the numbers: equal names, equal hashes.
	if engine.Hash(&withPhase{P: 1}) == engine.Hash(&withPhase{P: 0}) {
		t.Error("different phases hash equal")
	}
}

// TestTypesOfSameNamedPackages: values of types whose packages share a
// name (text/template and html/template), reached through a pointer, a
// slice or a map, hash apart: their names differ only in the package path,
// which reflect's String leaves out.
func TestTypesOfSameNamedPackages(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"pointer", (*ttemplate.Template)(nil), (*htemplate.Template)(nil)},
		{"slice", []*ttemplate.Template{}, []*htemplate.Template{}},
		{"map", map[string]*ttemplate.Template{}, map[string]*htemplate.Template{}},
		{"struct", ttemplate.Template{}, htemplate.Template{}},
	} {
		if engine.Hash(c.a) == engine.Hash(c.b) {
			t.Errorf("%s: %T and %T hash alike", c.name, c.a, c.b)
		}
	}
}

// timeNode holds a time in the local zone.
type timeNode struct {
	sim.Base
	At time.Time
}

// TestTimeInLocalZone: a node's time.Time in time.Local hashes the same
// before and after other code first uses local time (which fills
// time.Local's fields), and times are told apart by instant and zone.
func TestTimeInLocalZone(t *testing.T) {
	n := &timeNode{At: time.Unix(1_700_000_000, 0)}
	// What is hashed and shown is the instant and the zone's name, not
	// the *time.Location's fields.
	if got, want := engine.FormatValue(n.At), `"2023-11-14T22:13:20Z Local"`; got != want {
		t.Errorf("the time reads %s, want %s", got, want)
	}
	before := engine.Hash(n)
	_ = time.Unix(1_700_000_000, 0).Weekday().String() + time.Now().Local().String()
	if after := engine.Hash(n); after != before {
		t.Errorf("the hash changed when local time was first used: %x then %x", before, after)
	}
	for _, other := range []time.Time{time.Unix(1_700_000_001, 0), time.Unix(1_700_000_000, 0).UTC()} {
		if engine.Hash(&timeNode{At: other}) == before {
			t.Errorf("%v hashes like %v", other, n.At)
		}
	}
}

// cycleNode is a self-referential node: its pointers are numbered as an
// encoding follows them.
type cycleNode struct {
	ID   int
	Next *cycleNode
}

// TestSharedTargetsInMapsEncodeAlike: a map whose values point into one
// cycle of nodes, built in another order each time (and so iterated in
// another), hashes the same every time: each entry is encoded as if alone,
// so the numbering of the pointers does not follow the map's order.
func TestSharedTargetsInMapsEncodeAlike(t *testing.T) {
	build := func(order []int) map[int]*cycleNode {
		nodes := make([]*cycleNode, 5)
		for i := range nodes {
			nodes[i] = &cycleNode{ID: i}
		}
		for i := range nodes {
			nodes[i].Next = nodes[(i+1)%5]
		}
		m := map[int]*cycleNode{}
		for _, i := range order {
			m[i] = nodes[i]
		}
		return m
	}
	want := engine.Hash(build([]int{0, 1, 2, 3, 4}))
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		order := r.Perm(5)
		if got := engine.Hash(build(order)); got != want {
			t.Fatalf("built in the order %v the map hashes %x, in order %x", order, got, want)
		}
	}
}
