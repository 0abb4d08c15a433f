package critical_test

import (
	"fmt"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Cancel tells the receiver to give up.
type Cancel struct{}

// Sender is node 0: its test driver sends it requests; the poison request
// makes it send Cancel to node 1.
type Sender struct {
	sim.Base
	Sent int
}

// HandleApp sends Cancel for the poison request.
func (s *Sender) HandleApp(ctx *sim.Context, req any) {
	s.Sent++
	if req.(Req).Poison {
		ctx.Send(1, Cancel{})
	}
}

// Receiver is node 1: its periodic tick makes it Done, unless it has been
// cancelled. Once cancelled it can never be Done: a dead state.
type Receiver struct {
	sim.Base
	Cancelled bool
	Done      bool
}

// Start arms the periodic tick.
func (r *Receiver) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

// HandleMessage records the Cancel.
func (r *Receiver) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if _, ok := m.(Cancel); ok {
		r.Cancelled = true
	}
}

// HandleTimer makes the receiver Done unless cancelled.
func (r *Receiver) HandleTimer(ctx *sim.Context, name string) {
	if !r.Cancelled {
		r.Done = true
	}
}

// messageConfig: node 0 gets requests Req{N: 1..apps}; number poison is
// the poison. The tick's weight makes recovery likely while it is possible.
func messageConfig(apps, poison int) *sim.Config {
	return &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &Sender{}
			}
			return &Receiver{}
		},
		App: func(id sim.NodeID) []any {
			if id != 0 {
				return nil
			}
			reqs := make([]any, apps)
			for i := range reqs {
				reqs[i] = Req{N: i + 1, Poison: i+1 == poison}
			}
			return reqs
		},
		Liveness: []sim.Property{{Name: "ReceiverDone", Check: func(v *sim.View) bool {
			return sim.Node[Receiver](v, 1).Done
		}}},
		Weights: sim.Weights{Timers: map[string]float64{"tick": 1000}},
	}
}

// Example finds the critical transition of a dead path that runs node 0's
// 30 requests first (request 10 sends Cancel) and then delivers Cancel, at
// step 31: before it node 1's tick could still make the system live.
func Example() {
	cfg := messageConfig(30, 10)
	// The dead path: always the first ready event (requests, then
	// messages, then timers), 2000 steps.
	s, _ := engine.New(cfg, engine.Options{Chooser: first{}})
	for s.Steps() < 2000 {
		s.Step()
	}
	res, err := critical.Find(critical.Config{
		Sim:       cfg,
		Choices:   s.ChoiceValues(),
		Steps:     s.Steps(),
		WalkDepth: 2000,
		Walks:     20,
		Seed:      1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("critical step %d (%v): %s\n", res.Step, res.Condition, res.EventText)
	for _, p := range res.Probes {
		fmt.Printf("phase %d: state %d recovers %v\n", p.Phase, p.Step, p.Recovers)
	}
	fmt.Printf("live alternative: from state %d, shares %d steps, live after %d\n", res.Live.From, res.Live.Shared, res.Live.Steps)
	// Output:
	// critical step 31 (C1): node 1 receives Cancel{} from node 0
	// phase 1: state 0 recovers true
	// phase 1: state 1 recovers true
	// phase 1: state 2 recovers true
	// phase 1: state 4 recovers true
	// phase 1: state 8 recovers true
	// phase 1: state 16 recovers true
	// phase 1: state 32 recovers false
	// phase 2: state 24 recovers true
	// phase 2: state 28 recovers true
	// phase 2: state 30 recovers true
	// phase 2: state 31 recovers false
	// live alternative: from state 30, shares 30 steps, live after 31
}
