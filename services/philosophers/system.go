package philosophers

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "philosophers"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "n", Kind: sim.ParamInt, Default: "3", Doc: "number of philosophers; there are as many forks", Min: sim.Bound(2), Max: sim.Bound(5)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "pick up forks in a global order: the last philosopher starts with his right fork"},
}

// The system's properties.
var (
	// EveryoneEats is the liveness property (the hot predicate of seed
	// 000 §III): eventually every philosopher has eaten.
	EveryoneEats = sim.Property{
		Name: "EveryoneEats",
		Doc:  "every philosopher has eaten",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, p *Philosopher) bool { return p.Ate })
		},
	}
	// Exclusion is the safety property: a philosopher that believes it
	// holds a fork is the fork's holder, so no fork is in two hands and
	// neighbours never eat at once.
	Exclusion = sim.Property{
		Name: "Exclusion",
		Doc:  "every fork a philosopher believes it holds names it as holder",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(id sim.NodeID, p *Philosopher) bool {
				for _, f := range [2]sim.NodeID{p.Left, p.Right} {
					if p.Holds(f) {
						if fk := sim.Node[Fork](v, f); fk == nil || fk.Holder != id {
							return false
						}
					}
				}
				return true
			})
		},
	}
)

// Build returns the Config for resolved parameters: philosophers are nodes
// 0..n-1, forks nodes n..2n-1, and the driver makes every philosopher
// hungry once.
func Build(p sim.Params) (*sim.Config, error) {
	n := p.Int("n")
	if n < 2 || n > 5 {
		return nil, fmt.Errorf("n=%d: need 2 to 5 philosophers", n)
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes: 2 * n,
		Service: func(id sim.NodeID) sim.Service {
			if int(id) < n {
				return newPhilosopher(int(id), n, fixed)
			}
			return &Fork{Holder: none}
		},
		App: func(id sim.NodeID) []any {
			if int(id) < n {
				return []any{Hungry{}}
			}
			return nil
		},
		Safety:   []sim.Property{Exclusion},
		Liveness: []sim.Property{EveryoneEats},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "dining philosophers who put a fork back when the other is busy: a livelock without a dead state (seed 000 §III)",
		Params: Params,
		Build:  Build,
	})
}
