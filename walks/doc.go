// Package walks runs random walks: the tail of seed 003's Algorithm 2
// (MaceMC_Simulator). From the periphery of the bounded search, a walk
// keeps choosing events with the simulator's chooser (weighted by default,
// "biased walks" §4.3) until the system reaches a live state beyond the
// search depth, breaks a safety property, falls quiescent, or reaches
// d_max steps, which makes it a suspected liveness violation.
//
// The same walks serve the critical-transition search (Recovers) and
// `macemc tune` (steps to the first live state).
//
// # Usage
//
//	s, _ := sim.New(cfg, sim.Options{Chooser: sim.NewRandom(walks.SeedFor(seed, 0))})
//	r := walks.Walk(s, &walks.Config{MaxSteps: 20000, LiveAfter: 5,
//		Safety: cfg.Safety, Liveness: cfg.Liveness})
//	if r.Outcome == walks.Dead { ... suspected liveness violation ... }
package walks
