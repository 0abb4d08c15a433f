// Package pct is probabilistic concurrency testing (Burckhardt et al.,
// ASPLOS 2010), seed 001's randomised priority-based scheduler (P#, §4.5),
// as an exploration order. It registers itself as "pct".
//
// # Usage
//
//	macemc search --system transport --strategy pct --max-paths 1000
//	macemc search --system storage --strategy pct --pct-depth 2 --pct-steps 40
//
// From Go, name it in search.Options, with its options in StrategyParams:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "pct",
//		StrategyParams: map[string]string{"depth": "2"}, Seed: 1, MaxPaths: 1000})
//
// Every path's bounded part is one PCT schedule of k = steps steps with
// bug depth d = depth: each event source gets a random priority when it
// first has an event, d-1 priority change points are drawn uniformly
// among steps 1..k, and every step runs an event of the highest-priority
// source that has one; at change point i (i = 1..d-1) the source that just
// ran drops to priority i, below every initial priority. Answers of
// Context.Rand and Context.Elapsed are uniform. Then the search's walk
// goes on to d_max, and liveness counts after the bounded part (a path
// whose walk reaches no live state is a suspected violation, seed 001's
// "hot at the end of a long execution"). Paths are independent (path i
// is seeded by the search's seed and i alone) and never pruned, so they
// never run out: give the search a budget (--max-paths, --time).
//
// Options (--pct-NAME on the command line, Options.StrategyParams in
// package search):
//
//   - depth (3): d, the bug depth PCT targets: d-1 change points. Seed
//     001's vNext runs used 2 change points.
//   - steps (100, capped by --depth): k, the length of the PCT schedule.
//     P# estimates k from three runs; here it is the bounded part's
//     length, over which the change points are spread. A schedule ends
//     sooner where nothing is ready, or where it comes back to a state of
//     its own path (a step that leaves the state as it was, such as a
//     timer re-armed until Elapsed says yes; --no-hashing does not cut
//     there): the change points drawn past its end are lost. A search
//     whose schedules end far below k warns, with the advice for the
//     reason most of them ended.
//   - unit (source): what has a priority. source: every event source
//     (engine.Event.Source: a node's driver, a reliable connection or
//     datagram path, a named timer, connection errors, a failure);
//     node: every node, as PCT's threads and P#'s machines (a failure
//     event keeps a priority of its own).
//
// # The guarantee
//
// A bug of depth d is one that some d ordering constraints between events
// make happen. (Seed 001's Table 4.4 counts a bug's depth in the priority
// change points it needs, d-1: its depths 0 to 6 are d = 1 to 7 here, the
// depth parameter's value.) With n sources (or
// nodes) and schedules of k steps, one PCT schedule hits a given bug of
// depth d with probability at least 1/(n·k^(d-1)) (Burckhardt et al.,
// Theorem 9): the n sources must be in the right priority order for the
// first constraint (1/n) and each of the d-1 change points must fall on
// its step (1/k each). So m schedules miss it with probability at most
// (1 - 1/(n·k^(d-1)))^m. The bound holds for the bounded part's event
// choices; a bug that also needs particular answers of Rand or Elapsed is
// found with that probability times theirs, and the walk after the
// bounded part is outside it.
//
// # Priorities per source, not per node
//
// PCT's threads (and P#'s machines) each run one sequential stream of
// events, one at a time. In the simulator a node does not: it has one
// FIFO queue per peer, its timers and its driver, and the order in which
// it handles them is as nondeterministic as the order between nodes. An
// event source is such a stream, so the default gives each source its
// priority, PCT's model exactly, with n the number of sources. With
// unit=node (PCT and P# literally) the events of the highest-priority node
// are chosen among uniformly, a random scheduler inside each node that the
// guarantee's analysis does not cover: a bug that needs one node to handle
// its queues in a particular order for several steps gets a probability
// that shrinks with every step instead of a change point's 1/k. Several
// events of one source at once (datagrams on one path, when the system
// reorders them) are also chosen among uniformly, so that a reordering
// keeps a positive probability.
package pct
