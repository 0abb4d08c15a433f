package dpor_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/sim"
)

// Example checks the clients' history of DS2's buggy register
// (services/register, variant=buggy: a read does not write back) for
// linearizability, with DPOR and, for comparison, with the plain bounded
// search: both find the new-old inversion in the same round (depth bound
// 15), DPOR after far fewer paths, since it runs one execution per order
// of the dependent events.
func Example() {
	sys, err := sim.Lookup(register.SystemName)
	if err != nil {
		panic(err)
	}
	for _, strategy := range []string{"dpor", "dfs"} {
		rep, err := search.Run(context.Background(), sys, search.Options{
			Params:    map[string]string{"variant": "buggy"},
			Strategy:  strategy,
			Seed:      1,
			MaxPaths:  20000,
			WalkDepth: 2000,
		})
		if err != nil {
			panic(err)
		}
		f := rep.First()
		fmt.Printf("%s: %s, %s violation on path %d (depth bound %d)\n", strategy, rep.Verdict, f.Kind, f.Path+1, rep.Stats.Depth)
	}
	// Output:
	// dpor: safety, linearizability violation on path 56 (depth bound 15)
	// dfs: safety, linearizability violation on path 9065 (depth bound 15)
}

// Example_exhausted checks the correct register (ABD) with one reader and
// one writer: the DPOR rounds deepen until no path reaches the bound, so
// every order of the dependent events was run, and every distinct history
// the executions produced is linearizable.
func Example_exhausted() {
	sys, err := sim.Lookup(register.SystemName)
	if err != nil {
		panic(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{
		Params:    map[string]string{"variant": "correct", "reads": "1", "writes": "1"},
		Strategy:  "dpor",
		Seed:      1,
		WalkDepth: 2000,
	})
	if err != nil {
		panic(err)
	}
	st := rep.Stats
	fmt.Printf("%s found; stopped: %s after %d rounds, %d paths\n", rep.Verdict, st.Stop, st.Rounds, st.Paths)
	fmt.Printf("%d distinct histories, %d not linearizable\n", rep.Lin.Distinct, rep.Lin.Illegal)
	// Output:
	// none found; stopped: exhausted after 4 rounds, 189 paths
	// 4 distinct histories, 0 not linearizable
}
