package pastry

import (
	"cmp"
	"slices"

	"github.com/macemc/macemc/services/internal/ring"
	"github.com/macemc/macemc/sim"
)

// IDBits is the width of a Pastry identifier: the identifier space is a
// circle of 1<<IDBits points. It is small on purpose: the model checker
// wants few, readable states.
const IDBits = 8

// RingSize is the number of identifiers.
const RingSize = 1 << IDBits

// ID is a point on the identifier circle.
type ID uint32

// IDOf returns the identifier of the node at addr. As in a deployment, it
// is a hash of the node's address, so a node that restarts comes back with
// the same identifier.
func IDOf(addr sim.NodeID) ID { return ID(ring.Hash(addr, IDBits)) }

// Handle names a node: its address and its identifier, as carried in
// messages.
type Handle struct {
	Addr sim.NodeID
	ID   ID
}

// HandleOf returns the handle of the node at addr.
func HandleOf(addr sim.NodeID) Handle { return Handle{Addr: addr, ID: IDOf(addr)} }

// cw returns the clockwise distance from a to b.
func cw(a, b ID) ID { return (b - a) % RingSize }

// dist returns the numerical distance between a and b on the circle.
func dist(a, b ID) ID { return min(cw(a, b), cw(b, a)) }

// selectLeafset splits the candidate nodes around self into the right
// half (clockwise neighbours, closest first) and the left half
// (counter-clockwise neighbours, closest first), at most size/2 each.
// When all candidates fit in the leaf set they are split between the
// halves, the clockwise-closer half on the right, so that every node is on
// exactly one side and the right side starts with the successor.
// Candidates equal to self are ignored; duplicates count once.
func selectLeafset(self Handle, cands []Handle, size int) (left, right []Handle) {
	c := make([]Handle, 0, len(cands))
	for _, h := range cands {
		if h.Addr != self.Addr && !slices.ContainsFunc(c, func(x Handle) bool { return x.Addr == h.Addr }) {
			c = append(c, h)
		}
	}
	slices.SortFunc(c, func(a, b Handle) int {
		if d := cmp.Compare(cw(self.ID, a.ID), cw(self.ID, b.ID)); d != 0 {
			return d
		}
		return cmp.Compare(a.Addr, b.Addr)
	})
	k := len(c)
	nr, nl := size/2, size/2
	if k <= size {
		nr = (k + 1) / 2
		nl = k - nr
	}
	right = slices.Clone(c[:nr])
	left = slices.Clone(c[k-nl:])
	slices.Reverse(left)
	return left, right
}

func contains(hs []Handle, addr sim.NodeID) bool {
	return slices.ContainsFunc(hs, func(h Handle) bool { return h.Addr == addr })
}
