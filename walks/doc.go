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
// # Observers
//
// Config.Observe takes an Observer that watches every state of the walk
// and may end it: Observe returns false, and Verdict says why. A verdict
// (a property name and a detail, e.g. a lasso.Finding) makes the outcome
// Observed, a violation like Dead or Unsafe: search.Run reports it in path
// order like any other, with the detail in search.Violation.Observed.
// Without a verdict the walk ends Stopped, which is no violation (the
// critical-transition search stops walks that way when another walk was
// live). ObserveFunc turns a plain function into an Observer without
// verdicts.
//
// # Usage
//
//	s, _ := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(seed, 0))})
//	r := walks.Walk(s, &walks.Config{MaxSteps: 20000, LiveAfter: 5,
//		Safety: cfg.Safety, Liveness: cfg.Liveness})
//	if r.Outcome == walks.Dead { ... suspected liveness violation ... }
//
// A walk steps the simulator it is given, so a second walk on s continues
// from where the first ended; for a walk from the initial state, make a new
// simulator (or s.Reset with a new chooser):
//
//	s2, _ := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(seed, 1))})
//	m := lasso.NewMonitor(lasso.Options{OnLasso: lasso.Report})
//	r = walks.Walk(s2, &walks.Config{MaxSteps: 20000, Liveness: cfg.Liveness, Observe: m.Observer()})
//	if r.Outcome == walks.Observed { f := r.Observed.(*lasso.Finding); ... }
package walks
