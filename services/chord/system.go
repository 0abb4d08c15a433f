package chord

import (
	"fmt"

	"github.com/macemc/macemc/services/internal/ring"
	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "chord"

func init() {
	sim.Register(&sim.System{
		Name: SystemName,
		Doc:  "Chord ring (revised protocol): join through node 0, periodic stabilize; the bug of seed 003 §6 (a notify updates the predecessor only)",
		Params: []sim.ParamSpec{
			{Name: "nodes", Kind: sim.ParamInt, Default: "3", Doc: "number of nodes; node 0 creates the ring, the others join through it (at most 28: more would collide in the 8-bit identifier space)", Min: sim.Bound(2), Max: sim.Bound(MaxNodes)},
			{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "apply the fix: update successor and predecessor on hearing from any node"},
			{Name: "resets", Kind: sim.ParamInt, Default: "1", Doc: "node resets per execution (a reset node reboots and rejoins with the same identifier)", Min: sim.Bound(0), Max: sim.Bound(1000)},
			{Name: "breaks", Kind: sim.ParamInt, Default: "0", Doc: "connection breaks per execution", Min: sim.Bound(0), Max: sim.Bound(1000)},
		},
		Build: build,
	})
}

// MaxNodes is the most nodes the system takes: nodes 0 to 27 hash to
// distinct identifiers of IDBits bits, node 28 collides with node 8.
const MaxNodes = 28

func build(p sim.Params) (*sim.Config, error) {
	n := p.Int("nodes")
	if n < 2 || n > MaxNodes {
		return nil, fmt.Errorf("nodes=%d: want 2 to %d", n, MaxNodes)
	}
	if err := ring.Distinct(n, IDBits); err != nil {
		return nil, err
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes:   n,
		Service: func(sim.NodeID) sim.Service { return &Chord{Fixed: fixed} },
		App:     func(sim.NodeID) []any { return []any{Join{Bootstrap: 0}} },
		Safety: []sim.Property{{
			Name:  "SuccPred",
			Doc:   "always: for every node, predecessor == self iff successor == self",
			Check: SuccPred,
		}},
		Liveness: []sim.Property{{
			Name:  "AllNodes",
			Doc:   "eventually: following successor pointers from any node reaches all nodes",
			Check: AllNodes,
		}},
		Failures: sim.Failures{Resets: p.Int("resets"), Breaks: p.Int("breaks")},
	}, nil
}

// SuccPred is the safety predicate of seed 003 Table 1: a node's
// predecessor is itself if and only if its successor is itself.
func SuccPred(v *sim.View) bool {
	return sim.All(v, func(_ sim.NodeID, c *Chord) bool {
		return (c.Pred == c.Self) == (c.Succ == c.Self)
	})
}

// AllNodes is the liveness predicate of seed 003 Table 1: from every node,
// following successor pointers visits every node.
func AllNodes(v *sim.View) bool {
	return ring.Covers(v, func(c *Chord) sim.NodeID { return c.Succ.Addr })
}
