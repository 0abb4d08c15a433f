// Package random is seed 001's random scheduler (P#, §4.5) as an
// exploration order: every path's bounded part chooses each event
// uniformly among the enabled ones, and every answer of Context.Rand and
// Context.Elapsed uniformly; then the search's walk goes on to d_max. It
// registers itself as "random".
//
// # Usage
//
//	macemc search --system transport --strategy random --max-paths 1000
//	macemc search --system storage --strategy random --random-steps 50
//
// From Go, name it in search.Options, with its options in StrategyParams:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "random",
//		StrategyParams: map[string]string{"steps": "50"}, Seed: 1, MaxPaths: 1000})
//
// Options (--random-NAME on the command line, Options.StrategyParams in
// package search):
//
//   - steps (100, capped by --depth): the steps of the uniformly random
//     bounded part. Failures (resets, breaks, drops) are enabled events
//     like any other within it, and off in the walk that follows (the
//     search's --walk-failures keeps them on), so this is where a random
//     schedule injects them. Liveness counts after the bounded part: a
//     path whose walk reaches no live state by d_max is a suspected
//     violation, seed 001's "hot at the end of a long execution".
//
// Uniform, not weighted: P#'s random scheduler picks among the enabled
// machines with equal probability, where the walk of MaceMC's simulator
// mode (strategy walk) weighs events by kind. Paths are independent: path
// i is seeded by the search's seed and i alone, and no state prunes it
// (P# keeps no visited set), so the paths never run out; give the search a
// budget (--max-paths, --time).
package random
