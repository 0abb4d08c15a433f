package critical_test

import (
	"context"
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
	res, err := critical.Find(context.Background(), critical.Config{
		Sim:       cfg,
		Choices:   s.ChoiceValues(),
		Steps:     s.Steps(),
		WalkDepth: 2000,
		Walks:     20,
		Seed:      1,
		// Confirmation: at most 100,000 steps of walks per sample.
		ConfirmBudget: 100_000,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("critical step %d (%v): %s\n", res.Step, res.Condition, res.EventText)
	for _, p := range res.Probes {
		same := ""
		if p.Forced {
			same = ", and every walk would be that one: no step of it has an alternative"
		}
		fmt.Printf("%s: state %d recovers %v (%d of %d walks%s)\n", p.Phase, p.Step, p.Recovers, p.Recovered, p.Walks, same)
	}
	fmt.Printf("live alternative: from state %d, shares %d steps, live after %d\n", res.Live.From, res.Live.Shared, res.Live.Steps)
	// Output:
	// critical step 31 (C1): node 1 receives Cancel{} from node 0
	// exponential: state 0 recovers true (1 of 1 walks)
	// exponential: state 1 recovers true (1 of 1 walks)
	// exponential: state 2 recovers true (1 of 1 walks)
	// exponential: state 4 recovers true (1 of 1 walks)
	// exponential: state 8 recovers true (1 of 1 walks)
	// exponential: state 16 recovers true (1 of 1 walks)
	// exponential: state 32 recovers false (0 of 1 walks, and every walk would be that one: no step of it has an alternative)
	// binary: state 24 recovers true (1 of 1 walks)
	// binary: state 28 recovers true (1 of 1 walks)
	// binary: state 30 recovers true (1 of 1 walks)
	// binary: state 31 recovers false (0 of 1 walks, and every walk would be that one: no step of it has an alternative)
	// confirm: state 31 recovers false (0 of 1 walks, and every walk would be that one: no step of it has an alternative)
	// confirm: state 30 recovers true (50 of 50 walks)
	// live alternative: from state 30, shares 30 steps, live after 31
}

// ExampleMinimize reduces a doomed path of the flags system (see
// minimize_test.go): E fires three noise timers around the two flag
// timers, then the request that poisons the node. The 1-minimal doomed
// path keeps the flags and the poison.
func ExampleMinimize() {
	cfg := flagsConfig()
	s, _ := engine.New(cfg, engine.Options{})
	for _, name := range []string{"n1", "a", "n2", "b", "n3", "app"} {
		for i, e := range s.Ready() {
			if name == "app" && e.Kind == engine.EvApp || e.Timer == name {
				s.StepEvent(i)
				break
			}
		}
	}
	c := critical.Config{Sim: cfg, Choices: s.ChoiceValues(), Steps: s.Steps(), WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500}
	res, _ := critical.Find(context.Background(), c)
	fmt.Printf("critical step %d (%v): %s\n", res.Step, res.Condition, res.EventText)
	m, err := critical.Minimize(context.Background(), c, res.Step, critical.MinimizeConfig{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("minimized: %d steps instead of %d (1-minimal: %v), E's transitions %v\n", m.Steps, m.From, m.Minimal, m.Kept)
	for _, e := range m.Events {
		fmt.Println(" ", e)
	}
	// Output:
	// critical step 6 (C1): node 0 handles app request "poison"
	// minimized: 3 steps instead of 6 (1-minimal: true), E's transitions [2 4 6]
	//   node 0 timer a fires
	//   node 0 timer b fires
	//   node 0 handles app request "poison"
}
