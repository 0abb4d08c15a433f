// Package walk is the exploration order of MaceMC's simulator mode (seed
// 003, Algorithm 2 from the initial state): every path is one weighted
// random walk of d_max steps from the initial state (or the search's
// prefix), with no bounded part. It registers itself as "walk".
//
// # Usage
//
//	macemc search --system chord --strategy walk --max-paths 2000
//
// From Go, name it in search.Options:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "walk", Seed: 1, MaxPaths: 2000})
//
// It has no options of its own; --walk-depth (Options.WalkDepth) is the
// length of every walk.
//
// Path i walks with the seed walks.SeedFor(seed, i), so the paths, and the
// result, depend only on the seed. Liveness counts from the first step.
// The walks never run out: give the search a budget (--max-paths, --time).
package walk
