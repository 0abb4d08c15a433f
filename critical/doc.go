// Package critical finds the critical transition of a suspected liveness
// violation — seed 003's FindCriticalTransition (Algorithm 3, §3.2) —
// confirms it with many more walks, and reduces the path that leads to it
// to a 1-minimal doomed path by delta debugging.
//
// The input is an execution E, given as its recorded choices, that from
// state d_init on never reached a live state within d_max steps. "State i"
// is E's state after i transitions. Recovers(E, i, k) runs up to k random
// walks from state i, each until the execution has d_max steps in all, and
// says whether any reached a live state (all liveness properties hold),
// state i itself included (a live state reaches one in no steps): the
// state is then transient, otherwise it is believed dead.
//
// Find searches E in two phases. Phase 1 probes d_init; if no walk
// recovers, Algorithm 3 answers (d_init, C2): either the critical
// transition is at d_init or, more likely, d_max is too low. Otherwise it
// doubles d_curr while Recovers holds; once d_curr > d_max/2 the answer is
// (d_curr, C2): no dead state was found early enough, so raise d_max, and
// if that does not help suspect a transient-state violation (lasso
// detection). Phase 2 binary-searches between d_prev, the highest
// recoverable state, and d_curr, the lowest dead one, until they are
// adjacent: the answer is (d_curr, C1), and the critical transition is
// transition d_curr, the event that took E from state d_curr-1 to state
// d_curr.
//
// # Deviations from the paper
//
// Each is an addition that moves the answer only to a state the evidence
// supports; the measurements are those of scripts/critical_sweep.sh over
// seeds 1-50 of the paper's systems (README).
//
//   - With d_init = 0 doubling would stay at 0, so each doubling is
//     d_curr = max(2·d_curr, 1); the first probes are then 0, 1, 2, 4, ...
//   - A quiescent end. When E fell quiescent without a live state at
//     most d_max/2 steps in, every state past its end is dead for certain
//     (nothing can happen again), so a d_curr past it counts as dead even
//     beyond d_max/2, where Algorithm 3 would answer C2 ("raise d_max"),
//     and the binary search below it probes only states at most d_max/2
//     in, whose walks are as long as Algorithm 3 wants them. A trial's
//     path doomed at step 6001 and quiescent at 6003 got C2 at 10240 with
//     d_max 20,000; it now gets C1 at 6001.
//   - Below d_init. Liveness is never checked inside the bounded search
//     (seed 003 §3.1), so E may become dead there, and then no walk
//     recovers from d_init: Algorithm 3's line 2 answers C2 although the
//     answer is a C1 inside the prefix. Find then binary-searches E's own
//     prefix between its last state known not to be dead — its last live
//     state, or state 0 when walks recover from it — and d_init
//     (Result.Below). The old command line instead re-ran Algorithm 3 from
//     d_init = 0, which fails whenever E is live inside the prefix (its
//     precondition, E non-live from d_init on, no longer holds) and probes
//     beyond d_init again. Measured over seeds 1-50 of the seven example
//     systems with a dead state: line 2 fired in 128 of 350 runs (storage
//     50, failuredetector 39, scheduler 30, randtree 9); the search below
//     d_init names the paper's event in each.
//   - Confirmation. Seed 003 §4.4: with k = 20 a "near dead" state, from
//     which few walks recover, is sometimes taken for dead and the
//     critical transition is reported a step or two early. Measured, with
//     200 to 400 walks per state: transport seed 10's state 9 (after a
//     stale ACK 2001) recovers in 14% of walks, chord seed 7's state 8 in
//     4.5%, storage seed 3's state 3 in 12%, scheduler seed 1's state 5 in
//     2.8%; k = 20 walks all fail there with probability 4%, 40%, 8% and
//     57%. These were the remaining misses of the sweep (transport 5 of
//     50, chord 8, storage 5, scheduler 29). Find therefore confirms every C1 candidate
//     c with a sample of up to ConfirmWalks walks within ConfirmBudget
//     transitions (600 walks and 60 walks of d_max by default),
//     stopping at the first that recovers. If one does, or
//     the live alternative passes through c, c was near dead: it becomes
//     the highest recoverable state and the binary search goes on between
//     c and the lowest state believed dead above it (or the exponential
//     search from c, when none was probed) (Result.Refined). The confirmed
//     candidate then gets a counting sample at c-1 (Result.Confidence).
//     The initial state is confirmed the same way before Find gives up
//     with C2 at d_init because no walk recovers from it nor from d_init
//     (the caller may call that "dead from the start"): a state that
//     recovers in 1 walk of 31 fails all k = 20 walks of its probe in 52%
//     of seeds. If a confirmation walk recovers, state 0 counts as
//     recoverable and the search goes on from it (below d_init, or
//     Algorithm 3's doubling when d_init is 0).
//
// # Confidence
//
// Confidence holds the two samples and what they say: how many walks from
// c-1 recovered, that none from c did, the 95% upper bound on c's recovery
// probability, and the chance, were c and c-1 equally likely to recover,
// that every recovery of the two samples would fall in c-1's (Fisher's
// exact test, one-sided: c-1's rate is a sample too). The evidence is thin
// when that chance exceeds 5% or the bound exceeds 5% (fewer than 59 walks
// from c; ThinUpper says why): the state may still be near dead; raise
// ConfirmBudget or k. A trial's state that recovers in 2.3% of walks
// passed its 51 confirmation walks, with a bound of 5.7%, and was called
// dead on strong evidence when the bound was 10%; another's no-op
// transition got 3 of 62 walks against 0 of 62, strong when c-1's rate
// 3/62 was taken for exact (a chance of 0.046), thin by Fisher's test
// (0.12).
//
// # Minimized doomed path
//
// Minimize reduces E's transitions 1..c-1 with Zeller and Hildebrandt's
// ddmin, keeping their order and transition c last: a reduction is kept
// when it is a valid execution (each event, identified by kind, node,
// peer, timer and message content, enabled when its turn comes, its
// handler's recorded choices fitting), the state after c is dead by the
// test Find used (none of k walks recovers, nor any walk of a confirmation
// sample) and the state before c still recovers. ddmin's last round drops
// each remaining transition alone, so the result is 1-minimal unless its
// budgets (tests, transitions) or the context end it first. Every test
// walks the same seeds, and ddmin keeps any reduction that passes, so
// among many tests it can keep a path whose end is near dead (a trial's
// recovered in 2% of walks, on 13 of 20 seeds): the result is checked
// with fresh walks, up to twice a confirmation sample, and a path whose
// end recovers in them gives way to the longest path accepted before it
// that passes, or E's own prefix (Minimized.Rejected, Stop "check").
// MinimizeConfig.Budget bounds all of it, the check included: ddmin's
// tests leave the check its share, and a result whose check the budget
// cuts short gives way to E's own prefix (Minimized.Unchecked).
//
// # Cost and determinism
//
// Algorithm 3 costs O(k · d_max · log d_crit) transitions; a confirmation
// sample at most ConfirmBudget more, in at most ConfirmWalks walks (each
// starts from a copy of the state, which on a many-node system can cost
// more than a short walk's steps). E is replayed once to check it and
// once more, incrementally, across all probes: each probe clones the
// snapshot of the highest recoverable state, replays forward to the probed
// state, and every walk starts from a copy of that snapshot (made by
// engine.Sim.CloneInto, into the simulator each worker reuses). A probe's
// walks run on Config.Workers goroutines; walk j from state i uses the
// seed WalkSeed(seed, i, j), walks are handed out in index order, and the
// walks counted are a prefix fixed by their own results (up to the first
// live walk, or until their transitions reach the budget), so every answer
// — step, condition, probes, confidence, live alternative, minimized path —
// is the same for any number of workers.
//
// Recovery walks run as E's walk did: with FailuresUntil set ("gusto":
// failures in the bounded part, none in walks) they inject no failure,
// from a state inside E's bounded part too, unless Config.WalkFailures
// turns them back on. (They once kept failures on up to FailuresUntil:
// a state that only a failure could still rescue then looked transient
// until the step where that window closed, which was named critical
// whatever event it was: two trials' systems got C1, "strong", at a
// delivery that changed nothing.) A walk that breaks a safety property, or whose handler
// panics or hangs, counts as not recovering (Result.Unsafe notes it). A
// walk whose copy of its start state is bad (engine.ErrCopy: a service
// copied by replay whose replay diverged, or a checked copy that differs)
// says nothing about that state: the search stops with its error.
//
// Choosing k and d_max (seed 003 §4.4): k trades time against "near dead"
// states; confirmation catches most of them at a bounded cost. d_max should
// exceed by a wide margin the steps a healthy system needs to reach a live
// state (the paper saw all its systems live by 10,000 steps and used
// 80,000); C2 is the signal to raise it.
//
// Every long-running function takes a context: when it ends, Find returns
// its candidate so far (Result.Partial), Confirm the walks counted so far
// and Minimize the shortest doomed path found so far, each with an error
// wrapping the context's.
//
// # Usage
//
//	t, _ := trace.Read("macemc-out/error.trace")
//	c, err := critical.FromTrace(t)
//	if err != nil { ... }
//	c.Walks, c.Seed = 60, 1
//	c.Progress = func(p critical.Probe) { fmt.Println(p.Phase, p.Step, p.Recovers) }
//	res, err := critical.Find(ctx, c)
//	if err != nil { ... } // ErrNotDead, ErrReplay, ErrShort, ErrBadConfig, ctx.Err()
//	fmt.Println(res.Explain()) // res.Confidence: the confirmation figures
//	res.Annotate(t)
//	if res.Live != nil {
//		_ = res.Live.Trace(t).Write("macemc-out/live.trace") // mdb's side-by-side diff
//	}
//	if res.Condition == critical.C1 {
//		m, err := critical.Minimize(ctx, c, res.Step, critical.MinimizeConfig{})
//		if err == nil {
//			_ = m.Trace(t).Write("macemc-out/min.trace") // kind "minimized"
//		}
//	}
//
// Recovers(ctx, c, i) runs a single probe; Confirm(ctx, c, step) re-checks
// a saved answer with its two samples.
package critical
