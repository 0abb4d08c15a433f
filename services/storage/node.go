package storage

import (
	"slices"

	"github.com/macemc/macemc/sim"
)

// syncTimer drives an extent node's periodic SyncReport.
const syncTimer = "sync"

// ExtentNode is a storage node (EN): it stores extent replicas, reports
// them to the manager periodically, and repairs an extent when asked by
// copying it from another replica.
type ExtentNode struct {
	sim.Base
	// Manager is the extent manager's node.
	Manager sim.NodeID
	// Extents are the replicas stored here, sorted.
	Extents []ExtentID
	// Copying are the repairs in progress, sorted.
	Copying []ExtentID
	// Failed is set when the node halts; it then does nothing more.
	Failed bool
}

// Start schedules the periodic synchronisation report.
func (n *ExtentNode) Start(ctx *sim.Context) { ctx.SetPeriodic(syncTimer) }

// HandleTimer sends the synchronisation report.
func (n *ExtentNode) HandleTimer(ctx *sim.Context, name string) {
	if n.Failed || name != syncTimer {
		return
	}
	ctx.Send(n.Manager, SyncReport{Extents: slices.Clone(n.Extents)})
}

// Has reports whether the node stores a replica of e.
func (n *ExtentNode) Has(e ExtentID) bool {
	_, ok := slices.BinarySearch(n.Extents, e)
	return ok
}

// HandleMessage handles repairs, copies and the injected failure.
func (n *ExtentNode) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if n.Failed {
		return
	}
	switch m := m.(type) {
	case FaultInject:
		ctx.Log().Msg("extent node fails")
		n.Failed = true
		ctx.CancelTimer(syncTimer)
		ctx.Notify(NodeFailed{Node: ctx.Self()})
	case RepairRequest:
		if n.Has(m.Extent) {
			return
		}
		// A repeated request retries the copy, from the source the
		// manager names now: the one asked before may have failed.
		n.Copying = insert(n.Copying, m.Extent)
		ctx.Send(m.Source, CopyRequest{Extent: m.Extent})
	case CopyRequest:
		ctx.Send(from, CopyResponse{Extent: m.Extent, OK: n.Has(m.Extent)})
	case CopyResponse:
		i, ok := slices.BinarySearch(n.Copying, m.Extent)
		if !ok {
			return
		}
		n.Copying = slices.Delete(n.Copying, i, i+1)
		if m.OK && !n.Has(m.Extent) {
			ctx.Log().Int("extent", int(m.Extent)).Msg("extent repaired")
			n.Extents = insert(n.Extents, m.Extent)
			ctx.Notify(ReplicaStored{Node: ctx.Self(), Extent: m.Extent})
		}
	}
}

// insert adds x to the sorted slice s unless it is there.
func insert[T ~int](s []T, x T) []T {
	i, ok := slices.BinarySearch(s, x)
	if ok {
		return s
	}
	return slices.Insert(s, i, x)
}

// Driver is the test driver (seed 000's Environment, seed 001's
// TestingDriver): it fails extent nodes and notifies the manager.
type Driver struct {
	sim.Base
	// Manager is the extent manager's node.
	Manager sim.NodeID
	// Candidates are the extent nodes it may fail.
	Candidates []sim.NodeID
	// Victims are the nodes it failed, in order.
	Victims []sim.NodeID
}

// HandleApp fails a node chosen among those not yet failed.
func (d *Driver) HandleApp(ctx *sim.Context, req any) {
	if _, ok := req.(InjectFailure); !ok {
		return
	}
	var alive []sim.NodeID
	for _, c := range d.Candidates {
		if !slices.Contains(d.Victims, c) {
			alive = append(alive, c)
		}
	}
	if len(alive) == 0 {
		return
	}
	v := alive[ctx.Rand(len(alive))]
	d.Victims = append(d.Victims, v)
	ctx.Log().Int("victim", int(v)).Msg("injecting failure")
	ctx.Send(v, FaultInject{})
	ctx.Send(d.Manager, NotifyFailure{Node: v})
}
