// Package lasso finds liveness violations that have no critical
// transition: hot, fair lassos (seed 000, Mudduluru et al., Lasso
// Detection using Partial-State Caching), and offers the temperature
// method it compares against.
//
// A transient-state violation, such as dining philosophers who all take
// their left fork, find the right one taken, put the left one back and try
// again forever, never enters a dead state: from every state of it some
// execution becomes live, so random walks recover and the critical
// transition search ends with condition C2. What shows the bug is a lasso:
// an execution that returns to a state it was in, such that the cycle
// between the two visits is hot (no state of it is live: the liveness
// properties, all together, never hold) and fair (nothing that could run
// is starved in it), so it can repeat forever.
//
// # Detection
//
// A Detector watches one walk as its walks.Observer (seed 000,
// Algorithms 1, 3 and 4). For every state from the first one it sees, it
// records the state's hash, the events enabled in it and the event that
// left it, and keeps a map from hash to step of the walk's own states (at
// most Options.MaxStates of them; the CLI caps it at the walk depth).
// When a hot state's hash equals that of an earlier state with no live
// state in between, the steps between form a candidate cycle; candidates
// are tried latest first. A candidate must end with the same events
// enabled as it started with, and be fair; then it is replayed
// Options.Replays times (RT, default 10) on a clone of the simulator from
// the state where it ends: every step must find the cycle's event enabled
// again (matched by kind, node, peer, timer and message type) and the
// handler's own choice points (Rand, Elapsed) the recorded answers, every
// state must be hot, the events enabled after each step must be those
// recorded, and each round must end at the start's hash. Only then is it
// a Finding. A failed replay discards the cycle (Stats.Discarded, seed
// 000's D) and leaves the walk untouched, since it ran on a clone.
//
// Fairness: failure events (resets, breaks, drops) never count. By default
// (SourceFairness) every event source enabled somewhere in the cycle must
// run in it: a node's driver, the connection from one node to another, a
// node's named timer, its connection errors, and with reordering each
// datagram in flight (datagrams that may arrive in any order are no FIFO
// queue: a cycle that delivers later datagrams on a path while one waits
// is not fair). Seed 000's definition,
// every node with an enabled event runs (NodeFairness), assumes one inbox
// per process; in this simulator a node has a FIFO queue per peer and its
// timers, and per-node fairness accepts a fork that answers one
// philosopher's retries forever while the other philosopher's Release
// waits: a lasso no fair network produces. A cycle must also be fair to
// time, per node: one in which a node asks Context.Elapsed and is told
// "not yet" at every one of its asks waits forever for a timeout, which no
// real execution does if the deadline is fixed (time passes), whatever
// another node's clock says, so it proves nothing. (If the deadline keeps
// moving, a heartbeat renewing it, the cycle may be real; the detector
// cannot tell, and counts it as unfair all the same.) Unfair hot cycles
// are counted (Stats.Unfair) and never reported.
//
// # Hashing
//
// Exact hashing (the default) compares engine.Sim.Hash, the canonical hash of
// every node's struct and of everything pending. A confirmed cycle then
// returns to exactly its start, which proves an infinite fair execution
// that never becomes live (up to a 64-bit hash collision): Finding.Proof.
//
// Some systems never repeat a state exactly: proposers outbid each other
// with ever larger ballots. Partial hashing (seed 000 §IV and Appendix C)
// compares only each node's service type and the kinds and message types
// of the pending events, never payloads; a service can say what partial
// hashing sees of it with a method
//
//	func (p *Proposer) LassoKey() any { return p.Phase }
//
// (the Keyer interface: its value is hashed instead of the service's
// type; leave out what grows without bound). Options.Key takes any
// projection func(*engine.Sim) uint64 instead (Custom). A partial lasso
// shows Replays repetitions, not an infinite execution: a counter that
// becomes live after 200 passes fools partial hashing for 10 rounds. With
// the Spin and Report actions (below) the walk goes on repeating the
// cycle to its step bound, which refutes such a cycle when the repetition
// breaks (Finding.Refuted).
//
// Only the head of each reliable connection's queue is visible through
// the simulator's API (engine.Sim.Ready), so PartialHash sees the queues
// behind it only through the number of messages in flight.
//
// # Actions
//
// On a confirmed lasso a detector can Stop the walk (Observe returns
// false: outcome walks.Stopped, the default, which is no violation),
// Continue it, Spin (take over the walk's chooser and repeat the cycle
// until the walk's bound, where it ends walks.Dead), or Report it. Report
// makes the finding the walk's verdict (Detector.Verdict, walks.Observer):
// the walk ends walks.Observed, a violation that search.Run commits in
// path order like any other, with the finding (a copy) in
// search.Violation.Observed and its Property as the violation's property.
// Before it ends, a reported lasso's walk repeats the cycle as Spin does,
// up to Options.Until (the walk's bound, d_max), so that the violation's
// path is the cycle unrolled to d_max, the execution the
// critical-transition search needs; a cycle that stops repeating is
// refuted and not reported, and the walk goes on at random. The macemc
// command uses Report for lassos and alarms.
//
// # Temperature
//
// With Options.Temperature = TT a detector also runs the temperature
// method (seed 000, Algorithm 2): a counter rises with every step into a
// hot state and drops to zero in a live one; reaching TT raises an alarm
// (a Finding of kind KindTemperature). The method needs no state, but its
// alarm shows no cycle and may be false: a slow but live system needs
// more than TT steps. With OnAlarm Continue the walk goes on and
// Finding.LiveAt tells when it did become live after all. With OnAlarm
// Report the walk goes on likewise, and ends Observed with the alarm as
// its verdict at its first live state (LiveAt set: a false alarm) or at
// Options.Until. Random walks
// rarely stay long in a livelock, so the temperature method finds the
// philosophers' livelock only with a low threshold, which in turn raises
// false alarms on slow systems.
//
// # Usage
//
// Watch walks, one detector each, through a Monitor:
//
//	m := lasso.NewMonitor(lasso.Options{})       // exact, RT = 10, Stop
//	for i := range 1000 {
//		s, _ := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(1, uint64(i)))})
//		walks.Walk(s, &walks.Config{MaxSteps: 500, Liveness: cfg.Liveness, Observe: m.Observer()})
//	}
//	for _, f := range m.Findings() {
//		fmt.Println(f.Stem, f.CycleLen, f.Note())
//	}
//
// In a search, hand m.Observer to search.Config.Observe, with OnLasso
// (and OnAlarm) Report and Until set to the walk depth, to have the search
// report the first lasso in path order as a violation:
//
//	m := lasso.NewMonitor(lasso.Options{OnLasso: lasso.Report, Until: 20000})
//	res, _ := search.Run(search.Config{System: cfg, WalkDepth: 20000, Observe: m.Observer})
//	if len(res.Violations) > 0 && res.Violations[0].Outcome == walks.Observed {
//		f := res.Violations[0].Observed.(*lasso.Finding)
//	}
//
// Look for a lasso in a recorded execution with Analyze, or in fresh walks
// from its end with WalkFrom. On the command line:
//
//	macemc search --system philosophers --lasso
//	macemc search --system proposers --lasso --partial-hash
//	macemc search --system philosophers --temperature 30
//
// A liveness violation whose critical-transition search ends in C2 is
// checked for a lasso too (its path, then walks from its end), so that the
// report gives both views.
//
// A Finding's Choices replay the execution to the end of the cycle's
// first round; state Stem is where the cycle starts and transitions
// Stem+1 .. Stem+CycleLen form it. Monitor.Findings orders findings as the
// search orders its paths: by the step at which their walk began, then by
// the walk's bounded path in depth-first order.
package lasso
