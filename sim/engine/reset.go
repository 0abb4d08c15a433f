package engine

import "github.com/macemc/macemc/sim"

// Reset brings the simulator back to its config's initial state, as New
// would build it, reusing its buffers, and goes on with chooser c. The
// bounded search re-executes every path from the initial state (seed 003
// §4.2, stateless search); Reset makes that cheap.
func (s *Sim) Reset(c Chooser) error {
	s.chooser = c
	w := &s.w
	for i := range w.conns {
		w.conns[i].clear()
	}
	clear(w.busy)
	clear(w.dgrams)
	w.dgrams = w.dgrams[:0]
	w.monotone, w.step, w.resets, w.breaks, w.drops = 0, 0, 0, 0, 0
	w.choices, w.stepStarts = w.choices[:0], w.stepStarts[:0]
	w.lastEvent = Event{}
	clear(w.shared)
	w.shared = w.shared[:0]
	s.resetHistory()
	s.readyValid = false
	s.err = nil
	s.booting = true // the initial state: causes are -1
	for i := range w.nodes {
		s.initNode(sim.NodeID(i))
	}
	s.initMonitors()
	return s.boot()
}
