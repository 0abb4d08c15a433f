package engine

import "math/bits"

// HashMemo holds the hashes of the parts of one state, as Hash computes
// them: every node's struct, every monitor and every message and datagram
// in flight.
// A stateless search re-executes the same prefix again and again (seed 003
// §4.2); with SaveHashes and RestoreHashes it hashes each state's parts
// once, not once per replay. The zero HashMemo is empty and ready to use.
type HashMemo struct {
	nodes []uint64
	mons  []uint64
	where []int32 // per message in flight: its connection, or -1 for a datagram
	msgs  []uint64
	ok    bool
}

// SaveHashes records the hashes of the current state's parts in m,
// computing those not computed yet (as Hash would), reusing m's memory.
func (s *Sim) SaveHashes(m *HashMemo) {
	m.nodes, m.where, m.msgs = m.nodes[:0], m.where[:0], m.msgs[:0]
	for i := range s.w.nodes {
		nd := &s.w.nodes[i]
		if nd.dirty {
			nd.hash = s.hashNode(s.w.svcs[i])
			nd.dirty = false
		}
		m.nodes = append(m.nodes, nd.hash)
	}
	m.mons = m.mons[:0]
	for i := range s.w.mons {
		m.mons = append(m.mons, s.monitorHash(i))
	}
	s.eachInFlight(func(c int, p *pending) {
		m.where = append(m.where, int32(c))
		m.msgs = append(m.msgs, s.msgHash(p))
	})
	m.ok = true
}

// RestoreHashes tells the simulator that its current state is the state m
// was saved from, reached again by replaying the same choices (replay is
// deterministic), so that Hash need not encode its parts again until they
// change. The caller vouches for that: hashes restored onto another state
// make Hash wrong. RestoreHashes checks what it cheaply can (the number of
// nodes, where each message in flight is) and returns false, changing
// nothing, when that does not match.
func (s *Sim) RestoreHashes(m *HashMemo) bool {
	if !m.ok || len(m.nodes) != len(s.w.nodes) || len(m.mons) != len(s.w.mons) {
		return false
	}
	n := 0
	match := true
	s.eachInFlight(func(c int, _ *pending) {
		if n >= len(m.where) || m.where[n] != int32(c) {
			match = false
		}
		n++
	})
	if !match || n != len(m.where) {
		return false
	}
	for i := range s.w.nodes {
		s.w.nodes[i].hash, s.w.nodes[i].dirty = m.nodes[i], false
	}
	for i := range s.w.mons {
		s.w.mons[i].hash, s.w.mons[i].dirty = m.mons[i], false
	}
	i := 0
	s.eachInFlight(func(_ int, p *pending) {
		p.hash = m.msgs[i]
		i++
	})
	return true
}

// eachInFlight calls f for every message in flight in a fixed order: each
// busy connection's queue in connection order (f gets the connection's
// index), then the datagrams (f gets -1).
func (s *Sim) eachInFlight(f func(c int, p *pending)) {
	for wi, word := range s.w.busy {
		for word != 0 {
			c := wi<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			q := &s.w.conns[c]
			for j := q.head; j < len(q.items); j++ {
				f(c, &q.items[j])
			}
		}
	}
	for d := range s.w.dgrams {
		f(-1, &s.w.dgrams[d])
	}
}
