package random_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/failuredetector"
	"github.com/macemc/macemc/sim"
)

// Example searches the failure detector of services/failuredetector, which
// never tells a late client about a failure it declared earlier, with
// uniformly random schedules of 50 steps. Random paths never run out, so
// the search has a path budget: the buggy detector is caught within a few
// schedules, and the search of the fixed one ends when the budget is
// spent. The critical-transition search is skipped to keep the example
// short.
func Example() {
	sys, err := sim.Lookup(failuredetector.SystemName)
	if err != nil {
		panic(err)
	}
	for _, fixed := range []string{"false", "true"} {
		rep, err := search.Run(context.Background(), sys, search.Options{
			Params:         map[string]string{"fixed": fixed},
			Strategy:       "random",
			StrategyParams: map[string]string{"steps": "50"},
			Seed:           1,
			MaxPaths:       200,
			WalkDepth:      2000,
			NoCritical:     true,
		})
		if err != nil {
			panic(err)
		}
		if f := rep.First(); f != nil {
			fmt.Printf("fixed=%s: %s violation of %s after %d schedules\n", fixed, rep.Verdict, f.Property, rep.Stats.Paths)
		} else {
			fmt.Printf("fixed=%s: %s found in %d schedules (stopped: %s)\n", fixed, rep.Verdict, rep.Stats.Paths, rep.Stats.Stop)
		}
	}
	// Output:
	// fixed=false: liveness violation of FailuresReported after 3 schedules
	// fixed=true: none found in 200 schedules (stopped: paths)
}
