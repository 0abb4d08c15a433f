package engine

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/macemc/macemc/sim"
)

// The global state's hash (Sim.Hash) is kept up to date incrementally: a
// search hashes every state it reaches, and most steps change one node and
// a connection or two. The state is cut into parts: each node (its struct,
// driver position, armed timers, connection errors, crash, restarts and
// random stream), each connection's queue, the datagrams in flight, the
// monitors, the client history and the failure budgets used. A part's
// hash includes its position (node id, connection index), and the parts of
// the nodes and of the connections are each summed (mod 2^64): a sum does
// not depend on the order of its terms, so a part that changes is taken
// out of it and put back in without touching the others, and the sum of
// equal parts is equal whatever the history that led to them. Only the
// parts a step touched are hashed again: a node whose handler ran or whose
// pending events changed, a connection that got or lost a message; a
// node's struct and a message are encoded only when they changed (a
// message once, when first hashed). With reordering the datagrams in
// flight are a multiset, summed the same way as they come and go; without
// it they are a sequence, hashed again when it changes.

// hashState is the bookkeeping of the incremental hash. It is part of the
// world, so that a deep copy has it. Invariants (between steps): nodes is
// the sum of parts; conns is the sum of the connections' queue.part, and
// a connection whose part is not 0 is busy or stale; with reordering,
// dgrams is the sum of dgramPart over the datagrams but the last fresh
// ones. A part that a step made wrong is stale: a bit in touched for a
// node, in stale for a connection, dgStale for the datagrams without
// reordering.
type hashState struct {
	nodes   uint64
	parts   []uint64 // by node
	touched []uint64 // bit i: node i's part is stale
	conns   uint64
	stale   []uint64 // bit c: connection c's part is stale
	dgrams  uint64
	fresh   int
	dgStale bool
}

// Seeds of the parts' hashes, so that parts of different kinds differ.
const (
	seedState  = 0x6d61636563
	seedNode   = 0x6e6f6465
	seedConn   = 0x636f6e6e
	seedDgram  = 0x6467726d
	seedDown   = 0x646f776e
	seedRest   = 0x72657374
	seedMon    = 0x6d6f6e
	seedHist   = 0x68697374
	seedBudget = 0x62756467
	seedFaults = 0x6661756c
	seedHidden = 0x68696464
	seedMono   = 0x6d6f6e6f
)

// initHashState sizes the bookkeeping for n nodes, every part stale.
func (s *Sim) initHashState() {
	hs := &s.w.hs
	hs.parts = make([]uint64, s.n)
	hs.touched = make([]uint64, (s.n+63)/64)
	hs.stale = make([]uint64, (s.n*s.n+63)/64)
	s.rehash()
}

// rehash makes every part stale, so that the next Hash computes the whole
// state's hash afresh (the encodings of nodes and messages that did not
// change are kept: see forget), and sums the nodes' armed timers afresh.
func (s *Sim) rehash() {
	hs := &s.w.hs
	hs.nodes = 0
	clear(hs.parts)
	for i := range s.w.nodes {
		nd := &s.w.nodes[i]
		nd.armedSum = 0
		for t := range nd.timers {
			if tm := &nd.timers[t]; tm.armed {
				nd.armedSum += tm.term()
			}
		}
	}
	for i := range hs.touched {
		hs.touched[i] = ^uint64(0)
	}
	trim(hs.touched, s.n)
	hs.conns = 0
	// Only a busy or stale connection has a part that is not 0.
	for c := range members(hs.stale, s.w.busy) {
		s.w.conns[c].part = 0
	}
	copy(hs.stale, s.w.busy)
	hs.dgrams, hs.fresh, hs.dgStale = 0, len(s.w.dgrams), false
}

// trim clears the bits of set from n on.
func trim(set []uint64, n int) {
	if r := n & 63; r != 0 {
		set[len(set)-1] &= 1<<r - 1
	}
}

// forget drops every cached encoding (node structs, messages, monitors) and
// makes every part stale: the next Hash encodes the whole state.
func (s *Sim) forget() {
	for i := range s.w.nodes {
		s.w.nodes[i].dirty = true
	}
	for i := range s.w.mons {
		s.w.mons[i].dirty = true
	}
	s.eachInFlight(func(_ int, p *pending) { p.hash = 0 })
	s.rehash()
}

// touch marks node id's part stale (its struct is not re-encoded unless
// it is dirty too).
func (s *Sim) touch(id sim.NodeID) { s.w.hs.touched[id>>6] |= 1 << (id & 63) }

// HashVersion names how Hash reads a state. Equal versions give equal
// hashes of equal states in every build and process, which traces rely on
// (their recorded state hashes, sim/trace); it changes whenever a change to
// hashing changes the hash of some state.
const HashVersion = 3

