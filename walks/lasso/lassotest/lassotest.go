// Package lassotest holds small systems with and without transient-state
// liveness violations, for the tests of lasso detection and for the
// lasso table script. Importing it registers them (names start with
// "lasso-"):
//
//   - lasso-philosophers: dining philosophers that take the left fork,
//     fail to get the right one, put the left one back and retry: a
//     livelock without a critical transition (seed 000 §III). fixed=true
//     makes every philosopher take the lower-numbered fork first.
//   - lasso-proposers: two proposers outbid each other at one acceptor
//     with ever larger numbers (seed 000 Appendix A): the exact state
//     never repeats, the partial one does. fixed=true makes the second
//     proposer give up when declined.
//   - lasso-starve: two nodes play ping-pong forever while a third one's
//     request, which makes the system live, waits: a hot cycle that is
//     not fair, so no liveness violation.
//   - lasso-slow: a ball passed k times before the system is live: slow
//     but live, the temperature method's false alarm.
//
// # Usage
//
//	import _ "github.com/macemc/macemc/walks/lasso/lassotest"
//
//	sys, _ := sim.Lookup("lasso-philosophers")
//	cfg, _, _ := sys.Config(map[string]string{"n": "3"})
package lassotest

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Acquire asks a fork for itself.
type Acquire struct{}

// Release gives a fork back.
type Release struct{}

// Granted says the fork is the asker's now.
type Granted struct{}

// Denied says another philosopher holds the fork.
type Denied struct{}

// Philosopher takes its First fork, then its Second; if the second is
// taken it puts the first back and starts over. Having both, it eats,
// puts both back and is done.
type Philosopher struct {
	sim.Base
	First, Second sim.NodeID
	Holding       int // forks held: 0, 1 (the first) or 2
	Ate           bool
}

// Start asks for the first fork.
func (p *Philosopher) Start(ctx *sim.Context) { ctx.Send(p.First, Acquire{}) }

// HandleMessage handles a fork's answer.
func (p *Philosopher) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Granted:
		if from == p.First {
			p.Holding = 1
			ctx.Send(p.Second, Acquire{})
			return
		}
		p.Ate, p.Holding = true, 0
		ctx.Send(p.First, Release{})
		ctx.Send(p.Second, Release{})
	case Denied:
		if from == p.Second {
			p.Holding = 0
			ctx.Send(p.First, Release{})
		}
		ctx.Send(p.First, Acquire{})
	}
}

// Fork is held by at most one philosopher.
type Fork struct {
	sim.Base
	Held   bool
	Holder sim.NodeID
}

// HandleMessage grants, denies or takes back the fork.
func (f *Fork) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Acquire:
		if f.Held {
			ctx.Send(from, Denied{})
			return
		}
		f.Held, f.Holder = true, from
		ctx.Send(from, Granted{})
	case Release:
		if f.Held && f.Holder == from {
			f.Held = false
		}
	}
}

// Fed holds when every philosopher has eaten.
var Fed = sim.Property{Name: "Fed", Doc: "every philosopher eats", Check: func(v *sim.View) bool {
	return sim.All(v, func(_ sim.NodeID, p *Philosopher) bool { return p.Ate })
}}

// Philosophers returns n philosophers (nodes 0..n-1) and n forks (nodes
// n..2n-1); philosopher i's left fork is fork i, its right fork i+1 mod n.
// Fixed, each takes the lower-numbered of its forks first.
func Philosophers(n int, fixed bool) *sim.Config {
	return &sim.Config{
		Nodes: 2 * n,
		Service: func(id sim.NodeID) sim.Service {
			if int(id) >= n {
				return &Fork{}
			}
			left, right := sim.NodeID(n+int(id)), sim.NodeID(n+(int(id)+1)%n)
			if fixed && right < left {
				left, right = right, left
			}
			return &Philosopher{First: left, Second: right}
		},
		Liveness: []sim.Property{Fed},
	}
}

// Prepare asks the acceptor to promise ballot N.
type Prepare struct{ N int }

// Promise promises ballot N.
type Promise struct{ N int }

// Commit asks the acceptor to choose ballot N.
type Commit struct{ N int }

// Decline refuses a ballot: the acceptor promised Highest.
type Decline struct{ Highest int }

// Chosen says ballot N was chosen.
type Chosen struct{ N int }

// Acceptor promises ever higher ballots and chooses the first ballot
// committed that it has not promised to outbid.
type Acceptor struct {
	sim.Base
	Promised int
	Value    int
}

// HandleMessage handles a proposer's request.
func (a *Acceptor) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Prepare:
		if m.N > a.Promised {
			a.Promised = m.N
			ctx.Send(from, Promise{N: m.N})
		} else {
			ctx.Send(from, Decline{Highest: a.Promised})
		}
	case Commit:
		if m.N >= a.Promised {
			if a.Value == 0 {
				a.Value = m.N
			}
			ctx.Send(from, Chosen{N: a.Value})
		} else {
			ctx.Send(from, Decline{Highest: a.Promised})
		}
	}
}

// Proposer proposes ballot N; declined, it tries again with a higher one.
type Proposer struct {
	sim.Base
	N       int
	Done    bool
	GaveUp  bool
	Yielder bool // fixed variant: give up when declined
}

// Start sends the first ballot, the proposer's own id.
func (p *Proposer) Start(ctx *sim.Context) {
	p.N = int(ctx.Self())
	ctx.Send(0, Prepare{N: p.N})
}

