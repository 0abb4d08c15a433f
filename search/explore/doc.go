// Package explore is the executor of macemc's search: it runs the paths an
// exploration order proposes (a Strategy: the bounded DFS of seed 003
// Algorithm 1 in package search/dfs, random walks in search/walk, ...),
// each path's bounded part continued by a random walk of up to d_max steps
// (the tail of Algorithm 2, package walks), and keeps the budgets, the
// workers, the visited-state set and the order of the results.
//
// Every path is re-executed from the initial state, or from the end of a
// prefix execution (§4.2: stateless search, prefix-based search). Within
// its bound the choices come from the path's scheduler; beyond it a seeded,
// weighted random walk takes over. Safety properties are checked after
// every step; liveness only beyond the depth bound, since a live state
// inside the periphery must not hide a dead state beyond it (§3.1).
//
// State hashing (§4.2) ends a path that may be pruned (Path.Prune) when it
// reaches a state first seen at the same or a smaller cost (by default the
// depth) in this round on an earlier path: that state's subtree is
// explored from there. A path that returns to a state
// of its own (a cycle) ends its bounded part and walks from there instead,
// so that a dead state whose every event loops back to itself is still
// walked from (a deviation: the paper's rule would prune it unseen).
//
// Config.Observe hands every walk an observer (walks.Observer), such as a
// lasso detector (package walks/lasso). An observer that ends its walk
// with a verdict reports a violation: outcome walks.Observed, verdict
// Liveness, with the observer's property and detail (Violation.Observed,
// for lasso detection a *lasso.Finding). Like every violation it is
// committed in path order and counts towards MaxViolations; the walk's
// Choices are the execution up to where the observer stopped it. An
// observer that stops its walk without a verdict (walks.Stopped) reports
// nothing. An observer that is a Committer learns when its path is
// committed, so that what it counts covers exactly the committed paths.
//
// # Strategies
//
// The order of the paths is a Strategy's (strategy.go): search/dfs (the
// bounded DFS above, the default), search/walk (no bounded part),
// search/random and search/pct (seed 001's random and priority-based
// schedulers: independent random paths, never pruned), search/delay (seed
// 002's iterative delay bounding: pruned with the delays spent as the cost,
// explore.Coster). A strategy sees the ready events it picks among
// (engine.EventChooser) and needs nothing from the command line: its
// Params become --STRATEGY-PARAM flags.
//
// # The explored state graph
//
// With Config.Graph the coordinator also records every state the bounded
// parts reach and every transition between them (package walks/fair), and
// looks for a reachable fair cycle of hot states in the graph at the end
// of every round, whenever the graph doubled, and when the search stops
// (seed 002's iterative cycle detection). A cycle it finds is replayed on
// the system (fair.Graph.Execution), handed to GraphConfig.Confirm, and
// committed as the next path's result, in path order like a walk's
// violation (Violation.Graph says where it came from).
//
// Config.Check judges every execution where it ends (PathCheck): where its
// bounded part fell quiescent, or where its walk ended without a
// violation, never a pruned path (its continuation is judged from the
// state's earlier occurrence, so the state hash must cover what the check
// judges: the engine's covers the clients' history, which is what package
// search/lin checks). A violation it finds (Judgement) is committed like
// any other (Violation.Checked, verdict Safety); Stats count the paths it
// judged and the distinct keys, violations and unknowns among them.
//
// A scheduler that implements Watcher is shown the simulator after every
// step of its path's bounded part, and may end the path there (EndBlocked,
// Stats.Blocked): partial-order reduction (search/dpor) learns what each
// step did and stops at states whose every continuation is explored by
// other paths.
//
// The order of the paths, and every decision about them (pruning, the end
// of a round, the budgets), is the coordinator's, on one goroutine; walks
// are spread over Workers goroutines, a pruned strategy's walk seeded by
// its path's round and choices (so that it does not depend on where the
// path falls in the order), another's by walks.SeedFor(Seed, path index);
// results, and every count of Stats, are committed in path order. So the
// verdict, the violating path and the statistics do not depend on the
// number of workers, and a seed gives the same run every time (a Time
// budget stops at a moment that depends on the machine).
//
// # Memory: the visited-state set
//
// The states seen (Stats.DistinctStates) are kept in an open-addressing
// table of 12-byte slots (the 64-bit state hash; round and depth in 32
// bits) that grows with the search up to Config.MaxStates states (default
// DefaultMaxStates, 4 Mi states in at most 96 MiB; `macemc search
// --max-states`), where a Go map took about twice as much per state. At the bound,
// the states of earlier rounds are dropped first (they never prune again);
// past that, new states are not recorded (Stats.Unrecorded). Forgetting a
// state can only make the search re-explore what it could have cut: a
// pruned path is never one that was new, so the bound costs coverage per
// unit of time, never a false or a missed report on the paths it runs.
// (SPIN's bitstate hashing trades the other way: a few bits a state, but a
// collision prunes a path that was new, losing coverage silently; with
// this table only 64-bit hash collisions can, as with any hashing.)
//
// # Performance and how it scales
//
// The search is stateless (§4.2): a path is re-executed from the initial
// state, because replaying a dozen steps costs a few microseconds while
// copying a state (engine.Sim.Clone) costs tens. The coordinator replays a
// path's shared prefix without checking or hashing it again: those states
// are the previous path's (replay is deterministic), their hashes are kept
// per depth, and the part hashes of each state (engine.HashMemo) are restored
// so that only what a new step changed is encoded (in a depth-first order,
// at the one state where the path turns off the previous one: its last
// choice with an option left). At the end of a bounded
// path the coordinator hands its execution to the worker
// (engine.Sim.SwapState, a few words) instead of the worker replaying it, and
// takes a pooled simulator to reset for the next path. Each worker runs
// all its walks under one watchdog.
//
// # Speculation: the bounded search on several cores
//
// With one worker the search runs on one core at a time. With more, the
// coordinator would be the limit once walks are short (a fixed system is
// live after a few dozen steps): executing every path's prefix and
// deciding its pruning in order is about as much work per path as its
// walk, and which path comes next depends on where the previous one was
// cut. So for a strategy that searches each round depth first (a Forker:
// dfs) the workers run the round ahead of the coordinator (spec.go):
//
//   - A generator runs the round's paths up to a split depth (the round's
//     depth bound less 4) in order, deciding their pruning there exactly as
//     the coordinator will (only states that shallow can prune them), and
//     queues the subtree below every path that reaches it as a task, at
//     most 4 tasks per worker ahead of the coordinator.
//   - A worker explores a task's subtree depth first in the strategy's own
//     order (Forker.Fork), pruning by hints: a lock-free table shared by the
//     workers of the states their tasks reached, with the task and the
//     depth (cost) of each; a state reached by an earlier task or earlier in
//     this one, at no higher cost, is what the coordinator will prune too.
//     It walks every path that reaches its bound, and records each path:
//     its choices with their kinds and numbers of options, the hash of
//     every state, how it ended, its walk.
//   - The coordinator follows the strategy's paths in order through the
//     records: it answers the scheduler's choice points from them, checks
//     each state against the visited set and the path's own states (cycles)
//     exactly as after executing it, and takes the path's verdict and walk
//     from its record. Where no record fits (a hint pruned what the visited
//     set does not, a path that ends above the split depth), it executes
//     the path itself from where the records left it.
//
// The records are a cache of executions and every decision is the
// coordinator's, so the results are those of one worker: a test holds every
// example system, with and without hashing, with the explored graph and
// with a full visited set, to that. What speculation costs is work thrown
// away: paths run below states that an earlier task, still running,
// reached first (its hints came too late), about 5-15% more paths on the
// example systems, and, with a path check (Config.Check), judgements of
// such paths. When one violation ends the search, a worker that finds a
// violating path runs none after it in the order until the coordinator
// passed its task without taking the violation. A hung handler in a path
// run ahead turns speculation off; the coordinator meets the hang in the
// order and reports it.
//
// Beyond that, three things bound how the search scales:
//
//   - The coordinator: its part is small per path (following a record costs
//     a few hash-table probes per state), but it is one goroutine, and it
//     executes the paths no record covers.
//   - The visited-state set: one table the coordinator alone touches (no
//     lock); its memory is bounded by MaxStates, and at the bound the
//     search loses pruning, not correctness. The hint table beside it has a
//     fixed size (HintBytes).
//   - The ordered commit: results are committed in path order under one
//     mutex, once per path, so a long walk holds back the commit (not the
//     work) of the paths after it; the jobs channel (4 per worker) bounds
//     how far the coordinator runs ahead, and so the memory of jobs and
//     pooled simulators in flight.
//
// services/bench and scripts/bench.sh measure all of this per example
// system.
//
// # Usage
//
//	res, err := explore.Run(ctx, explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, WalkDepth: 20000, Time: time.Minute})
//	if err != nil { ... }
//	if res.Verdict == explore.Liveness {
//		v := res.Violations[0] // v.Choices replays it; see package critical
//	}
//
// Package search runs the whole pipeline around it.
package explore
