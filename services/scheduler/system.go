package scheduler

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "scheduler"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "items", Kind: sim.ParamInt, Default: "2", Doc: "resources the server produces and the client consumes", Min: sim.Bound(1), Max: sim.Bound(1000)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "the server checks for a resource again when the client announces it sleeps"},
}

// The system's properties.
var (
	// AllConsumed is the liveness property: eventually the client has
	// consumed every resource it wants.
	AllConsumed = sim.Property{
		Name: "AllConsumed",
		Doc:  "the client consumed every resource it wants",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, c *Client) bool { return c.Consumed >= c.Want })
		},
	}
	// NoOverConsume is the safety property: the client never consumed
	// more than the server produced.
	NoOverConsume = sim.Property{
		Name: "NoOverConsume",
		Doc:  "the client consumed at most what the server produced",
		Check: func(v *sim.View) bool {
			s, c := sim.Node[Server](v, 0), sim.Node[Client](v, 1)
			return c.Consumed+s.Available <= s.Produced
		},
	}
)

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	items := p.Int("items")
	if items < 1 {
		return nil, fmt.Errorf("items=%d: must be positive", items)
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &Server{Client: 1, Recheck: fixed}
			}
			return &Client{Server: 0, Want: items}
		},
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{Run{}}
			}
			reqs := make([]any, items)
			for i := range reqs {
				reqs[i] = Produce{}
			}
			return reqs
		},
		Safety:   []sim.Property{NoOverConsume},
		Liveness: []sim.Property{AllConsumed},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "producer/consumer with a lost wakeup: the client sleeps forever next to an available resource (seed 000 A.4)",
		Params: Params,
		Build:  Build,
	})
}
