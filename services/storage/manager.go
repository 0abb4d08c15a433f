package storage

import (
	"cmp"
	"slices"

	"github.com/macemc/macemc/sim"
)

// repairTimer drives the manager's periodic extent repair loop.
const repairTimer = "repair"

// NodeStatus is the manager's belief about an extent node.
type NodeStatus uint8

// The statuses of an extent node in the ExtentNodeMap.
const (
	Alive NodeStatus = iota
	Failed
)

// ExtentManager (ExtMgr) keeps every extent at its replica target. Its
// ExtentCenter maps each extent to the nodes holding a replica and is
// updated from the nodes' synchronisation reports; its ExtentNodeMap holds
// what it believes about each node. When a node fails it drops the node's
// replicas, and its repair loop asks a live node to copy every extent that
// is short of replicas.
type ExtentManager struct {
	sim.Base
	// Target is the number of replicas every extent must have.
	Target int
	// IgnoreFailed is the fix: drop sync reports from failed nodes.
	IgnoreFailed bool
	// ExtentNodeMap is the manager's belief about every extent node.
	ExtentNodeMap map[sim.NodeID]NodeStatus
	// ExtentCenter maps each extent to its replica holders, sorted.
	ExtentCenter map[ExtentID][]sim.NodeID
}

// Start schedules the repair loop.
func (m *ExtentManager) Start(ctx *sim.Context) { ctx.SetPeriodic(repairTimer) }

// HandleMessage takes failure notifications and synchronisation reports.
func (m *ExtentManager) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	switch msg := msg.(type) {
	case NotifyFailure:
		ctx.Log().Int("en", int(msg.Node)).Msg("extent node failed: dropping its replicas")
		m.ExtentNodeMap[msg.Node] = Failed
		var buf [16]ExtentID
		for _, e := range sortedKeys(m.ExtentCenter, buf[:]) {
			if i, ok := slices.BinarySearch(m.ExtentCenter[e], msg.Node); ok {
				m.ExtentCenter[e] = slices.Delete(m.ExtentCenter[e], i, i+1)
			}
		}
	case SyncReport:
		if m.IgnoreFailed && m.ExtentNodeMap[from] == Failed {
			ctx.Log().Int("en", int(from)).Msg("ignoring sync report from a failed node")
			return
		}
		m.sync(from, msg.Extents)
	}
}

// sync makes the ExtentCenter agree with a node's report.
func (m *ExtentManager) sync(from sim.NodeID, extents []ExtentID) {
	for _, e := range extents {
		if _, ok := m.ExtentCenter[e]; !ok {
			m.ExtentCenter[e] = nil
		}
	}
	var buf [16]ExtentID
	for _, e := range sortedKeys(m.ExtentCenter, buf[:]) {
		nodes := m.ExtentCenter[e]
		if _, has := slices.BinarySearch(extents, e); has {
			m.ExtentCenter[e] = insert(nodes, from)
		} else if i, ok := slices.BinarySearch(nodes, from); ok {
			m.ExtentCenter[e] = slices.Delete(nodes, i, i+1)
		}
	}
}

// HandleTimer runs the repair loop: every extent with fewer replicas than
// the target is copied to the lowest live node that lacks it, from its
// lowest live holder.
func (m *ExtentManager) HandleTimer(ctx *sim.Context, name string) {
	if name != repairTimer {
		return
	}
	var nodeBuf [16]sim.NodeID
	live := sortedKeys(m.ExtentNodeMap, nodeBuf[:])
	live = slices.DeleteFunc(live, func(n sim.NodeID) bool { return m.ExtentNodeMap[n] != Alive })
	var buf [16]ExtentID
	for _, e := range sortedKeys(m.ExtentCenter, buf[:]) {
		holders := m.ExtentCenter[e]
		if len(holders) >= m.Target {
			continue
		}
		src := slices.IndexFunc(holders, func(n sim.NodeID) bool { return m.ExtentNodeMap[n] == Alive })
		dst := slices.IndexFunc(live, func(n sim.NodeID) bool { return !slices.Contains(holders, n) })
		if src < 0 || dst < 0 {
			continue
		}
		ctx.Log().Int("extent", int(e)).Int("to", int(live[dst])).Int("from", int(holders[src])).Msg("scheduling repair")
		ctx.Send(live[dst], RepairRequest{Extent: e, Source: holders[src]})
	}
}

// sortedKeys returns m's keys in increasing order, in buf's array when
// they fit. Performance: the manager goes through its maps in key order in
// every handler, and a walk to d_max runs thousands of them; allocating
// the keys (slices.Sorted(maps.Keys(m))) was a quarter of a storage
// search's time.
func sortedKeys[K cmp.Ordered, V any](m map[K]V, buf []K) []K {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Replicas returns the manager's count of e's replicas.
func (m *ExtentManager) Replicas(e ExtentID) int { return len(m.ExtentCenter[e]) }
