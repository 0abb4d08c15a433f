package proposers

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "proposers"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "proposers", Kind: sim.ParamInt, Default: "2", Doc: "number of proposers; node 0 is the acceptor", Min: sim.Bound(2), Max: sim.Bound(4)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "a pre-empted proposer defers to a higher-ranked one instead of out-bidding it"},
}

// ValueOf is the value the driver asks proposer id to propose.
func ValueOf(id sim.NodeID) int { return 100 * int(id) }

// The system's properties.
var (
	// ValueChosen is the liveness property: eventually a value is chosen
	// and every proposer knows it.
	ValueChosen = sim.Property{
		Name: "ValueChosen",
		Doc:  "a value is chosen and every proposer knows it",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, p *Proposer) bool { return p.Phase == Decided })
		},
	}
	// Agreement is the safety property: every proposer that decided
	// decided the value the acceptor accepted, and that value was proposed.
	Agreement = sim.Property{
		Name: "Agreement",
		Doc:  "decisions equal the accepted value, which some proposer proposed",
		Check: func(v *sim.View) bool {
			a := sim.Node[Acceptor](v, 0)
			if !a.Accepted.IsZero() && sim.Count(v, func(id sim.NodeID, _ *Proposer) bool { return ValueOf(id) == a.Value }) == 0 {
				return false
			}
			return sim.All(v, func(_ sim.NodeID, p *Proposer) bool {
				return p.Phase != Decided || (!a.Accepted.IsZero() && p.Decision == a.Value)
			})
		},
	}
)

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	k := p.Int("proposers")
	if k < 2 || k > 4 {
		return nil, fmt.Errorf("proposers=%d: need 2 to 4", k)
	}
	fixed := p.Bool("fixed")
	var proposers []sim.NodeID
	for i := 1; i <= k; i++ {
		proposers = append(proposers, sim.NodeID(i))
	}
	return &sim.Config{
		Nodes: k + 1,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &Acceptor{Proposers: proposers}
			}
			return &Proposer{Acceptor: 0, Defer: fixed}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return nil
			}
			return []any{Propose{Value: ValueOf(id)}}
		},
		Safety:   []sim.Property{Agreement},
		Liveness: []sim.Property{ValueChosen},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "two proposers out-bidding each other at one acceptor: a livelock whose ballots grow forever (seed 000 A.1)",
		Params: Params,
		Build:  Build,
	})
}
