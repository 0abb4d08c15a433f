package servicetest

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Match picks a ready event.
type Match func(engine.Event) bool

// Kind matches every event of kind k.
func Kind(k engine.EventKind) Match {
	return func(e engine.Event) bool { return e.Kind == k }
}

// At matches the events of kind k at node: a request to node, its timer,
// a message or datagram it receives, its reset.
func At(k engine.EventKind, node sim.NodeID) Match {
	return func(e engine.Event) bool { return e.Kind == k && e.Node == node }
}

// App matches node's next application request.
func App(node sim.NodeID) Match { return At(engine.EvApp, node) }

// Reset matches node's reset.
func Reset(node sim.NodeID) Match { return At(engine.EvReset, node) }

// Timer matches node's timer name firing.
func Timer(node sim.NodeID, name string) Match {
	return func(e engine.Event) bool { return e.Kind == engine.EvTimer && e.Node == node && e.Timer == name }
}

// From matches the next message on the connection from node from to node
// to, whatever its type.
func From(to, from sim.NodeID) Match {
	return func(e engine.Event) bool { return e.Kind == engine.EvMessage && e.Node == to && e.Peer == from }
}

// Message matches node to receiving a message of type typ (sim.MessageName)
// from node from.
func Message(to, from sim.NodeID, typ string) Match {
	return func(e engine.Event) bool {
		return e.Kind == engine.EvMessage && e.Node == to && e.Peer == from && sim.MessageName(e.Msg) == typ
	}
}

// MessageTo matches node to receiving a message of type typ from any node.
func MessageTo(to sim.NodeID, typ string) Match {
	return func(e engine.Event) bool {
		return e.Kind == engine.EvMessage && e.Node == to && sim.MessageName(e.Msg) == typ
	}
}

// Key identifies a pending event the way a scheduler sees it: its kind,
// where it happens, the peer for a message or datagram (the connection or
// the sender) and the timer, but not the payload.
type Key struct {
	Kind  engine.EventKind
	Node  sim.NodeID
	Peer  sim.NodeID
	Timer string
}

// KeyOf returns e's key.
func KeyOf(e engine.Event) Key {
	k := Key{Kind: e.Kind, Node: e.Node, Timer: e.Timer}
	if e.Kind == engine.EvMessage || e.Kind == engine.EvDatagram {
		k.Peer = e.Peer
	}
	return k
}

// find returns the index of the first ready event of s that m matches, or
// -1.
func find(s *engine.Sim, m Match) int {
	for i, e := range s.Ready() {
		if m(e) {
			return i
		}
	}
	return -1
}

// Step runs the first ready event that m matches as the next step of s
// and returns it; the test fails if none does. what names the event in
// the failure.
func Step(t testing.TB, s *engine.Sim, what string, m Match) engine.Event {
	t.Helper()
	i := find(s, m)
	if i < 0 {
		t.Fatalf("step %d: no ready event is %s; ready: %v", s.Steps(), what, s.Ready())
	}
	if err := s.StepEvent(i); err != nil {
		t.Fatalf("step %d (%s): %v", s.Steps(), what, err)
	}
	return s.LastEvent()
}

// Next runs the next step of s as its chooser picks it and returns the
// event; the test fails if s is quiescent.
func Next(t testing.TB, s *engine.Sim) engine.Event {
	t.Helper()
	ok, err := s.Step()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("quiescent after %d steps", s.Steps())
	}
	return s.LastEvent()
}

// ResetAt returns a clone of s that goes on with a random chooser seeded
// with seed, in which node has just reset: the reset runs with failures
// on, and failures are off from then on. s is not changed.
func ResetAt(t testing.TB, s *engine.Sim, node sim.NodeID, seed uint64) *engine.Sim {
	t.Helper()
	c := s.Clone(engine.NewRandom(seed))
	c.SetFailures(true)
	Step(t, c, fmt.Sprintf("node %d resets", node), Reset(node))
	c.SetFailures(false)
	return c
}

// TryStep runs the first ready event that m matches, if there is one, and
// reports whether it did.
func TryStep(t testing.TB, s *engine.Sim, m Match) bool {
	t.Helper()
	i := find(s, m)
	if i < 0 {
		return false
	}
	if err := s.StepEvent(i); err != nil {
		t.Fatal(err)
	}
	return true
}

// MustStep is Step for examples: it panics if no ready event matches.
func MustStep(s *engine.Sim, m Match) engine.Event {
	i := find(s, m)
	if i < 0 {
		panic(fmt.Sprintf("step %d: no such event among %v", s.Steps(), s.Ready()))
	}
	if err := s.StepEvent(i); err != nil {
		panic(err)
	}
	return s.LastEvent()
}

// Script drives an execution event by event and keeps a snapshot of every
// state: States[i] is the state after i steps of the script.
type Script struct {
	Sim    *engine.Sim
	States []*engine.Sim
	t      testing.TB
}

// NewScript starts a script at s's current state (States[0]).
func NewScript(t testing.TB, s *engine.Sim) *Script {
	return &Script{Sim: s, States: []*engine.Sim{s.Clone(nil)}, t: t}
}

// Do runs the first ready event that m matches (Step) and keeps a
// snapshot of the state it leads to.
func (sc *Script) Do(what string, m Match) engine.Event {
	sc.t.Helper()
	e := Step(sc.t, sc.Sim, what, m)
	sc.States = append(sc.States, sc.Sim.Clone(nil))
	return e
}

// Last returns the index of the last state.
func (sc *Script) Last() int { return len(sc.States) - 1 }

// State returns the state after i steps of the script.
func (sc *Script) State(i int) *engine.Sim { return sc.States[i] }

// Scripted is a chooser that answers a service's Context.Rand from Rand
// and its Context.Elapsed from Elapsed, in order, and every other choice,
// and those once their list runs out, like Then. It lets a test pick, say,
// where a node sends a request.
type Scripted struct {
	Rand    []int
	Elapsed []bool
	Then    engine.Chooser
}

// Choose implements engine.Chooser.
func (c *Scripted) Choose(kind engine.ChoiceKind, n int, w []float64) int {
	switch {
	case kind == engine.ChooseRandom && len(c.Rand) > 0:
		v := c.Rand[0]
		c.Rand = c.Rand[1:]
		return v
	case kind == engine.ChooseTime && len(c.Elapsed) > 0:
		v := c.Elapsed[0]
		c.Elapsed = c.Elapsed[1:]
		if v {
			return 1
		}
		return 0
	}
	return c.Then.Choose(kind, n, w)
}
