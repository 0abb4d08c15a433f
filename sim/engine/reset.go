package engine

// Reset brings the simulator back to its config's initial state, as New
// would build it, reusing its buffers, and goes on with chooser c. The
// bounded search re-executes every path from the initial state (seed 003
// §4.2, stateless search); Reset makes that cheap.
func (s *Sim) Reset(c Chooser) error {
	s.chooser = c
	w := &s.w
	// Only busy connections hold messages and only busy or stale ones
	// have a part in the hash that is not 0 (see hashState): empty those,
	// without visiting every connection.
	for c := range members(w.busy, w.hs.stale) {
		w.conns[c].clear()
		w.conns[c].part = 0
	}
	clear(w.busy)
	clear(w.dgrams)
	w.dgrams = w.dgrams[:0]
	w.monotone, w.step, w.resets, w.breaks, w.drops = 0, 0, 0, 0, 0
	w.crashes, w.dups, w.partitions, w.cut, w.down = 0, 0, 0, 0, 0
	w.choices, w.stepStarts = w.choices[:0], w.stepStarts[:0]
	w.salt, w.saltN = 0, 0
	clear(s.sent)
	s.sent = s.sent[:0]
	w.settings = append(w.settings[:0], setting{failures: s.failures, until: s.until})
	w.lastEvent = Event{}
	s.rehash()
	clear(w.shared)
	w.shared = w.shared[:0]
	clear(w.global)
	w.global = w.global[:0]
	s.resetHistory()
	s.readyValid, s.listOK = false, false
	s.err, s.stepErr, s.broken, s.prevSvc, s.encErr = nil, nil, nil, nil, nil
	if s.escape.Load() != nil {
		s.escape.Store(nil)
	}
	s.booting = true // the initial state: causes are -1
	for i := range w.nodes {
		w.nodes[i].down = false
		w.ext[i] = nodeExt{}
	}
	if err := s.initNodes(); err != nil {
		s.breaks(err)
		return err
	}
	s.initMonitors()
	if err := s.boot(); err != nil {
		s.breaks(err)
		return err
	}
	return nil
}