// Hash returns the 64-bit hash of the global state: every node's struct,
// every monitor (sim.Monitor) and every pending event (messages on each
// connection in order, datagrams as a multiset with reordering and as a
// sequence without, timers, driver positions, connection errors), the
// failure budget used, crashed nodes, restarted nodes, the random streams'
// positions, Monotone's counter (the values it hands out next depend on
// it, even when no node kept the ones before), the partition, and the
// client history's canonical form (HistoryHash). Equal states hash equal
// whatever the executions that reached them, in every process. Only the
// parts a step changed are hashed again, and only nodes that ran a handler
// and messages not hashed before are encoded. The step count is not part
// of it.
// A node or message too large to encode (see HashErr) makes the hash
// untrustworthy.
func (s *Sim) Hash() uint64 {
	s.refresh()
	hs := &s.w.hs
	// Every term is finalized and tagged with its kind and position (or
	// is a sum of such terms): adding them loses nothing.
	sum := hs.nodes + hs.conns + fmix(hs.dgrams^seedDgram)
	for i := range s.w.mons {
		sum += fmix(mix(seedMon+uint64(i), s.monitorHash(i)))
	}
	if len(s.w.hist) > 0 {
		sum += fmix(s.w.histHash ^ seedHist)
	}
	if b := uint64(s.w.resets)<<42 | uint64(s.w.breaks)<<21 | uint64(s.w.drops); b != 0 {
		sum += fmix(b ^ seedBudget)
	}
	if s.w.crashes|s.w.dups|s.w.partitions != 0 || s.w.cut != 0 {
		b := uint64(s.w.crashes)<<42 | uint64(s.w.dups)<<21 | uint64(s.w.partitions)
		sum += fmix(mix(b^seedFaults, s.w.cut))
	}
	if s.w.monotone != 0 {
		sum += fmix(s.w.monotone ^ seedMono)
	}
	if hiddenSeen.Load() && s.holdsHidden() {
		return s.salted(fmix(sum + seedState))
	}
	return fmix(sum + seedState)
}

// hiddenSeen is set once any value hashed in the process held what hashing
// cannot read: until then Hash need not look for such values (see
// holdsHidden). It changes how long Hash takes, never what it returns.
var hiddenSeen atomic.Bool

// holdsHidden reports whether the current state holds what hashing cannot
// read: a node, monitor or message in flight whose cached hash has its
// hidden bit set (bit 0 of a node's or monitor's, bit 1 of a message's, bit
// 0 marking it hashed), as stateHash found when it encoded the value. The
// bits travel with the hashes (HashMemo, copies), so the answer depends on
// the state alone. Called after refresh: every cached hash is current.
func (s *Sim) holdsHidden() bool {
	for i := range s.w.nodes {
		if s.w.nodes[i].hash&1 != 0 {
			return true
		}
	}
	for i := range s.w.mons {
		if s.monitorHash(i)&1 != 0 {
			return true
		}
	}
	found := false
	s.eachInFlight(func(_ int, p *pending) { found = found || s.msgHash(p)&2 != 0 })
	return found
}

// HiddenState describes the first value of the current state (nodes,
// monitors, messages in flight) that holds state no hash can read, e.g.
// "node 1 (*chq.Elector) holds a closure chq.(*Elector).HandleMessage.func1":
// what a function literal captured (a closure kept in a node's struct or
// sent in a message), or a channel's buffer on a Go release whose channel
// layout the engine was not checked against. "" when there is none.
//
// Two states that differ only in what hashing cannot read would hash
// equal, and a search would cut a path that was new. So the Hash of such a
// state is the hash of this execution's state alone: the state's hash mixed
// with every choice made so far. A search then cuts no path at such a state
// (as with --no-hashing), and stays right at the cost of repeated work;
// replays of the same choices still hash equal.
// Tag a field `macemc:"-"` when what it holds is no state (a logger's
// hook, a comparison function), or give its type a canonical form
// (sim.RegisterCanonical), and the search prunes again. A bound method
// (n.tick = n.tickElection) is no hidden state: it is hashed as its
// method, its receiver taken to be reachable from the state.
func (s *Sim) HiddenState() string {
	s.refresh()
	if !hiddenSeen.Load() || !s.holdsHidden() {
		return ""
	}
	for i, svc := range s.w.svcs {
		if s.w.nodes[i].hash&1 != 0 {
			s.stateHash(svc, true)
			return fmt.Sprintf("node %d (%T) holds %s", i, svc, s.lastHidden)
		}
	}
	for i := range s.w.mons {
		if s.monitorHash(i)&1 != 0 {
			s.stateHash(s.w.mons[i].m, false)
			return fmt.Sprintf("monitor %d (%T) holds %s", i, s.w.mons[i].m, s.lastHidden)
		}
	}
	what := ""
	s.eachInFlight(func(_ int, p *pending) {
		if what == "" && s.msgHash(p)&2 != 0 {
			s.stateHash(p.msg, true)
			what = fmt.Sprintf("the %s from node %d to node %d holds %s", sim.MessageName(p.msg), p.from, p.to, s.lastHidden)
		}
	})
	return what
}

