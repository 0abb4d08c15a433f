package randtree

import (
	"fmt"
	"slices"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "randtree"

// params are the system's parameters with their defaults.
var params = []sim.ParamSpec{
	{Name: "nodes", Kind: sim.ParamInt, Default: "4", Doc: "number of nodes; node 0 is the bootstrap and root", Min: sim.Bound(1), Max: sim.Bound(64)},
	{Name: "degree", Kind: sim.ParamInt, Default: "2", Doc: "maximum number of children per node", Min: sim.Bound(1), Max: sim.Bound(64)},
	{Name: "resets", Kind: sim.ParamInt, Default: "1", Doc: "node resets per execution", Min: sim.Bound(0), Max: sim.Bound(1000)},
	{Name: "breaks", Kind: sim.ParamInt, Default: "0", Doc: "connection breaks per execution", Min: sim.Bound(0), Max: sim.Bound(1000)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "answer a JoinReply in init mode with Remove (the fix of seed 003 §6)"},
}

// parentOf returns the parent of node id, or none.
func parentOf(v *sim.View, id sim.NodeID) sim.NodeID {
	if n := sim.Node[Node](v, id); n != nil {
		return n.parent
	}
	return none
}

// The properties of seed 003 Table 1 and §6.
var (
	// OneRoot is liveness: eventually exactly one node believes it is the
	// root.
	OneRoot = sim.Property{
		Name: "OneRoot",
		Doc:  "exactly one node believes it is the root",
		Check: func(v *sim.View) bool {
			return sim.Count(v, func(_ sim.NodeID, n *Node) bool { return n.isRoot }) == 1
		},
	}
	// NoLoops is liveness: eventually following parent pointers from any
	// node ends at a node without a parent.
	NoLoops = sim.Property{
		Name: "NoLoops",
		Doc:  "following parent pointers from any node reaches a node without a parent",
		Check: func(v *sim.View) bool {
			for id := range v.Len() {
				p := sim.NodeID(id)
				for range v.Len() {
					if p = parentOf(v, p); p == none {
						break
					}
				}
				if p != none {
					return false
				}
			}
			return true
		},
	}
	// HasParent is liveness: eventually every node is the root or has a
	// parent.
	HasParent = sim.Property{
		Name: "HasParent",
		Doc:  "every node is the root or has a parent",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, n *Node) bool { return n.isRoot || n.parent != none })
		},
	}
	// KidsMatch is liveness: eventually every node's parent lists it as a
	// child and its children name it as their parent.
	KidsMatch = sim.Property{
		Name: "KidsMatch",
		Doc:  "each node's parent has it as a child and each of its children has it as parent",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(id sim.NodeID, n *Node) bool {
				if n.parent != none {
					p := sim.Node[Node](v, n.parent)
					if p == nil {
						return false
					}
					if _, ok := slices.BinarySearch(p.kids, id); !ok {
						return false
					}
				}
				for _, k := range n.kids {
					if parentOf(v, k) != id {
						return false
					}
				}
				return true
			})
		},
	}
	// Timers is safety: every node that is up is in state init or its
	// recovery timer is scheduled (a crashed node keeps its state and
	// loses its timers).
	Timers = sim.Property{
		Name: "Timers",
		Doc:  "every node that is up is in state init or its recovery timer is scheduled",
		Check: func(v *sim.View) bool {
			return sim.All(v, func(id sim.NodeID, n *Node) bool {
				return !v.Up(id) || n.state == stateInit || v.TimerScheduled(id, recovery)
			})
		},
	}
)

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	nodes, degree := p.Int("nodes"), p.Int("degree")
	if nodes < 1 || degree < 1 {
		return nil, fmt.Errorf("nodes=%d degree=%d: both must be positive", nodes, degree)
	}
	if p.Int("resets") < 0 || p.Int("breaks") < 0 {
		return nil, fmt.Errorf("resets and breaks must not be negative")
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes:    nodes,
		Service:  func(sim.NodeID) sim.Service { return newNode(fixed, degree, 0) },
		App:      func(sim.NodeID) []any { return []any{JoinOverlay{}} },
		Safety:   []sim.Property{Timers},
		Liveness: []sim.Property{OneRoot, NoLoops, HasParent, KidsMatch},
		Failures: sim.Failures{Resets: p.Int("resets"), Breaks: p.Int("breaks")},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "RandTree: random overlay tree with bounded degree; JoinReply-in-init liveness bug (seed 003 §6)",
		Params: params,
		Build:  Build,
	})
}
