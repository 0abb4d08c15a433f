package lassotest

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

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

// Toggler flips its Flag at every Pong of the ping-pong it plays.
type Toggler struct {
	Player
	Flag bool
}

// HandleMessage returns the ball, flipping the flag on a Pong.
func (t *Toggler) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if _, ok := m.(Pong); ok {
		t.Flag = !t.Flag
	}
	t.Player.HandleMessage(ctx, from, m)
}

// Alternating returns two nodes that play ping-pong forever, node 0
// flipping its flag at every Pong, with the liveness properties FlagSet
// and FlagClear: each holds again and again, never both at once.
func Alternating() *sim.Config {
	flag := func(v *sim.View) bool { return sim.Node[Toggler](v, 0).Flag }
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &Toggler{} },
		Liveness: []sim.Property{
			{Name: "FlagSet", Doc: "node 0's flag is set", Check: flag},
			{Name: "FlagClear", Doc: "node 0's flag is clear", Check: func(v *sim.View) bool { return !flag(v) }},
		},
	}
}

// Tosser plays ping-pong; node 0 tosses a coin at every Pong and stops
// the game on heads.
type Tosser struct {
	Player
	Heads bool
}

// HandleMessage returns the ball unless node 0's coin came up heads.
func (t *Tosser) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if _, ok := m.(Pong); ok && ctx.Rand(2) == 0 {
		t.Heads = true
		return
	}
	t.Player.HandleMessage(ctx, from, m)
}

// Coin returns two nodes that play ping-pong until node 0's coin comes up
// heads, liveness: it did. The game goes on forever only if the coin
// always comes up tails: a lasso for the search, which chooses what
// sim.Context.Rand answers, and probability 0 for a fair coin.
func Coin() *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &Tosser{} },
		Liveness: []sim.Property{{Name: "Heads", Doc: "node 0's coin came up heads", Check: func(v *sim.View) bool {
			return sim.Node[Tosser](v, 0).Heads
		}}},
	}
}

func init() {
	sim.Register(&sim.System{
		Name:  "lasso-coin",
		Doc:   "ping-pong until a coin comes up heads: a lasso only if it always comes up tails",
		Build: func(sim.Params) (*sim.Config, error) { return Coin(), nil },
	})
	sim.Register(&sim.System{
		Name:  "lasso-alternating",
		Doc:   "two liveness properties that hold in turn forever, never both at once",
		Build: func(sim.Params) (*sim.Config, error) { return Alternating(), nil },
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
