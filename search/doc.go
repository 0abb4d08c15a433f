// Package search is MaceMC_Search (seed 003, Algorithm 1): iterative
// bounded depth-first search over the sequences of choices of a system,
// each bounded path continued by a random walk of up to d_max steps (the
// tail of Algorithm 2, package walks).
//
// Depth starts at DepthStep (default 5) and grows by it each round. Every
// sequence is re-executed from the initial state, or from the end of a
// prefix execution (§4.2: stateless search, prefix-based search). Within
// the bound the choices come from the sequence; beyond it a seeded,
// weighted random walk takes over. Safety properties are checked after
// every step; liveness only beyond the depth bound, since a live state
// inside the periphery must not hide a dead state beyond it (§3.1).
//
// State hashing (§4.2) ends a bounded path that reaches a state first seen
// at the same or a smaller depth in this round on an earlier path: that
// state's subtree is explored from there. A path that returns to a state
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
// nothing.
//
// The bounded part runs on one goroutine, in a fixed order, and walks are
// spread over Workers goroutines, each walk seeded by walks.SeedFor(Seed,
// path index); results are committed in path order. So the verdict and the
// violating path do not depend on the number of workers, and a seed gives
// the same run every time.
//
// # Usage
//
//	res, err := search.Run(search.Config{System: cfg, Seed: 1, WalkDepth: 20000, Time: time.Minute})
//	if err != nil { ... }
//	if res.Verdict == search.Liveness {
//		v := res.Violations[0] // v.Choices replays it; see package critical
//	}
package search
