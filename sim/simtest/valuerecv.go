package simtest

import "github.com/macemc/macemc/sim"

// ValueReceiver is the name of simtest-valuerecv.
const ValueReceiver = "simtest-valuerecv"

// ping is what node 0 of simtest-valuerecv sends node 1.
type ping struct{}

// counter is a node of simtest-valuerecv. Its HandleMessage has a value
// receiver, as a hurried user writes it: it counts on a copy of the node,
// so node 1's count never moves.
type counter struct {
	sim.Base
	Count int
}

// Start sends node 1 a ping from node 0 (a pointer receiver).
func (c *counter) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, ping{})
	}
}

// HandleMessage counts the ping, on a copy of the node.
func (c counter) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {
	c.Count++ //lint:ignore SA4005 the lost change is what the system shows
}

func init() {
	sim.Register(&sim.System{
		Name: ValueReceiver,
		Doc:  "test system: a handler with a value receiver counts on a copy of the node",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &counter{} },
				Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool {
					return sim.Node[counter](v, 1).Count > 0
				}}},
			}, nil
		},
	})
}
