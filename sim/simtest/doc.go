// Package simtest holds small systems that misbehave in the ways a checker
// must report rather than search: a handler that panics, a handler that
// never returns, and a service whose replays diverge; and one that falls
// quiescent without being live. The tests of the search pipeline, the
// command line and the debugger share them. Importing the package
// registers them:
//
//   - simtest-panic: node 1 panics on the second message node 0 sends it
//     (two application requests, one message each).
//   - simtest-hang: node 0's timer handler loops forever once the
//     application request has run before it; HangTrace gives the trace
//     a search writes for that hang.
//   - simtest-leak: node 0 records a package-level counter on every tick
//     of its periodic timer, so no two replays agree.
//   - simtest-quiet: node 0 asks node 1 once (one application request);
//     when their connection breaks (one break allowed) with the request
//     or the answer in flight, nothing is left to run and Answered never
//     holds: a dead state that is certain without walking.
//   - simtest-escape: node 0's handler of the request starts a goroutine
//     that is still running when the handler returns (Escapes waits for
//     them).
//   - simtest-goexit: node 1's handler of its request calls
//     runtime.Goexit, as testing.T's FailNow and testify's require do.
//   - simtest-stuck: a safety property follows parent pointers from
//     node 0 and never returns once each node's request made the other
//     its parent.
//   - simtest-shared: node 0 sends node 1 its log's slice when it boots
//     and overwrites the log in place when its timer fires, so the
//     message changes in flight if the timer comes first; with
//     mode=keep node 1 keeps the slice it got, so node 0's timer changes
//     node 1's state; mode=copy sends a copy and shares nothing.
//   - simtest-monitor: node 1 notifies the liveness monitor Pings of each
//     of node 0's two pings; with mode=panic its Handle panics at the
//     second, mode=drift makes its state and mode=hot its Hot answer
//     differ between replays (mode=ok: a correct monitor).
//
// SlowTicker is a node, not a system, for tests of time budgets: its
// handler sleeps a millisecond at every tick, which makes every step slow
// on any machine.
//
// # Usage
//
//	import _ "github.com/macemc/macemc/sim/simtest"
//
//	sys, _ := sim.Lookup(simtest.Panic)
//	rep, err := search.Run(ctx, sys, search.Options{Workers: 1})
//	// rep.First().Kind == search.KindHandlerPanic
package simtest
