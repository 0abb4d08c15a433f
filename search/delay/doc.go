// Package delay is iterative delay bounding (seed 002, Desai et al.,
// Iterative Cycle Detection via Delaying Explorers): a deterministic base
// scheduler decides every step, and a schedule may depart from it by
// delays, each of which skips the event the scheduler would run next. Round
// r searches every schedule with at most r-1 delays, in depth-first order,
// so the schedules closest to the base scheduler's come first. It
// registers itself as "delay".
//
// # Usage
//
//	macemc search --system storage --strategy delay
//	macemc search --system transport --strategy delay --delay-base rtc --delay-steps 60
//
// and from Go, through package search:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "delay",
//		StrategyParams: map[string]string{"base": "rtc", "steps": "60"}})
//
// Options (--delay-NAME on the command line, Options.StrategyParams in
// package search):
//
//   - base (rr): the base scheduler. rr is seed 002's round-robin: it
//     cycles through the event sources in creation order, and the source
//     whose turn it is runs until it has no event left (seed 002: "it
//     schedules the next task on a delay or when the current task is
//     completed"); a delay passes the turn to the next enabled source. A
//     source that always has an event (a periodic timer) keeps the turn
//     until a delay passes it on. rr-event is round-robin with one event
//     per turn: the turn passes on after every event, so that with no
//     delay the sources' events alternate. Neither wins everywhere
//     (scripts/strategies.sh: rr finds the transport bug on its first
//     schedule, rr-event after 847; rr-event finds randtree's within 191
//     schedules on every seed, rr on 1 seed of 20 within 20,000, held up
//     by a periodic timer). rtc is run-to-completion: a source pushed on top of a
//     stack when it becomes enabled runs for as long as it has events, so
//     a schedule follows the causal chain of the events a step produces; a
//     delay moves the top source to the bottom.
//   - steps (100, capped by --depth): the steps of a schedule's bounded
//     part. A schedule that reaches it goes on with the search's random
//     walk to d_max (liveness counts after the bound), like the bounded
//     paths of the dfs strategy.
//   - max (0: none): the largest delay bound.
//
// The unit of scheduling is the event source (engine.Event.Source): the
// driver of a node, a reliable connection or datagram path, a named timer,
// a node's connection errors. Seed 002's processes each have one inbox; in
// the simulator a node has one FIFO queue per peer plus its timers, and
// the order between them is as nondeterministic as between nodes, so each
// source is a process. Every enabled event is some number of delays away
// (the assumption at the end of seed 002 §2), failure events last: a
// schedule injects a failure only by delaying past every other event. The
// answers of Context.Rand and Context.Elapsed are the system's own
// nondeterminism, not scheduling: every answer is tried, at no cost in
// delays (as P explores its nondeterministic choices).
//
// # State caching without the scheduler's state
//
// Seed 002 Figure 1 caches program states only, never the scheduler's
// state (its stack or cursor), which would multiply the states by the
// number of scheduler states (its Table 1: 1.7 to 5.5 times). Here a path
// is pruned at a state that an earlier path of the same round reached with
// no more delays spent (explore.Coster: the cost is the delays, not the
// depth): that state's subtree is explored from the earlier visit, with at
// least as much budget left. Two consequences:
//
//   - Within one delay bound the search is not complete for schedules:
//     the earlier visit came with another scheduler state, so its subtree
//     orders events differently, and the schedules the later visit's
//     scheduler would have made within the bound are not all run. What
//     they reach is reached with more delays, in a later round: as the
//     bound grows every reachable state is visited (seed 002 Theorem 1,
//     for a finite state space), but a bug is not guaranteed to be found
//     at the smallest bound that has a schedule to it.
//   - The cost rule keeps more than Figure 1, which never explores a
//     cached state again: a state reached again with fewer delays than
//     before is explored again from there.
//
// Figure 1 keeps the frontier of each round and continues from it in the
// next; the executor is stateless (seed 003 §4.2: paths are re-executed,
// not restored), so each round re-runs the schedules of the bounds before
// it, as iterative deepening does. Per round, Stats count the states of
// that bound.
//
// The search ends (explore.StopExhausted) when a round runs without any
// choice that needed more delays than its bound allowed and without any
// schedule reaching its step bound: every reachable state was explored.
// If schedules reached the step bound it ends with explore.StopDepth.
package delay
