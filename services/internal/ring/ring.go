package ring

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Hash returns the identifier of bits bits (1 to 32) of the node at addr.
// As in a deployment, it is a hash of the node's address, so a node that
// restarts comes back with the same identifier.
func Hash(addr sim.NodeID, bits int) uint32 {
	h := uint32(addr)*0x9E3779B1 + 0x7F4A7C15
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return h >> (32 - bits)
}

// Distinct returns an error naming two of the nodes 0 to n-1 whose
// identifiers of bits bits collide, or nil if there are none.
func Distinct(n, bits int) error {
	seen := map[uint32]sim.NodeID{}
	for i := range n {
		id := Hash(sim.NodeID(i), bits)
		if j, dup := seen[id]; dup {
			return fmt.Errorf("nodes %d and %d hash to the same identifier %d", j, i, id)
		}
		seen[id] = sim.NodeID(i)
	}
	return nil
}

// Covers reports whether, from every node of v, following successor
// pointers (succ of the node's service, a *T) visits every node. It is
// false if some node's service is not a *T. v has at most 64 nodes.
func Covers[T any](v *sim.View, succ func(*T) sim.NodeID) bool {
	n := v.Len()
	all := uint64(1)<<uint(n) - 1
	for start := range n {
		var seen uint64
		cur := sim.NodeID(start)
		for range n {
			seen |= 1 << uint(cur)
			node := sim.Node[T](v, cur)
			if node == nil {
				return false
			}
			cur = succ(node)
		}
		if seen != all {
			return false
		}
	}
	return true
}
