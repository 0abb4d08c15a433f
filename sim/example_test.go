package sim_test

import (
	"fmt"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Ping plays ping-pong: node 0's driver serves, each node returns the ball
// with its count raised, up to 4.
type Ping struct {
	sim.Base
	Count int
}

// Ball is the message the nodes exchange.
type Ball struct{ N int }

func (p *Ping) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, Ball{N: 1}) }

func (p *Ping) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b := m.(Ball)
	p.Count = b.N
	if b.N < 4 {
		ctx.Send(from, Ball{N: b.N + 1})
	}
}

// pingpong declares the system: two nodes, a driver request at node 0, and
// the liveness property that both have seen the ball at least three times.
var pingpong = &sim.System{
	Name: "pingpong",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:   2,
			Service: func(sim.NodeID) sim.Service { return &Ping{} },
			App: func(id sim.NodeID) []any {
				if id == 0 {
					return []any{"serve"}
				}
				return nil
			},
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
				return sim.All(v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 })
			}}},
		}, nil
	},
}

// Example declares a system and runs it to completion on the simulator
// with a seeded random chooser.
func Example() {
	cfg, _, err := pingpong.Config(nil)
	if err != nil {
		panic(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		panic(err)
	}
	for {
		ok, err := s.Step()
		if err != nil {
			panic(err)
		}
		if !ok {
			break
		}
		fmt.Println(s.LastEvent())
	}
	live, _ := s.AllHold(cfg.Liveness)
	fmt.Println("steps:", s.Steps(), "live:", live)
	// Output:
	// node 0 handles app request "serve"
	// node 1 receives Ball{N: 1} from node 0
	// node 0 receives Ball{N: 2} from node 1
	// node 1 receives Ball{N: 3} from node 0
	// node 0 receives Ball{N: 4} from node 1
	// steps: 5 live: true
}

// Rally is a liveness monitor: every ball sent must be returned or end the
// rally; it is hot while a ball is in the air.
type Rally struct{ InAir int }

// Sent and Caught are what the players announce.
type (
	Sent   struct{}
	Caught struct{}
)

func (r *Rally) Handle(ev any) error {
	switch ev.(type) {
	case Sent:
		r.InAir++
	case Caught:
		if r.InAir == 0 {
			return fmt.Errorf("caught a ball nobody sent")
		}
		r.InAir--
	}
	return nil
}

func (r *Rally) Hot() bool { return r.InAir > 0 }

// Player is Ping announcing its throws and catches to the monitors.
type Player struct{ Ping }

func (p *Player) HandleApp(ctx *sim.Context, req any) {
	ctx.Notify(Sent{})
	p.Ping.HandleApp(ctx, req)
}

func (p *Player) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	ctx.Notify(Caught{})
	if m.(Ball).N < 4 {
		ctx.Notify(Sent{})
	}
	p.Ping.HandleMessage(ctx, from, m)
}

// ExampleMonitor checks ping-pong with a monitor instead of a state
// predicate: the system is live when no ball is in the air.
func ExampleMonitor() {
	sys := &sim.System{Name: "rally", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    2,
			Service:  func(sim.NodeID) sim.Service { return &Player{} },
			App:      func(id sim.NodeID) []any { return []any{"serve"}[:1-id] },
			Monitors: []sim.MonitorSpec{{Name: "Rally", New: func() sim.Monitor { return &Rally{} }}},
		}, nil
	}}
	cfg, _, err := sys.Config(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("safety:", cfg.Safety[0].Name, "liveness:", cfg.Liveness[0].Name)
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		panic(err)
	}
	for {
		live, _ := s.AllHold(cfg.Liveness)
		safe, _ := s.AllHold(cfg.Safety)
		fmt.Printf("step %d: %d in the air, live %v, safe %v\n", s.Steps(), sim.MonitorOf[Rally](s.View()).InAir, live, safe)
		if ok, err := s.Step(); err != nil || !ok {
			break
		}
	}
	// Output:
	// safety: Rally liveness: Rally
	// step 0: 0 in the air, live true, safe true
	// step 1: 1 in the air, live false, safe true
	// step 2: 1 in the air, live false, safe true
	// step 3: 1 in the air, live false, safe true
	// step 4: 1 in the air, live false, safe true
	// step 5: 0 in the air, live true, safe true
}