// HandleMessage handles the acceptor's answer.
func (p *Proposer) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Promise:
		ctx.Send(0, Commit{N: m.N})
	case Decline:
		if p.Yielder {
			p.GaveUp = true
			return
		}
		p.N = m.Highest + 1
		ctx.Send(0, Prepare{N: p.N})
	case Chosen:
		p.Done = true
	}
}

// ValueChosen holds when the acceptor has chosen a value.
var ValueChosen = sim.Property{Name: "ValueChosen", Doc: "the acceptor chooses a value", Check: func(v *sim.View) bool {
	return sim.Node[Acceptor](v, 0).Value != 0
}}

// Proposers returns an acceptor (node 0) and two proposers (nodes 1, 2).
// Fixed, proposer 2 gives up when declined.
func Proposers(fixed bool) *sim.Config {
	return &sim.Config{
		Nodes: 3,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &Acceptor{}
			}
			return &Proposer{Yielder: fixed && id == 2}
		},
		Liveness: []sim.Property{ValueChosen},
	}
}

// Ping and Pong are the starving players' ball.
type (
	Ping struct{}
	Pong struct{}
)

// Player returns the ball forever (nodes 0 and 1); node 2 only waits for
// its request, which makes it Done.
type Player struct {
	sim.Base
	Done bool
}

// Start serves the first ball from node 0.
func (p *Player) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, Ping{})
	}
}

// HandleMessage returns the ball.
func (p *Player) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Ping:
		ctx.Send(from, Pong{})
	case Pong:
		ctx.Send(from, Ping{})
	}
}

// HandleApp makes node 2 Done.
func (p *Player) HandleApp(ctx *sim.Context, req any) { p.Done = true }

// Served holds when node 2's request has run.
var Served = sim.Property{Name: "Served", Doc: "node 2's request runs", Check: func(v *sim.View) bool {
	return sim.Node[Player](v, 2).Done
}}

// Starve returns the ping-pong players and the waiting node 2, whose
// request has weight appWeight against the ball's 8.
func Starve(appWeight float64) *sim.Config {
	return &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &Player{} },
		App: func(id sim.NodeID) []any {
			if id == 2 {
				return []any{"work"}
			}
			return nil
		},
		Liveness: []sim.Property{Served},
		Weights:  sim.Weights{App: appWeight},
	}
}

// Ball carries the count of a slow system.
type Ball struct{ N int }

// Counter passes the ball on, counting, until it has been passed K times.
type Counter struct {
	sim.Base
	K     int
	Count int
}

// Start serves the ball from node 0.
func (c *Counter) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, Ball{N: 1})
	}
}

// HandleMessage counts and passes the ball back.
func (c *Counter) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	c.Count = m.(Ball).N
	if c.Count < c.K {
		ctx.Send(from, Ball{N: c.Count + 1})
	}
}

// Counted holds when the ball was passed K times.
var Counted = sim.Property{Name: "Counted", Doc: "the ball is passed k times", Check: func(v *sim.View) bool {
	return sim.Count(v, func(_ sim.NodeID, c *Counter) bool { return c.Count >= c.K }) > 0
}}

// Slow returns two nodes that pass a ball k times before the system is
// live: slow, but live.
func Slow(k int) *sim.Config {
	return &sim.Config{
		Nodes:    2,
		Service:  func(sim.NodeID) sim.Service { return &Counter{K: k} },
		Liveness: []sim.Property{Counted},
	}
}

func init() {
	fixed := sim.ParamSpec{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "the variant without the bug"}
	sim.Register(&sim.System{
		Name:   "lasso-philosophers",
		Doc:    "dining philosophers that put the left fork back when the right is taken: a livelock (no critical transition)",
		Params: []sim.ParamSpec{{Name: "n", Kind: sim.ParamInt, Default: "2", Doc: "philosophers (and forks)"}, fixed},
		Build: func(p sim.Params) (*sim.Config, error) {
			if p.Int("n") < 2 {
				return nil, fmt.Errorf("n=%d: need at least 2 philosophers", p.Int("n"))
			}
			return Philosophers(p.Int("n"), p.Bool("fixed")), nil
		},
	})
	sim.Register(&sim.System{
		Name:   "lasso-proposers",
		Doc:    "two proposers outbid each other forever with growing ballots (seed 000 Proposers)",
		Params: []sim.ParamSpec{fixed},
		Build:  func(p sim.Params) (*sim.Config, error) { return Proposers(p.Bool("fixed")), nil },
	})
	sim.Register(&sim.System{
		Name:   "lasso-starve",
		Doc:    "ping-pong forever while a third node's request waits: hot but unfair cycles only",
		Params: []sim.ParamSpec{{Name: "app-weight", Kind: sim.ParamInt, Default: "0", Doc: "weight of the waiting request in thousandths (0: 1/1000 against the ball's 8)"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			w := float64(max(p.Int("app-weight"), 1)) / 1000
			return Starve(w), nil
		},
	})
	sim.Register(&sim.System{
		Name:   "lasso-slow",
		Doc:    "a ball passed k times before the system is live: slow but live",
		Params: []sim.ParamSpec{{Name: "k", Kind: sim.ParamInt, Default: "200", Doc: "passes needed"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			if p.Int("k") < 1 {
				return nil, fmt.Errorf("k=%d: must be positive", p.Int("k"))
			}
			return Slow(p.Int("k")), nil
		},
	})
}
