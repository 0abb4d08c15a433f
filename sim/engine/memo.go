package engine

// HashMemo holds the hashes of the parts of one state, as Hash computes
// them: every node's struct and part, every monitor, every message and
// datagram in flight, every busy connection's part, and their sums.
// A stateless search re-executes the same prefix again and again (seed 003
// §4.2); with SaveHashes and RestoreHashes it hashes each state's parts
// once, not once per replay. The zero HashMemo is empty and ready to use.
type HashMemo struct {
	nodes []uint64 // struct hashes, by node
	parts []uint64 // node parts, by node
	mons  []uint64
	// Where the messages in flight are: each busy connection, in
	// connection order, with the number of messages it holds, then the
	// number of datagrams. Performance: RestoreHashes checks the state
	// against this per connection, not per message.
	busy   []int32
	counts []int32
	dgrams int
	msgs   []uint64 // every message in flight, in eachInFlight's order
	conns  []uint64 // the part of each busy connection, in connection order
	sums   [3]uint64
	ok     bool
}

// SaveHashes records the hashes of the current state's parts in m,
// computing those not computed yet (as Hash would), reusing m's memory.
func (s *Sim) SaveHashes(m *HashMemo) {
	s.refresh()
	hs := &s.w.hs
	m.nodes, m.busy, m.counts, m.msgs, m.conns = m.nodes[:0], m.busy[:0], m.counts[:0], m.msgs[:0], m.conns[:0]
	for i := range s.w.nodes {
		m.nodes = append(m.nodes, s.w.nodes[i].hash)
	}
	m.parts = append(m.parts[:0], hs.parts...)
	m.mons = m.mons[:0]
	for i := range s.w.mons {
		m.mons = append(m.mons, s.monitorHash(i))
	}
	for c := range members(s.w.busy, nil) {
		q := &s.w.conns[c]
		m.busy = append(m.busy, int32(c))
		m.counts = append(m.counts, int32(q.len()))
		m.conns = append(m.conns, q.part)
		for j := q.head; j < len(q.items); j++ {
			m.msgs = append(m.msgs, s.msgHash(&q.items[j]))
		}
	}
	m.dgrams = len(s.w.dgrams)
	for d := range s.w.dgrams {
		m.msgs = append(m.msgs, s.msgHash(&s.w.dgrams[d]))
	}
	m.sums = [3]uint64{hs.nodes, hs.conns, hs.dgrams}
	m.ok = true
}

// RestoreHashes tells the simulator that its current state is the state m
// was saved from, reached again by replaying the same choices (replay is
// deterministic), so that Hash need not encode or combine its parts again
// until they change. The caller vouches for that: hashes restored onto
// another state make Hash wrong. RestoreHashes checks what it cheaply can
// (the number of nodes, where each message in flight is) and returns
// false, changing nothing, when that does not match.
func (s *Sim) RestoreHashes(m *HashMemo) bool {
	if !m.ok || len(m.nodes) != len(s.w.nodes) || len(m.mons) != len(s.w.mons) || m.dgrams != len(s.w.dgrams) {
		return false
	}
	// The busy connections and their lengths, against the memo's.
	k := 0
	for c := range members(s.w.busy, nil) {
		if k >= len(m.busy) || m.busy[k] != int32(c) || m.counts[k] != int32(s.w.conns[c].len()) {
			return false
		}
		k++
	}
	if k != len(m.busy) {
		return false
	}
	for i := range s.w.nodes {
		s.w.nodes[i].hash, s.w.nodes[i].dirty = m.nodes[i], false
	}
	for i := range s.w.mons {
		s.w.mons[i].hash, s.w.mons[i].dirty = m.mons[i], false
	}
	hs := &s.w.hs
	copy(hs.parts, m.parts)
	clear(hs.touched)
	// A connection whose part is not 0 is busy or stale: the stale ones
	// that are not busy now are empty, with part 0.
	for c := range members(hs.stale, nil) {
		s.w.conns[c].part = 0
	}
	clear(hs.stale)
	msgs := m.msgs
	for k, c := range m.busy {
		q := &s.w.conns[c]
		q.part = m.conns[k]
		items := q.items[q.head:]
		for j := range items {
			items[j].hash = msgs[j]
		}
		msgs = msgs[len(items):]
	}
	for d := range s.w.dgrams {
		s.w.dgrams[d].hash = msgs[d]
	}
	hs.nodes, hs.conns, hs.dgrams = m.sums[0], m.sums[1], m.sums[2]
	hs.fresh, hs.dgStale = 0, false
	return true
}

// eachInFlight calls f for every message in flight in a fixed order: each
// busy connection's queue in connection order (f gets the connection's
// index), then the datagrams (f gets -1).
func (s *Sim) eachInFlight(f func(c int, p *pending)) {
	for c := range members(s.w.busy, nil) {
		q := &s.w.conns[c]
		for j := q.head; j < len(q.items); j++ {
			f(c, &q.items[j])
		}
	}
	for d := range s.w.dgrams {
		f(-1, &s.w.dgrams[d])
	}
}
