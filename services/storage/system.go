package storage

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "storage"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "nodes", Kind: sim.ParamInt, Default: "4", Doc: "extent nodes (nodes 1..nodes); node 0 is the extent manager, the last node the driver", Min: sim.Bound(1), Max: sim.Bound(62)},
	{Name: "extents", Kind: sim.ParamInt, Default: "1", Doc: "extents, each placed on replicas consecutive extent nodes", Min: sim.Bound(1), Max: sim.Bound(64)},
	{Name: "replicas", Kind: sim.ParamInt, Default: "3", Doc: "replica target of every extent (replicas+failures at most nodes)", Min: sim.Bound(1), Max: sim.Bound(62)},
	{Name: "failures", Kind: sim.ParamInt, Default: "1", Doc: "extent nodes the driver fails (and notifies the manager of); fewer than replicas, and replicas+failures at most nodes", Min: sim.Bound(0), Max: sim.Bound(30)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "the manager ignores sync reports from nodes it believes failed"},
	{Name: "monitor", Kind: sim.ParamBool, Default: "true", Doc: "check the RepairChecker monitor (seed 001); false: the state predicates ExtentsReplicated and NoDataLoss"},
}

// liveReplicas returns how many extent nodes that have not failed store e.
func liveReplicas(v *sim.View, e ExtentID) int {
	return sim.Count(v, func(_ sim.NodeID, n *ExtentNode) bool { return !n.Failed && n.Has(e) })
}

// driverDone reports whether every failure the driver will inject has
// happened: the driver picked its victims and each of them halted.
func driverDone(v *sim.View, failures int) bool {
	for _, d := range sim.Nodes[Driver](v) {
		if len(d.Victims) < failures {
			return false
		}
		for _, id := range d.Victims {
			if n := sim.Node[ExtentNode](v, id); n == nil || !n.Failed {
				return false
			}
		}
	}
	return true
}

// ExtentsReplicated is the liveness property (seed 001's RepairChecker):
// eventually the driver's failures have happened and every extent has
// replicas copies on extent nodes that have not failed.
func ExtentsReplicated(extents, replicas, failures int) sim.Property {
	return sim.Property{
		Name: "ExtentsReplicated",
		Doc:  "the injected failures happened and every extent has its target of live replicas",
		Check: func(v *sim.View) bool {
			if !driverDone(v, failures) {
				return false
			}
			for e := range extents {
				if liveReplicas(v, ExtentID(e)) < replicas {
					return false
				}
			}
			return true
		},
	}
}

// NoDataLoss is the safety property: every extent always has a replica on
// a node that has not failed.
func NoDataLoss(extents int) sim.Property {
	return sim.Property{
		Name: "NoDataLoss",
		Doc:  "every extent has a replica on a live extent node",
		Check: func(v *sim.View) bool {
			for e := range extents {
				if liveReplicas(v, ExtentID(e)) == 0 {
					return false
				}
			}
			return true
		},
	}
}

// Placement returns the initial holders of extent e: replicas consecutive
// extent nodes starting at node 1+e (mod nodes).
func Placement(e ExtentID, nodes, replicas int) []sim.NodeID {
	var out []sim.NodeID
	for j := range replicas {
		out = append(out, sim.NodeID(1+(int(e)+j)%nodes))
	}
	return out
}

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	nodes, extents, replicas, failures := p.Int("nodes"), p.Int("extents"), p.Int("replicas"), p.Int("failures")
	switch {
	case replicas < 1 || extents < 1:
		return nil, fmt.Errorf("extents=%d replicas=%d: both must be positive", extents, replicas)
	case failures < 0 || failures >= replicas:
		return nil, fmt.Errorf("failures=%d: need 0 <= failures < replicas=%d, or data is lost", failures, replicas)
	case nodes < replicas+failures:
		return nil, fmt.Errorf("nodes=%d: need at least replicas+failures=%d extent nodes to repair", nodes, replicas+failures)
	}
	fixed := p.Bool("fixed")
	driver := sim.NodeID(nodes + 1)
	var candidates []sim.NodeID
	for i := 1; i <= nodes; i++ {
		candidates = append(candidates, sim.NodeID(i))
	}
	cfg := &sim.Config{
		Nodes: nodes + 2,
		Service: func(id sim.NodeID) sim.Service {
			switch id {
			case 0:
				m := &ExtentManager{Target: replicas, IgnoreFailed: fixed, ExtentNodeMap: map[sim.NodeID]NodeStatus{}, ExtentCenter: map[ExtentID][]sim.NodeID{}}
				for _, n := range candidates {
					m.ExtentNodeMap[n] = Alive
				}
				for e := range extents {
					m.ExtentCenter[ExtentID(e)] = sortedCopy(Placement(ExtentID(e), nodes, replicas))
				}
				return m
			case driver:
				return &Driver{Manager: 0, Candidates: candidates}
			}
			n := &ExtentNode{Manager: 0}
			for e := range extents {
				for _, h := range Placement(ExtentID(e), nodes, replicas) {
					if h == id {
						n.Extents = append(n.Extents, ExtentID(e))
					}
				}
			}
			return n
		},
		App: func(id sim.NodeID) []any {
			if id != driver {
				return nil
			}
			reqs := make([]any, failures)
			for i := range reqs {
				reqs[i] = InjectFailure{}
			}
			return reqs
		},
	}
	if p.Bool("monitor") {
		cfg.Monitors = []sim.MonitorSpec{{
			Name: "RepairChecker",
			Doc:  "the injected failures happened and every extent is back at its target of live replicas; no extent loses its last live replica",
			New:  func() sim.Monitor { return NewRepairChecker(nodes, extents, replicas, failures) },
		}}
	} else {
		cfg.Safety = []sim.Property{NoDataLoss(extents)}
		cfg.Liveness = []sim.Property{ExtentsReplicated(extents, replicas, failures)}
	}
	return cfg, nil
}

func sortedCopy(s []sim.NodeID) []sim.NodeID {
	out := make([]sim.NodeID, 0, len(s))
	for _, x := range s {
		out = insert(out, x)
	}
	return out
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "replicated extent storage: a stale sync report undoes failure handling and the repair never happens (Azure Storage vNext, seeds 000 §V, 001 §5.3)",
		Params: Params,
		Build:  Build,
	})
}
