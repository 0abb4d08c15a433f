package storage

import "github.com/macemc/macemc/sim"

// ExtentID names an extent, a unit of replicated data.
type ExtentID int

// SyncReport is an extent node's periodic synchronisation report: every
// extent it stores, sorted. It is the ground truth the manager updates its
// ExtentCenter with.
type SyncReport struct{ Extents []ExtentID }

// RepairRequest asks an extent node to make a replica of Extent by copying
// it from Source.
type RepairRequest struct {
	Extent ExtentID
	Source sim.NodeID
}

// CopyRequest asks a replica holder for a copy of Extent.
type CopyRequest struct{ Extent ExtentID }

// CopyResponse carries the copy of Extent, or OK false if the node had
// none.
type CopyResponse struct {
	Extent ExtentID
	OK     bool
}

// FaultInject makes an extent node fail: it halts, for good.
type FaultInject struct{}

// NotifyFailure tells the manager that Node failed (seed 000 §V: the
// environment's failure notification, as a cluster monitor would send).
type NotifyFailure struct{ Node sim.NodeID }

// InjectFailure is the test driver's request: fail one extent node and
// notify the manager.
type InjectFailure struct{}
