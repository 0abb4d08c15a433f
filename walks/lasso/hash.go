package lasso

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Hashing says by which hash lasso detection recognises a repeated state.
type Hashing int

// The hashings.
const (
	// Exact compares engine.Sim.Hash: the canonical hash of every node's
	// struct and of everything pending. A confirmed cycle then returns to
	// exactly the state it started from, which proves an infinite
	// execution (up to a 64-bit hash collision).
	Exact Hashing = iota
	// Partial compares PartialHash: each node's service type (or its
	// LassoKey) and the kinds and message types of the pending events,
	// never payloads or counters (seed 000 §IV, Appendix C). Use it for
	// systems whose exact state never repeats, such as proposers that
	// outbid each other with ever larger numbers. Replay makes up for the
	// imprecision, but only up to Options.Replays repetitions.
	Partial
	// Custom compares Options.Key, a projection of the user's own.
	Custom
)

// String returns "exact", "partial" or "custom".
func (h Hashing) String() string {
	switch h {
	case Exact:
		return "exact"
	case Partial:
		return "partial"
	case Custom:
		return "custom"
	}
	return fmt.Sprintf("hashing(%d)", int(h))
}

// Keyer lets a service say what partial hashing sees of it: PartialHash
// hashes LassoKey's value (with engine.Hash, so any plain value will do)
// instead of just the service's type. Return the part of the state that
// identifies "where the node is" in its protocol, such as its phase, and
// leave out what grows without bound (counters, ballots, logs):
//
//	func (p *Proposer) LassoKey() any { return p.Phase }
//
// The key matters only with Partial hashing; exact hashing always hashes
// the whole struct.
type Keyer interface {
	LassoKey() any
}

// PartialHash is the default partial hash (seed 000 §IV): for every node,
// its service type, or the hash of its LassoKey when it implements Keyer;
// for every pending event that is not a failure, its kind, node, peer,
// timer name and message type (not the message's contents); and the
// number of messages in flight. Only the head of each reliable
// connection's queue is visible through the simulator's API (Ready), so
// queued messages behind it count only through the number in flight.
func PartialHash(s *engine.Sim) uint64 {
	h := uint64(0x6c6173736f)
	for id := range s.Nodes() {
		svc := s.Service(sim.NodeID(id))
		if k, ok := svc.(Keyer); ok {
			h = mix(h, engine.Hash(k.LassoKey()))
		} else {
			h = mix(h, typeSig(reflect.TypeOf(svc)))
		}
	}
	for _, ev := range s.Ready() {
		if ev.Kind.IsFailure() {
			continue
		}
		h = mix(h, Signature(ev))
	}
	return mix(h, uint64(s.InFlight()))
}

// Signature identifies an event by what partial hashing and replay compare:
// its kind, node, peer, timer name and message type, not the message's
// contents. Failure events are identified the same way but never take
// part in a cycle.
func Signature(ev engine.Event) uint64 {
	h := mix(uint64(ev.Kind)+1, uint64(ev.Node)+1)
	switch ev.Kind {
	case engine.EvTimer:
		h = mix(h, xxhash.Sum64String(ev.Timer))
	case engine.EvApp:
		h = mix(h, typeSig(reflect.TypeOf(ev.Msg)))
	case engine.EvMessage, engine.EvDatagram, engine.EvDrop:
		h = mix(mix(h, uint64(ev.Peer)+1), typeSig(reflect.TypeOf(ev.Msg)))
	default:
		h = mix(h, uint64(ev.Peer)+1)
	}
	return h
}

var typeSigs sync.Map // reflect.Type -> uint64

func typeSig(t reflect.Type) uint64 {
	if t == nil {
		return 1
	}
	if v, ok := typeSigs.Load(t); ok {
		return v.(uint64)
	}
	v := xxhash.Sum64String(t.PkgPath() + "." + t.String())
	typeSigs.Store(t, v)
	return v
}

// enabledSet returns an order-free hash of the signatures of s's ready
// events that are not failures, and calls each with every such event.
func enabledSet(s *engine.Sim, each func(engine.Event)) uint64 {
	var sum uint64
	for _, ev := range s.Ready() {
		if ev.Kind.IsFailure() {
			continue
		}
		sum += mix(Signature(ev), 0x656e)
		if each != nil {
			each(ev)
		}
	}
	return sum
}

// mix combines hashes in order.
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	return h * 0xff51afd7ed558ccd
}
