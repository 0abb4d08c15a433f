package fair

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/macemc/macemc/sim/engine"
)

// ErrFull is returned by AddState when the graph holds MaxStates states.
var ErrFull = errors.New("fair: the graph is full")

// DefaultMaxStates is the default bound of a Graph.
const DefaultMaxStates = 1 << 20

// Graph is an explored state graph: states named by a 64-bit key (the
// state's hash), each with whether it is hot (not live) and the fairness
// units (event sources, or nodes) that have an enabled event in it, and the
// transitions between them, each with its unit, the node whose handler ran
// its step, its time class and the choices that made it. It grows as an
// exploration records what it runs; a transition is kept once per (from,
// to, unit, time class).
//
// A Graph is not safe for concurrent use.
type Graph struct {
	max   int
	ids   idTable
	keys  []uint64
	hot   []bool
	units []int32 // per state: a range of enab
	enab  []int32 // unit ids
	unit  idTable // unit -> unit id
	edges []edge
	seen  edgeSet
	ch    []int32 // the edges' choices
	// head and next list each state's transitions, newest first: state
	// v's first is head[v], transition e's next next[e] (-1: none). They
	// let a search look at the part of the graph a few new transitions
	// touch without indexing all of it (incremental).
	head, next []int32
	// rhead and rnext list each state's transitions into it the same way
	// (for the searches backwards).
	rhead, rnext []int32
	// version counts additions, so that a search need not look again at
	// a graph that did not change.
	version uint64
	// tnodes is 1 + the largest node of a transition that asked the clock
	// (0: none did), the size of the searches' arrays per node.
	tnodes  int
	scratch scratch
	inc     incremental
}

// edge is a transition. Performance: the node and the time class sit in
// what would be padding, so that a transition takes 24 bytes.
type edge struct {
	from, to, unit int32
	failure        bool
	time           Time
	node           uint16
	ch, nch        int32 // choices: ch[ch : ch+nch]
}

// Time is a transition's time class: whether its step asked the clock
// (sim.Context.Elapsed: a choice of kind engine.ChooseTime with more than
// one option) and what it was told. A cycle in which a node asks and is
// told "not yet" at every one of its asks is unfair to time, as the lasso
// detector has it (walks/lasso): time does pass in a real system, so no
// execution repeats it forever, if the node's deadline stays where it is.
// Fairness to time is per node, a Streett pair each: another node's
// "elapsed" says nothing of this node's deadline (a correct lease's timer
// told "not yet" forever is no livelock because some other node sees a
// second go by). A fair cycle of the graph is fair to time: every node
// that waits on one of its transitions lets time pass on another.
//
// macemc cannot tell a fixed deadline from one that keeps moving (a
// heartbeat that renews it: sim.Time carries nothing), and a cycle that
// waits on a moving deadline forever is a real execution; FairIgnoringTime
// finds the cycles that fairness to time set aside, so that no proof of
// liveness rests on it.
type Time uint8

const (
	// TimeNone is a step that did not ask the clock.
	TimeNone Time = iota
	// TimeWaits is a step that asked, and every answer was "not yet"
	// (the choice's value 0).
	TimeWaits
	// TimePasses is a step that asked, and some answer was "elapsed" (a
	// value other than 0).
	TimePasses
)

// TimeOf returns the time class of a step made by choices (the step's
// choices with their kinds, as engine.Sim.Choices gives them).
func TimeOf(choices []engine.Choice) Time {
	t := TimeNone
	for _, c := range choices {
		if c.Kind == engine.ChooseTime && c.N > 1 {
			if c.Value != 0 {
				return TimePasses
			}
			t = TimeWaits
		}
	}
	return t
}

// New returns an empty graph of at most maxStates states (DefaultMaxStates
// when maxStates <= 0).
func New(maxStates int) *Graph {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	return &Graph{max: maxStates, units: []int32{0}}
}

// State returns the id of the state with this key, if recorded.
func (g *Graph) State(key uint64) (int32, bool) {
	return g.ids.get(key)
}

