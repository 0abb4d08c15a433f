package philosophers

import "github.com/macemc/macemc/sim"

// Hungry is the test driver's request to a philosopher: stop thinking and
// try to eat.
type Hungry struct{}

// Acquire asks a fork for itself. The fork answers Granted or Busy.
type Acquire struct{}

// Granted tells a philosopher it now holds the fork that sent it.
type Granted struct{}

// Busy tells a philosopher that another philosopher holds the fork.
type Busy struct{}

// Release puts a fork back on the table.
type Release struct{}

// eatTimer is the one-shot timer a philosopher sets when it starts eating.
const eatTimer = "eat"

// none is the holder of a fork nobody holds.
const none sim.NodeID = -1

// Phase is where a philosopher is in its protocol.
type Phase uint8

// The phases of a philosopher.
const (
	// Thinking: not hungry yet.
	Thinking Phase = iota
	// WantFirst: an Acquire is on its way to the first fork.
	WantFirst
	// WantSecond: holds the first fork, an Acquire is on its way to the second.
	WantSecond
	// Eating: holds both forks until the eat timer fires.
	Eating
	// Done: has eaten, put both forks back and left the table.
	Done
)

var phaseNames = [...]string{"thinking", "want-first", "want-second", "eating", "done"}

// String returns the phase's name.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase?"
}

// Philosopher is one diner. It picks up its first fork, then tries its
// second; if the second is busy it puts the first one back and starts over
// at once. Having eaten once it releases both forks and leaves.
type Philosopher struct {
	sim.Base
	// Left and Right are the fork nodes beside the philosopher.
	Left, Right sim.NodeID
	// First and Second are Left and Right in the order this philosopher
	// picks them up.
	First, Second sim.NodeID
	// Phase is where the philosopher is in its protocol.
	Phase Phase
	// Ate is set once the philosopher has started eating.
	Ate bool
}

// newPhilosopher returns philosopher i of n. Forks are nodes n..2n-1; fork
// i is philosopher i's left fork and fork i+1 (mod n) its right one. Every
// philosopher picks up its left fork first; with fixed set, the forks are
// picked up in a global order instead (resource hierarchy: lower node
// first), which only changes the last philosopher, who now starts with his
// right fork.
func newPhilosopher(i, n int, fixed bool) *Philosopher {
	p := &Philosopher{
		Left:  sim.NodeID(n + i),
		Right: sim.NodeID(n + (i+1)%n),
	}
	p.First, p.Second = p.Left, p.Right
	if fixed && p.Second < p.First {
		p.First, p.Second = p.Second, p.First
	}
	return p
}

// HandleApp starts the philosopher's attempt to eat.
func (p *Philosopher) HandleApp(ctx *sim.Context, req any) {
	if _, ok := req.(Hungry); !ok || p.Phase != Thinking {
		return
	}
	p.Phase = WantFirst
	ctx.Send(p.First, Acquire{})
}

// HandleMessage reacts to a fork's answer.
func (p *Philosopher) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Granted:
		switch {
		case p.Phase == WantFirst && from == p.First:
			p.Phase = WantSecond
			ctx.Send(p.Second, Acquire{})
		case p.Phase == WantSecond && from == p.Second:
			p.Phase, p.Ate = Eating, true
			ctx.Log().Msg("eating")
			ctx.SetTimer(eatTimer)
		}
	case Busy:
		switch {
		case p.Phase == WantFirst && from == p.First:
			// The neighbour holds it: ask again.
			ctx.Send(p.First, Acquire{})
		case p.Phase == WantSecond && from == p.Second:
			// Cannot have both: put the first fork back and start over.
			ctx.Log().Int("fork", int(from)).Msg("second fork busy, releasing first")
			ctx.Send(p.First, Release{})
			p.Phase = WantFirst
			ctx.Send(p.First, Acquire{})
		}
	}
}

// HandleTimer ends the meal: both forks go back and the philosopher leaves.
func (p *Philosopher) HandleTimer(ctx *sim.Context, name string) {
	if name != eatTimer || p.Phase != Eating {
		return
	}
	ctx.Send(p.First, Release{})
	ctx.Send(p.Second, Release{})
	p.Phase = Done
}

// Holds reports whether the philosopher believes it holds fork f.
func (p *Philosopher) Holds(f sim.NodeID) bool {
	switch p.Phase {
	case WantSecond:
		return f == p.First
	case Eating:
		return f == p.First || f == p.Second
	}
	return false
}

// Fork is one fork on the table: it belongs to whoever asked first until
// that philosopher releases it.
type Fork struct {
	sim.Base
	// Holder is the philosopher holding the fork, or -1.
	Holder sim.NodeID
}

// HandleMessage grants, refuses or takes back the fork.
func (f *Fork) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Acquire:
		if f.Holder == none || f.Holder == from {
			f.Holder = from
			ctx.Send(from, Granted{})
			return
		}
		ctx.Send(from, Busy{})
	case Release:
		if f.Holder == from {
			f.Holder = none
		}
	}
}
