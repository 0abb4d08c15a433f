package chord

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

func init() {
	sim.Register(&sim.System{
		Name: "chord",
		Doc:  "Chord ring (revised protocol): join through node 0, periodic stabilize; the bug of seed 003 §6 (a notify updates the predecessor only)",
		Params: []sim.ParamSpec{
			{Name: "nodes", Kind: sim.ParamInt, Default: "3", Doc: "number of nodes (2-64); node 0 creates the ring, the others join through it"},
			{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "apply the fix: update successor and predecessor on hearing from any node"},
			{Name: "resets", Kind: sim.ParamInt, Default: "1", Doc: "node resets per execution (a reset node reboots and rejoins with the same identifier)"},
			{Name: "breaks", Kind: sim.ParamInt, Default: "0", Doc: "connection breaks per execution"},
		},
		Build: build,
	})
}

func build(p sim.Params) (*sim.Config, error) {
	n := p.Int("nodes")
	if n < 2 || n > 64 {
		return nil, fmt.Errorf("nodes=%d: want 2 to 64", n)
	}
	if err := distinctIDs(n); err != nil {
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

func distinctIDs(n int) error {
	seen := map[ID]sim.NodeID{}
	for i := range n {
		id := IDOf(sim.NodeID(i))
		if j, dup := seen[id]; dup {
			return fmt.Errorf("nodes %d and %d hash to the same identifier %d", j, i, id)
		}
		seen[id] = sim.NodeID(i)
	}
	return nil
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
	n := v.Len()
	all := uint64(1)<<uint(n) - 1
	for start := range n {
		var seen uint64
		cur := sim.NodeID(start)
		for range n {
			seen |= 1 << uint(cur)
			c := sim.Node[Chord](v, cur)
			if c == nil {
				return false
			}
			cur = c.Succ.Addr
		}
		if seen != all {
			return false
		}
	}
	return true
}