// AddState records the state with this key, hot or not, with the units
// that have an enabled event in it (failure events are no unit), unless it
// is recorded already. It returns the state's id; ErrFull when the graph
// is full and the state is new.
func (g *Graph) AddState(key uint64, hot bool, units []uint64) (int32, error) {
	if id, ok := g.ids.get(key); ok {
		return id, nil
	}
	if len(g.keys) >= g.max {
		return -1, ErrFull
	}
	id := int32(len(g.keys))
	g.ids.put(key, id)
	g.keys = push(g.keys, key)
	g.hot = push(g.hot, hot)
	g.head = push(g.head, -1)
	g.rhead = push(g.rhead, -1)
	for _, u := range units {
		g.enab = push(g.enab, g.unitID(u))
	}
	g.units = push(g.units, int32(len(g.enab)))
	g.version++
	return id, nil
}

func (g *Graph) unitID(u uint64) int32 {
	id, ok := g.unit.get(u)
	if !ok {
		id = int32(g.unit.n)
		g.unit.put(u, id)
	}
	return id
}

// MaxNode is the largest node a transition may name.
const MaxNode = math.MaxUint16

// AddEdge records the transition from state from to state to, by an event
// of the given unit (failure: an injected failure, which no fair cycle
// repeats) whose handler ran on node node, of time class time (TimeOf the
// step's choices), made by choices (the step's answers, the event's
// first). A transition already recorded with the same from, to, unit and
// time class is kept as it was (a unit, an event source or a node, is one
// node's, so its node is the same); one that differs in its time class is
// another transition. It panics on a time class that is none of TimeNone,
// TimeWaits and TimePasses, and on a node out of 0..MaxNode.
func (g *Graph) AddEdge(from, to int32, unit uint64, node int, failure bool, time Time, choices []int32) {
	if time > TimePasses {
		panic(fmt.Sprintf("fair: AddEdge: time class %d is none of TimeNone, TimeWaits and TimePasses", time))
	}
	if node < 0 || node > MaxNode {
		panic(fmt.Sprintf("fair: AddEdge: node %d is out of 0..%d", node, MaxNode))
	}
	u := int32(-1)
	if !failure {
		u = g.unitID(unit)
	}
	if !g.seen.add(from, to, u, time) {
		return
	}
	g.edges = push(g.edges, edge{from: from, to: to, unit: u, failure: failure, time: time, node: uint16(node), ch: int32(len(g.ch)), nch: int32(len(choices))})
	if time != TimeNone && !failure {
		g.tnodes = max(g.tnodes, node+1)
	}
	g.next = push(g.next, g.head[from])
	g.head[from] = int32(len(g.edges) - 1)
	g.rnext = push(g.rnext, g.rhead[to])
	g.rhead[to] = int32(len(g.edges) - 1)
	g.ch = push(g.ch, choices...)
	g.version++
}

// States returns the number of states, Edges the number of transitions.
func (g *Graph) States() int { return len(g.keys) }

// Edges returns the number of transitions recorded.
func (g *Graph) Edges() int { return len(g.edges) }

// Full reports whether the graph reached its bound of states.
func (g *Graph) Full() bool { return len(g.keys) >= g.max }

// Version changes whenever a state or a transition is added.
func (g *Graph) Version() uint64 { return g.version }

// Hot reports whether state id is hot.
func (g *Graph) Hot(id int32) bool { return g.hot[id] }

// Key returns the key of state id.
func (g *Graph) Key(id int32) uint64 { return g.keys[id] }

// Bytes estimates the graph's memory: the slices and maps that record its
// states and transitions. The indexes the searches for fair cycles keep
// (head, next, rhead and rnext, 8 bytes a state and 8 a transition, and
// their scratch arrays) are not counted.
func (g *Graph) Bytes() int {
	const mapEntry = 48 // key, value and a table's overhead per entry, roughly
	return len(g.keys)*(8+1+4) + len(g.enab)*4 + len(g.edges)*int(unsafe.Sizeof(edge{})) + len(g.ch)*4 +
		(g.ids.n+g.seen.n+g.unit.n)*mapEntry
}

func (g *Graph) enabled(id int32) []int32 { return g.enab[g.units[id]:g.units[id+1]] }

func (g *Graph) choices(e *edge) []int32 { return g.ch[e.ch : e.ch+e.nch] }
