package pastry

import (
	"fmt"

	"github.com/macemc/macemc/services/internal/ring"
	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "pastry"

func init() {
	sim.Register(&sim.System{
		Name: SystemName,
		Doc:  "Pastry overlay (leaf sets, join routing, leaf set maintenance) with node resets; the rapid-rejoin bug of seed 003 §1",
		Params: []sim.ParamSpec{
			{Name: "nodes", Kind: sim.ParamInt, Default: "3", Doc: "number of nodes; node 0 starts the overlay, the others join through it (at most 28: more would collide in the 8-bit identifier space)", Min: sim.Bound(2), Max: sim.Bound(MaxNodes)},
			{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "apply the fix: only joined nodes are members, and a join request drops stale entries for the joiner's identifier"},
			{Name: "leafset", Kind: sim.ParamInt, Default: "2", Doc: "leaf set size L (even): L/2 neighbours on each side", Min: sim.Bound(2), Max: sim.Bound(64)},
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
	size := p.Int("leafset")
	if size < 2 || size%2 != 0 {
		return nil, fmt.Errorf("leafset=%d: want an even number, at least 2", size)
	}
	if err := ring.Distinct(n, IDBits); err != nil {
		return nil, err
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes:   n,
		Service: func(sim.NodeID) sim.Service { return &Pastry{Fixed: fixed, Size: size} },
		App:     func(sim.NodeID) []any { return []any{Join{Bootstrap: 0}} },
		Safety: []sim.Property{{
			Name:  "SizeMatch",
			Doc:   "always: for every node, len(right) + len(left) == len(leafset)",
			Check: SizeMatch,
		}},
		Liveness: []sim.Property{{
			Name:  "AllNodes",
			Doc:   "eventually: following successor (right neighbour) pointers from any node reaches all nodes",
			Check: AllNodes,
		}},
		Failures: sim.Failures{Resets: p.Int("resets"), Breaks: p.Int("breaks")},
	}, nil
}

// SizeMatch is the safety predicate of seed 003 Table 1: the two halves of
// every node's leaf set add up to the leaf set.
func SizeMatch(v *sim.View) bool {
	return sim.All(v, func(_ sim.NodeID, p *Pastry) bool {
		return len(p.Left)+len(p.Right) == len(p.Leafset)
	})
}

// AllNodes is the liveness predicate of seed 003 Table 1: from every node,
// following successor pointers (the right neighbour) visits every node.
func AllNodes(v *sim.View) bool { return ring.Covers(v, (*Pastry).Successor) }
