package failuredetector

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "failuredetector"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "nodes", Kind: sim.ParamInt, Default: "2", Doc: "monitored daemons (nodes 2..nodes+1); node 0 is the failure detector, node 1 the client", Min: sim.Bound(1), Max: sim.Bound(62)},
	{Name: "failures", Kind: sim.ParamInt, Default: "1", Doc: "daemons the client halts (at most nodes)", Min: sim.Bound(0), Max: sim.Bound(62)},
	{Name: "attempts", Kind: sim.ParamInt, Default: "1", Doc: "unanswered ping rounds before a daemon is declared failed", Min: sim.Bound(1), Max: sim.Bound(1000)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "tell a newly registered client about the failures declared before"},
}

// FailuresReported returns the liveness property: eventually the client
// has halted its daemons and was told about each of them.
func FailuresReported(failures int) sim.Property {
	return sim.Property{
		Name: "FailuresReported",
		Doc:  "every daemon the client halted has been reported to it as failed",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, c *Client) bool {
				if len(c.Killed) < failures {
					return false
				}
				for _, n := range c.Killed {
					if d := sim.Node[Daemon](v, n); d == nil || !d.Halted || !c.Knows(n) {
						return false
					}
				}
				return true
			})
		},
	}
}

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	nodes, failures, attempts := p.Int("nodes"), p.Int("failures"), p.Int("attempts")
	if nodes < 1 || failures < 0 || failures > nodes || attempts < 1 {
		return nil, fmt.Errorf("nodes=%d failures=%d attempts=%d: need nodes >= 1, 0 <= failures <= nodes, attempts >= 1", nodes, failures, attempts)
	}
	fixed := p.Bool("fixed")
	var daemons []sim.NodeID
	for i := range nodes {
		daemons = append(daemons, sim.NodeID(2+i))
	}
	return &sim.Config{
		Nodes: nodes + 2,
		Service: func(id sim.NodeID) sim.Service {
			switch id {
			case 0:
				return &FailureDetector{Attempts: attempts, SendHistory: fixed, Alive: append([]sim.NodeID(nil), daemons...), Misses: map[sim.NodeID]int{}}
			case 1:
				return &Client{Detector: 0, Daemons: daemons}
			}
			return &Daemon{}
		},
		App: func(id sim.NodeID) []any {
			if id != 1 {
				return nil
			}
			reqs := []any{Register{}}
			for range failures {
				reqs = append(reqs, Kill{})
			}
			return reqs
		},
		Liveness: []sim.Property{FailuresReported(failures)},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "ping-based failure detector that never tells a late client about a failure it declared earlier (seed 000 A.3)",
		Params: Params,
		Build:  Build,
	})
}
