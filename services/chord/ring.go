package chord

import (
	"github.com/macemc/macemc/services/internal/ring"
	"github.com/macemc/macemc/sim"
)

// IDBits is the width of a Chord identifier: the ring has 1<<IDBits points.
// It is small on purpose: the model checker wants few, readable states.
const IDBits = 8

// ID is a point on the Chord identifier ring.
type ID uint32

// IDOf returns the identifier of the node at addr. As in a deployment, it
// is a hash of the node's address, so a node that restarts comes back with
// the same identifier.
func IDOf(addr sim.NodeID) ID { return ID(ring.Hash(addr, IDBits)) }

// Ref names a node: its address and its identifier, as carried in messages.
type Ref struct {
	Addr sim.NodeID
	ID   ID
}

// RefOf returns the reference of the node at addr.
func RefOf(addr sim.NodeID) Ref { return Ref{Addr: addr, ID: IDOf(addr)} }

// between reports whether x lies strictly inside the clockwise arc from a
// to b. When a == b the arc is the whole ring except a.
func between(x, a, b ID) bool {
	if a < b {
		return a < x && x < b
	}
	return x > a || x < b
}

// betweenIncl reports whether x lies in the clockwise arc (a, b].
func betweenIncl(x, a, b ID) bool { return x == b || between(x, a, b) }
