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
