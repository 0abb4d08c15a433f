package critical_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The synthetic systems of these tests have a critical transition known by
// construction. In the poison system one node gets a sequence of
// application requests Req{N: 1..apps}; request number poison sets its
// Poisoned flag, after which its timer "tick" can no longer make it Done.
// Before that, any tick makes it Done (live). The dead path E (first, below)
// always runs the application request first, so E never ticks before the
// poison: state poison-1 is transient, state poison is dead, and the
// critical transition is step poison, "node 0 handles app request
// Req{N: poison, Poison: true}".

// Req is an application request of the poison system.
type Req struct {
	N      int
	Poison bool
}

// Node is the poison system's only node.
type Node struct {
	sim.Base
	Apps     int
	Poisoned bool
	Done     bool
	// Settings, fixed at construction.
	StartPoisoned bool
	OneShot       bool
	PanicOnTick   bool
	HangOnTick    bool
	// GlobalCount keeps a count shared by every simulator in Calls (see
	// poisonSys.globalCount).
	GlobalCount bool
	Calls       int64
}

// Start arms the tick and, for the dead-from-the-start variant, poisons.
func (n *Node) Start(ctx *sim.Context) {
	if n.OneShot {
		ctx.SetTimer("tick")
	} else {
		ctx.SetPeriodic("tick")
	}
	n.Poisoned = n.StartPoisoned
}

// HandleApp counts the request; the poison request poisons the node.
func (n *Node) HandleApp(ctx *sim.Context, req any) {
	n.Apps++
	if n.GlobalCount {
		n.Calls = calls.Add(1)
	}
	if req.(Req).Poison {
		n.Poisoned = true
		if n.OneShot {
			ctx.CancelTimer("tick")
		}
	}
}

// HandleTimer makes the node Done unless it is poisoned.
func (n *Node) HandleTimer(ctx *sim.Context, name string) {
	if n.Poisoned {
		return
	}
	if n.PanicOnTick {
		panic("tick before poison")
	}
	for n.HangOnTick { // until the watchdog abandons the execution
		ctx.CancelTimer("none")
		time.Sleep(time.Millisecond)
	}
	n.Done = true
}

// poisonSys builds a poison system.
type poisonSys struct {
	apps, poison  int     // poison 0: no poison request
	tick          float64 // weight of the tick timer (0: 1000, recovery is likely)
	startPoisoned bool
	oneShot       bool
	panicOnTick   bool
	hangOnTick    bool
	safetyNotDone bool // a safety property that Done breaks
	resets        int
	failureWeight float64
	// globalCount makes the node keep a count of application requests
	// that all simulators share (a global variable): a replay of an
	// execution does not reach the state the execution reached.
	globalCount bool
}

// calls is the count globalCount shares.
var calls atomic.Int64

func (p poisonSys) config() *sim.Config {
	tick := p.tick
	if tick == 0 {
		tick = 1000
	}
	cfg := &sim.Config{
		Nodes: 1,
		Service: func(sim.NodeID) sim.Service {
			return &Node{StartPoisoned: p.startPoisoned, OneShot: p.oneShot, PanicOnTick: p.panicOnTick, HangOnTick: p.hangOnTick, GlobalCount: p.globalCount}
		},
		App: func(sim.NodeID) []any {
			reqs := make([]any, p.apps)
			for i := range reqs {
				reqs[i] = Req{N: i + 1, Poison: i+1 == p.poison}
			}
			return reqs
		},
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
			return sim.Node[Node](v, 0).Done
		}}},
		Weights:  sim.Weights{Timers: map[string]float64{"tick": tick}, Failure: p.failureWeight},
		Failures: sim.Failures{Resets: p.resets},
	}
	if p.safetyNotDone {
		cfg.Safety = []sim.Property{{Name: "NeverDone", Check: func(v *sim.View) bool {
			return !sim.Node[Node](v, 0).Done
		}}}
	}
	return cfg
}

// first answers every choice point with 0: the first ready event, which
// is the pending application request while there is one (the simulator
// lists application requests first, then messages, then timers).
type first struct{}

func (first) Choose(engine.ChoiceKind, int, []float64) int { return 0 }

// deadPath runs cfg with the first chooser for up to steps transitions and
// returns the choices and the length.
func deadPath(tb testing.TB, cfg *sim.Config, steps int, opts engine.Options) ([]int32, int) {
	tb.Helper()
	opts.Chooser = first{}
	s, err := engine.New(cfg, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for s.Steps() < steps {
		ok, err := s.Step()
		if err != nil {
			tb.Fatal(err)
		}
		if !ok {
			break
		}
	}
	return s.ChoiceValues(), s.Steps()
}
