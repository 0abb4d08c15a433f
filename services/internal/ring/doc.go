// Package ring holds what the two ring overlays among the example systems,
// chord and pastry, share: the identifiers they hash node addresses to,
// and the check that following successor pointers from any node visits
// every node. The arc and distance arithmetic stays with each overlay:
// chord asks whether a key lies in a clockwise arc, pastry how far apart
// two identifiers are, and the two answer different questions.
//
// # Usage
//
// An overlay gives its nodes identifiers by ring.Hash, checks at build
// time that they do not collide, and states its ring property with
// ring.Covers (as services/chord does):
//
//	func IDOf(addr sim.NodeID) ID { return ID(ring.Hash(addr, IDBits)) }
//	if err := ring.Distinct(n, IDBits); err != nil { ... }
//	ring.Covers(v, func(c *Chord) sim.NodeID { return c.Succ.Addr })
package ring
