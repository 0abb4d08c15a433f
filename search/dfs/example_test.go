package dfs_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/scheduler"
	"github.com/macemc/macemc/services/transport"
	"github.com/macemc/macemc/sim"
)

// Example searches MaceTransport (services/transport) with the bounded
// depth-first search, the default strategy: the first round, to depth 5,
// finds its stale-SYN liveness bug. The critical-transition search is
// skipped to keep the example short; see package search for the rest of
// the report.
func Example() {
	sys, err := sim.Lookup(transport.SystemName)
	if err != nil {
		panic(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{
		Strategy:   "dfs",
		Properties: []string{"AllAcked"},
		Seed:       1,
		MaxPaths:   300,
		WalkDepth:  2000,
		NoCritical: true,
	})
	if err != nil {
		panic(err)
	}
	f := rep.First()
	fmt.Println(rep.Strategy, rep.Verdict, f.Kind, f.Property)
	fmt.Printf("path %d of round %d (depth bound %d), %d paths cut by a repeated state\n",
		f.Path+1, rep.Stats.Rounds, rep.Stats.Depth, rep.Stats.Pruned)
	// Output:
	// dfs liveness dead AllAcked
	// path 14 of round 1 (depth bound 5), 5 paths cut by a repeated state
}

// Example_exhausted searches the fixed producer/consumer of
// services/scheduler: the search deepens until a round ends with no path
// reaching its bound, so every reachable state was explored and nothing
// was found, without a budget.
func Example_exhausted() {
	sys, err := sim.Lookup(scheduler.SystemName)
	if err != nil {
		panic(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{
		Params:    map[string]string{"fixed": "true"},
		Seed:      1,
		WalkDepth: 2000,
	})
	if err != nil {
		panic(err)
	}
	st := rep.Stats
	fmt.Println(rep.Verdict, st.Stop)
	fmt.Printf("%d rounds, deepest complete bound %d, %d paths, %d distinct states\n", st.Rounds, st.DeepestComplete, st.Paths, st.DistinctStates)
	// Output:
	// none exhausted
	// 2 rounds, deepest complete bound 10, 25 paths, 26 distinct states
}
