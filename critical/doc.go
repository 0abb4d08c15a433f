// Package critical finds the critical transition of a suspected liveness
// violation: seed 003's FindCriticalTransition (Algorithm 3, §3.2).
//
// The input is an execution E, given as its recorded choices, that from
// state d_init on never reached a live state within d_max steps. "State i"
// is E's state after i transitions. Recovers(E, i, k) runs up to k random
// walks from state i, each until the execution has d_max steps in all, and
// says whether any reached a live state (all liveness properties hold)
// after i: the state is then transient, otherwise it is believed dead.
//
// Find searches E in two phases. Phase 1 probes d_init; if no walk
// recovers, the answer is (d_init, C2): either the critical transition is
// at d_init or, more likely, d_max is too low. Otherwise it doubles d_curr
// while Recovers holds; once d_curr > d_max/2 the answer is (d_curr, C2):
// no dead state was found early enough, so raise d_max, and if that does
// not help suspect a transient-state violation (lasso detection). Phase 2
// binary-searches between d_prev, the highest recoverable state, and
// d_curr, the lowest dead one, until they are adjacent: the answer is
// (d_curr, C1), and the critical transition is transition d_curr, the
// event that took E from state d_curr-1 to state d_curr.
//
// Deviation: with d_init = 0 doubling would stay at 0, so each doubling is
// d_curr = max(2·d_curr, 1); the first probes are then 0, 1, 2, 4, ...
//
// Besides the step and condition, Find returns the live alternative: among
// all live walks found, the one whose execution shares the longest prefix
// with E (usually the witness of the highest transient state), with the
// choices that replay it. The debugger diffs it against E.
//
// The cost is O(k · d_max · log d_crit) transitions. E is replayed once
// to check it and once more, incrementally, across all probes: each probe
// clones the snapshot of the highest recoverable state, replays forward to
// the probed state, and every walk starts from a Clone of that snapshot.
// A probe's walks run on Config.Workers goroutines; walk j of the probe at
// state i uses the seed WalkSeed(seed, i, j), walks are handed out in
// index order, and the witness is the lowest-index live walk, so the
// answer is the same for any number of workers.
//
// Walks keep E's simulator options: with FailuresUntil set ("gusto"),
// failures stay off in recovery walks, unless Config.WalkFailures turns
// them back on. A walk that breaks a safety property, or whose handler
// panics or hangs, counts as not recovering (Result.Unsafe notes it).
//
// Choosing k and d_max (seed 003 §4.4): k trades time against "near dead"
// states, from which some path recovers but none of the k walks found it;
// with k = 20 the critical transition is sometimes reported up to 2 steps
// early, with 60 it was not seen to be. If it is not obvious why the
// reported step is critical, raise k and re-run. d_max should exceed by a
// wide margin the steps a healthy system needs to reach a live state (the
// paper saw all its systems live by 10,000 steps and used 80,000); C2 is
// the signal to raise it.
//
// # Usage
//
//	t, _ := trace.Read("macemc-out/liveness.trace")
//	c, err := critical.FromTrace(t)
//	if err != nil { ... }
//	c.Walks, c.Seed = 60, 1
//	c.Progress = func(p critical.Probe) { fmt.Println("probe", p.Step, p.Recovers) }
//	res, err := critical.Find(c)
//	if err != nil { ... } // ErrNotDead, ErrReplay, ErrShort, ErrBadConfig
//	fmt.Println(res.Explain())
//	res.Annotate(t)
//	if res.Live != nil {
//		live := res.Live.Trace(t) // for mdb's side-by-side diff
//		_ = live.Write("macemc-out/live.trace")
//	}
//
// Recovers(c, i) runs a single probe.
package critical
