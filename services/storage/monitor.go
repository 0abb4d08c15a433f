package storage

import (
	"fmt"
	"slices"

	"github.com/macemc/macemc/sim"
)

// NodeFailed tells the monitors that an extent node failed (halted), seed
// 001's ENFailedEvent. The extent node itself announces it.
type NodeFailed struct{ Node sim.NodeID }

// ReplicaStored tells the monitors that Node now stores a replica of
// Extent, seed 001's ExtentRepairedEvent.
type ReplicaStored struct {
	Node   sim.NodeID
	Extent ExtentID
}

// RepairChecker is the liveness monitor of seed 001 §5.3.5: it tracks the
// ground truth of which live extent nodes hold each extent, from what the
// extent nodes announce (NodeFailed, ReplicaStored), apart from the
// manager's possibly stale belief. It is hot while the driver's failures
// are still to come or some extent has fewer live replicas than the
// target: the test scenario (fail nodes, then repair every extent) owes
// progress. An execution that stays hot forever never repairs, the vNext
// bug. It also asserts that no extent loses its last live replica (the
// safety half, NoDataLoss).
//
// It starts hot, unlike seed 001's RepairChecker, whose scenario reaches
// its steady state before it fails a node: a walk ends at its first live
// state, so a monitor that started cold would call the initial state live
// and never see the failure.
type RepairChecker struct {
	// Target is the replica target; Pending the failures still to come.
	Target, Pending int
	// Holders maps each extent to the live nodes that store it, sorted.
	Holders map[ExtentID][]sim.NodeID
}

// NewRepairChecker returns the monitor's initial state for the system's
// parameters: every extent on its initial placement.
func NewRepairChecker(nodes, extents, replicas, failures int) *RepairChecker {
	m := &RepairChecker{Target: replicas, Pending: failures, Holders: map[ExtentID][]sim.NodeID{}}
	for e := range extents {
		m.Holders[ExtentID(e)] = sortedCopy(Placement(ExtentID(e), nodes, replicas))
	}
	return m
}

// Handle implements sim.Monitor.
func (m *RepairChecker) Handle(ev any) error {
	switch ev := ev.(type) {
	case NodeFailed:
		m.Pending--
		var buf [16]ExtentID
		for _, e := range sortedKeys(m.Holders, buf[:]) {
			if i, ok := slices.BinarySearch(m.Holders[e], ev.Node); ok {
				m.Holders[e] = slices.Delete(m.Holders[e], i, i+1)
				if len(m.Holders[e]) == 0 {
					return fmt.Errorf("extent %d lost its last live replica with node %d", e, ev.Node)
				}
			}
		}
	case ReplicaStored:
		m.Holders[ev.Extent] = insert(m.Holders[ev.Extent], ev.Node)
	}
	return nil
}

// Hot implements sim.LivenessMonitor: failures are still to come, or an
// extent is short of live replicas.
func (m *RepairChecker) Hot() bool {
	if m.Pending > 0 {
		return true
	}
	for _, h := range m.Holders {
		if len(h) < m.Target {
			return true
		}
	}
	return false
}