// salted mixes h with the execution's choices (see HiddenState), hashing
// only the choices made since its last call.
func (s *Sim) salted(h uint64) uint64 {
	w := &s.w
	if w.saltN > len(w.choices) {
		w.salt, w.saltN = 0, 0
	}
	for _, c := range w.choices[w.saltN:] {
		w.salt = step(w.salt, uint64(c.Kind)<<56|uint64(uint32(c.N))<<24^uint64(uint32(c.Value)))
	}
	w.saltN = len(w.choices)
	return fmix(h ^ fmix(w.salt+seedHidden))
}

// refresh brings every stale part up to date.
func (s *Sim) refresh() {
	hs := &s.w.hs
	// Performance: the step loop's; the loops over the sets are written
	// out (members costs a walk with hashing 4-7% here).
	for wi, word := range hs.touched {
		if word == 0 {
			continue
		}
		hs.touched[wi] = 0
		for ; word != 0; word &= word - 1 {
			i := wi<<6 | bits.TrailingZeros64(word)
			p := s.nodePart(i)
			hs.nodes += p - hs.parts[i]
			hs.parts[i] = p
		}
	}
	for wi, word := range hs.stale {
		if word == 0 {
			continue
		}
		hs.stale[wi] = 0
		for ; word != 0; word &= word - 1 {
			c := wi<<6 | bits.TrailingZeros64(word)
			q := &s.w.conns[c]
			p := s.connPart(c, q)
			hs.conns += p - q.part
			q.part = p
		}
	}
	if hs.dgStale {
		hs.dgrams, hs.fresh, hs.dgStale = 0, len(s.w.dgrams), false
	}
	if hs.fresh > 0 {
		d := s.w.dgrams[len(s.w.dgrams)-hs.fresh:]
		for i := range d {
			if p := s.dgramPart(&d[i]); s.reorder {
				hs.dgrams += p
			} else {
				hs.dgrams = mix(hs.dgrams, p)
			}
		}
		hs.fresh = 0
	}
}

// nodePart hashes node i's part: its struct (encoded again if dirty) and
// its pending events and counters.
func (s *Sim) nodePart(i int) uint64 {
	nd := &s.w.nodes[i]
	if nd.dirty {
		nd.hash = s.hashNode(s.w.svcs[i])
		nd.dirty = false
	}
	// Performance: what is not the struct is hashed by rounds of its
	// own, which need not wait for the struct's hash; the struct's hash
	// (finalized) is put in last.
	h := step(seedNode+uint64(i), uint64(nd.appNext))
	h = step(h, nd.armedSum) // the armed timers (timer.term)
	for _, p := range nd.connErrs {
		h = step(h, uint64(p)+1)
	}
	if nd.down {
		h = step(h, seedDown)
	}
	if e := &s.w.ext[i]; e.restarts|int(e.draws) != 0 {
		if e.restarts > 0 {
			h = step(h, seedRest)
		}
		h = step(h, e.draws)
	}
	return fmix(h ^ nd.hash)
}

// connPart hashes connection c's queue: its messages in order (0 for an
// empty queue).
func (s *Sim) connPart(c int, q *queue) uint64 {
	if q.len() == 0 {
		return 0
	}
	h := seedConn + uint64(c)
	for j := q.head; j < len(q.items); j++ {
		h = mix(h, s.msgHash(&q.items[j]))
	}
	return fmix(h)
}

// dgramPart hashes a datagram in flight: its ends and its message.
func (s *Sim) dgramPart(p *pending) uint64 {
	return fmix(mix(seedDgram+uint64(p.from)<<32+uint64(p.to), s.msgHash(p)))
}

// removeDatagram takes datagram d out of flight.
func (s *Sim) removeDatagram(d int) {
	dg := s.w.dgrams
	if hs := &s.w.hs; d >= len(dg)-hs.fresh {
		hs.fresh-- // not in the hash yet
	} else {
		s.unhash(d)
	}
	copy(dg[d:], dg[d+1:])
	dg[len(dg)-1] = pending{}
	s.w.dgrams = dg[:len(dg)-1]
}

// unhash takes datagram d, which is in the datagrams' hash, out of it.
func (s *Sim) unhash(d int) {
	if s.reorder {
		s.w.hs.dgrams -= s.dgramPart(&s.w.dgrams[d])
	} else {
		s.w.hs.dgStale = true
	}
}

// StructHash returns the hash of node id's struct as Hash reads it (the
// fields its canonical encoding holds, what NodeText shows of it), or with
// monitor set of monitor id's (MonitorText). Two states whose texts agree
// and whose StructHash does not differ where the text does not show: a
// text cut at its bounds, a String or MarshalText method that shows less
// than the value holds. The debugger's diff tells such nodes apart from
// those that are the same.
func (s *Sim) StructHash(id int, monitor bool) uint64 {
	s.refresh()
	if monitor {
		return s.monitorHash(id)
	}
	return s.w.nodes[id].hash
}
