// Package dfs is the bounded depth-first search of MaceMC_Search (seed 003,
// Algorithm 1) as an exploration order (explore.Strategy): iterative
// deepening from DepthStep by DepthStep, every sequence of choices within
// the bound in depth-first order, pruned by state hashing (§4.2).
//
// # Usage
//
// It registers itself as "dfs", the default strategy of package search and
// of the command line:
//
//	macemc search --system transport
//	macemc search --system chord --depth-step 10 --depth 40
//
// From Go, name it in search.Options (package search imports every
// strategy), or give it to explore.Run:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "dfs", Seed: 1, MaxPaths: 2000})
//
//	res, err := explore.Run(ctx, explore.Config{System: cfg, Strategy: dfs.Strategy{}, WalkDepth: 20000})
//
// It has no options of its own (no --dfs-NAME flags): --depth-step
// (Options.DepthStep, explore.Config.DepthStep; default 5) is the
// increment and --depth (Options.Depth, explore.Config.MaxDepth) the cap.
//
// Round r searches every execution of r·DepthStep steps (capped by
// MaxDepth); the search ends when a round completes without any path
// reaching its bound (the state space is exhausted) or when the MaxDepth
// round completes. A path may be pruned at a state reached by an earlier
// path of the same round at the same or a smaller depth: that state's
// subtree is explored from its earlier occurrence.
package dfs
