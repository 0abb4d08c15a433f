package fair

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/macemc/macemc/sim/engine"
)

// TestTimeOf: a step's time class is that of its clock questions (choices
// of kind ChooseTime with more than one option), as the lasso detector
// reads them.
func TestTimeOf(t *testing.T) {
	ask := func(v int32) engine.Choice { return engine.Choice{Kind: engine.ChooseTime, N: 2, Value: v} }
	for _, c := range []struct {
		name string
		ch   []engine.Choice
		want Time
	}{
		{"no choices", nil, TimeNone},
		{"other kinds", []engine.Choice{{Kind: engine.ChooseEvent, N: 3, Value: 0}, {Kind: engine.ChooseRandom, N: 2, Value: 1}}, TimeNone},
		{"a time choice of one option", []engine.Choice{{Kind: engine.ChooseTime, N: 1, Value: 0}}, TimeNone},
		{"not yet", []engine.Choice{{Kind: engine.ChooseEvent, N: 2, Value: 1}, ask(0)}, TimeWaits},
		{"not yet twice", []engine.Choice{ask(0), ask(0)}, TimeWaits},
		{"elapsed", []engine.Choice{ask(1)}, TimePasses},
		{"not yet, then elapsed", []engine.Choice{ask(0), ask(1)}, TimePasses},
		{"elapsed, then not yet", []engine.Choice{ask(1), ask(0)}, TimePasses},
	} {
		if got := TimeOf(c.ch); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// tgraph builds a graph of hot states 0..len(enabled)-1 (keys 100 + id)
// with the units enabled in each, and adds transitions whose choices are
// their index in the order added, so that a lasso's steps name them.
type tgraph struct {
	*Graph
	n int32
}

func newTGraph(t *testing.T, enabled ...[]uint64) *tgraph {
	t.Helper()
	g := &tgraph{Graph: New(0)}
	for v, units := range enabled {
		if _, err := g.AddState(uint64(100+v), true, units); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// edge adds transition from -> to by unit (of node 0), of time class tm,
// and returns its index.
func (g *tgraph) edge(from, to int32, unit uint64, tm Time) int32 {
	return g.nodeEdge(from, to, unit, 0, tm)
}

// nodeEdge adds transition from -> to by unit of node node, of time class
// tm, and returns its index.
func (g *tgraph) nodeEdge(from, to int32, unit uint64, node int, tm Time) int32 {
	i := g.n
	g.n++
	g.AddEdge(from, to, unit, node, false, tm, []int32{i})
	return i
}

// cycleEdges returns the transitions (their indices) of a lasso's cycle.
func cycleEdges(l *Lasso) []int32 {
	var out []int32
	for _, s := range l.Cycle {
		out = append(out, s.Choices[0])
	}
	return out
}

// A hot state whose timer fires, asks the clock, is told "not yet" and
// sets the timer again is a cycle that is fair to every unit but unfair to
// time: no fair cycle. Once the clock may say "elapsed" there and the
// state stays hot, it is one.
func TestWaitingSelfLoopIsNoFairCycle(t *testing.T) {
	g := newTGraph(t, []uint64{1})
	g.edge(0, 0, 1, TimeWaits)
	if l := g.FairCycle(0); l != nil {
		t.Fatalf("a self-loop that waits is reported as a fair cycle: %+v", l)
	}
	// The same in a state recorded with no unit enabled (a coarse key
	// merges states, and keeps the units of the first).
	g0 := newTGraph(t, nil)
	g0.edge(0, 0, 1, TimeWaits)
	if l := g0.FairCycle(0); l != nil {
		t.Fatalf("a self-loop that waits, in a state that enables no unit, is reported as a fair cycle: %+v", l)
	}
	p := g.edge(0, 0, 1, TimePasses)
	if g.Edges() != 2 {
		t.Fatalf("%d transitions: one that lets time pass and one that waits, from, to and unit the same, must be two", g.Edges())
	}
	ls := g.FairCycles(0, 4)
	if len(ls) == 0 {
		t.Fatal("no fair cycle with a self-loop that lets time pass")
	}
	for _, l := range ls {
		if !slices.Contains(cycleEdges(l), p) {
			t.Errorf("cycle %v does not let time pass", cycleEdges(l))
		}
	}
}

// A component with a transition that waits and one that lets time pass
// holds a fair cycle; the cycle through all its units (lasso) takes the one
// that lets time pass, though the units alone do not need it, and no
// simple cycle that only waits is offered.
func TestWaitAndPassInOneComponent(t *testing.T) {
	g := newTGraph(t, []uint64{1}, []uint64{1})
	w := g.edge(0, 1, 1, TimeWaits)
	back := g.edge(1, 0, 1, TimeNone)
	p := g.edge(1, 1, 1, TimePasses)
	ls := g.FairCycles(0, 5)
	var cycles [][]int32
	for _, l := range ls {
		cycles = append(cycles, cycleEdges(l))
	}
	// The simple cycles: b -> b (lets time pass), then a -> b -> a (only
	// waits: not fair); then the cycle of the component's units from a.
	want := [][]int32{{p}, {w, p, back}}
	if !slices.EqualFunc(cycles, want, slices.Equal) {
		t.Fatalf("cycles %v, want %v", cycles, want)
	}
	if l := ls[1]; len(l.Stem) != 0 || l.SCC != 2 {
		t.Errorf("the component's lasso %+v, want no stem and a component of 2 states", l)
	}
}

// A component held together by a transition that waits, where nothing
// lets time pass, splits without it: its parts' cycles are fair, the
// waiting transition is on none of them, and a part left without a cycle
// has none.
func TestWaitingTransitionSplitsTheComponent(t *testing.T) {
	g := newTGraph(t, []uint64{1}, []uint64{1}, []uint64{1}, []uint64{1})
	self := g.edge(0, 0, 1, TimeNone) // {a}: a cycle of its own
	w := g.edge(0, 1, 1, TimeWaits)   // a -> b waits: the only way from a
	g.edge(1, 0, 1, TimeNone)         // b -> a
	g.edge(1, 2, 1, TimeNone)         // b -> c and c -> b: a cycle
	g.edge(2, 1, 1, TimeNone)
	w2 := g.edge(2, 3, 1, TimeWaits) // c -> d waits
	g.edge(3, 2, 1, TimeNone)        // d -> c: d's only cycle runs c -> d
	ls := g.FairCycles(0, 10)
	sccs := map[int]bool{}
	selfFound := false
	for _, l := range ls {
		c := cycleEdges(l)
		if slices.Contains(c, w) || slices.Contains(c, w2) {
			t.Errorf("cycle %v (component of %d states) waits and never lets time pass", c, l.SCC)
		}
		for _, s := range l.Cycle {
			if s.From == 3 {
				t.Errorf("cycle %v runs through d, whose only cycle waits", c)
			}
		}
		sccs[l.SCC] = true
		selfFound = selfFound || slices.Equal(c, []int32{self})
	}
	if !selfFound || !sccs[1] || !sccs[2] || len(sccs) != 2 {
		t.Errorf("lassos %s: want a's self-loop (a component of 1 state) and cycles of b and c (2 states)", lassos(ls))
	}
	// Without a's self-loop, a is no cycle once a -> b is dropped.
	g2 := newTGraph(t, []uint64{1}, []uint64{1})
	g2.edge(0, 1, 1, TimeWaits)
	g2.edge(1, 0, 1, TimeNone)
	if l := g2.FairCycle(0); l != nil {
		t.Errorf("a cycle that needs a transition that waits is reported: %+v", l)
	}
}

// Units and time together: when the only transition of a unit waits, a
// component with nothing that lets time pass drops it, and the states
// that enable the unit with it; once time may pass, the fair cycle runs
// both the unit's waiting transition and the one that lets time pass.
func TestUnitsAndTime(t *testing.T) {
	// a enables units 1 and 2; unit 2 runs only on a's self-loop, which
	// waits (a timer that checks the clock).
	g := newTGraph(t, []uint64{1, 2}, []uint64{1})
	w := g.edge(0, 0, 2, TimeWaits)
	g.edge(0, 1, 1, TimeNone)
	g.edge(1, 0, 1, TimeNone)
	if l := g.FairCycle(0); l != nil {
		t.Fatalf("unit 2 runs only on a transition that waits, with nothing letting time pass; cycle %v reported", cycleEdges(l))
	}
	p := g.edge(1, 0, 1, TimePasses) // b -> a again, and the clock says yes
	ls := g.FairCycles(0, 5)
	if len(ls) == 0 {
		t.Fatal("no fair cycle once time may pass")
	}
	for _, l := range ls {
		c := cycleEdges(l)
		if !slices.Contains(c, w) || !slices.Contains(c, p) {
			t.Errorf("cycle %v must run unit 2 (transition %d) and let time pass (%d)", c, w, p)
		}
	}
	// A unit starved in a component that lets time pass is still unfair.
	g2 := newTGraph(t, []uint64{1, 2}, []uint64{1})
	g2.edge(0, 1, 1, TimePasses)
	g2.edge(1, 0, 1, TimeWaits)
	if l := g2.FairCycle(0); l != nil {
		t.Errorf("a cycle that starves unit 2 is reported because it lets time pass: %v", cycleEdges(l))
	}
}

// Fairness to time is per node: a cycle in which node 0's timer is told
// "not yet" at every turn while node 1's is told "elapsed" is unfair to
// node 0's deadline (a trial's correct lease, whose fixed deadline never
// expired, was a "proven" livelock once an unrelated node saw a second go
// by); once node 0 is told "elapsed" somewhere in it too, it is fair.
func TestTimeIsFairPerNode(t *testing.T) {
	// a -0 waits-> b -1 passes-> a: node 0 waits, node 1 lets time pass.
	g := newTGraph(t, []uint64{1, 2}, []uint64{1, 2})
	g.nodeEdge(0, 1, 1, 0, TimeWaits)
	g.nodeEdge(1, 0, 2, 1, TimePasses)
	if l := g.FairCycle(0); l != nil {
		t.Fatalf("node 0 waits at every turn while node 1 lets time pass: cycle %v reported", cycleEdges(l))
	}
	if n := g.FairIgnoringTime(0); n != 1 {
		t.Errorf("FairIgnoringTime: %d components, want the one cycle set aside for time", n)
	}
	// The same with node 1 asking on the very transition (a self-loop of b).
	g1 := newTGraph(t, []uint64{1}, []uint64{1})
	g1.nodeEdge(0, 1, 1, 0, TimeWaits)
	g1.nodeEdge(1, 0, 1, 0, TimeNone)
	g1.nodeEdge(1, 1, 2, 1, TimePasses)
	if l := g1.FairCycle(0); l != nil {
		t.Fatalf("node 1's self-loop lets time pass, node 0 only waits: cycle %v reported", cycleEdges(l))
	}
	// Node 0 is told "elapsed" on another transition of the component:
	// every fair cycle takes it whenever it takes node 0's wait.
	p0 := g.nodeEdge(1, 1, 1, 0, TimePasses)
	ls := g.FairCycles(0, 6)
	if len(ls) == 0 {
		t.Fatal("both nodes let time pass: no fair cycle")
	}
	for _, l := range ls {
		c := cycleEdges(l)
		if slices.Contains(c, 0) && !slices.Contains(c, p0) {
			t.Errorf("cycle %v takes node 0's wait (0) but not its pass (%d)", c, p0)
		}
	}
	// A node that only lets time pass needs nothing: a cycle of node 1's
	// passes and node 0's transitions that do not ask is fair.
	g2 := newTGraph(t, []uint64{1, 2}, []uint64{1, 2})
	g2.nodeEdge(0, 1, 1, 0, TimeNone)
	g2.nodeEdge(1, 0, 2, 1, TimePasses)
	if l := g2.FairCycle(0); l == nil {
		t.Error("no node waits: no fair cycle")
	}
	if n := g2.FairIgnoringTime(0); n != 1 {
		t.Errorf("FairIgnoringTime: %d components, want 1", n)
	}
}

// The cycle through a component's units (lasso) lets time pass for every
// node that waits on a transition it keeps: here the units alone lead from
// a through node 0's and node 1's waits, and each node's pass is a
// self-loop the units never need.
func TestLassoLetsTimePassPerNode(t *testing.T) {
	g := newTGraph(t, []uint64{1}, []uint64{1}, []uint64{1})
	w0 := g.nodeEdge(0, 1, 1, 0, TimeWaits)
	w1 := g.nodeEdge(1, 2, 1, 1, TimeWaits)
	g.nodeEdge(2, 0, 1, 2, TimeNone)
	p1 := g.nodeEdge(1, 1, 2, 1, TimePasses)
	p0 := g.nodeEdge(2, 2, 3, 0, TimePasses)
	ls := g.FairCycles(0, 20)
	if len(ls) == 0 {
		t.Fatal("no fair cycle")
	}
	last := cycleEdges(ls[len(ls)-1])
	for _, e := range []int32{w0, w1, p0, p1} {
		if !slices.Contains(last, e) {
			t.Errorf("the component's lasso %v lacks transition %d (want both waits and both passes)", last, e)
		}
	}
	// Without node 0's pass, node 0's wait is dropped and nothing is left
	// of the cycle.
	g2 := newTGraph(t, []uint64{1}, []uint64{1}, []uint64{1})
	g2.nodeEdge(0, 1, 1, 0, TimeWaits)
	g2.nodeEdge(1, 2, 1, 1, TimeWaits)
	g2.nodeEdge(2, 0, 1, 2, TimeNone)
	g2.nodeEdge(1, 1, 2, 1, TimePasses)
	for _, l := range g2.FairCycles(0, 20) {
		if slices.Contains(cycleEdges(l), 0) {
			t.Errorf("cycle %v takes node 0's wait, and node 0 never lets time pass", cycleEdges(l))
		}
	}
}

// TestAddEdgeRefusesAnUnknownNode: a node out of range is a caller's
// mistake, said in so many words.
func TestAddEdgeRefusesAnUnknownNode(t *testing.T) {
	g := New(0)
	a, _ := g.AddState(1, true, []uint64{1})
	for _, node := range []int{-1, MaxNode + 1} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), fmt.Sprintf("node %d", node)) || g.Edges() != 0 {
					t.Errorf("node %d: recovered %v with %d transitions, want a panic naming it and none added", node, r, g.Edges())
				}
			}()
			g.AddEdge(a, a, 1, node, false, TimeNone, nil)
		}()
	}
}

// TestAddEdgeRefusesAnUnknownTimeClass: a time class out of range is a
// caller's mistake, said in so many words.
func TestAddEdgeRefusesAnUnknownTimeClass(t *testing.T) {
	g := New(0)
	a, _ := g.AddState(1, true, []uint64{1})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "time class 3") || g.Edges() != 0 {
			t.Errorf("recovered %v with %d transitions, want a panic naming time class 3 and none added", r, g.Edges())
		}
	}()
	g.AddEdge(a, a, 1, 0, false, TimePasses+1, nil)
}

// TestEdgeSize: the time class and the node fit in the transition's
// padding.
func TestEdgeSize(t *testing.T) {
	if n := unsafe.Sizeof(edge{}); n != 24 {
		t.Errorf("a transition takes %d bytes, want 24", n)
	}
}
