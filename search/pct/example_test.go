package pct_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/storage"
	"github.com/macemc/macemc/sim"
)

// Example searches the replicated extent storage of services/storage (the
// Azure Storage vNext bug of seed 001) with PCT schedules of 40 steps and
// bug depth 2 (one priority change point; seed 001's vNext runs used two,
// depth 3), from
// three seeds. PCT's paths never run out, so the search has a path budget;
// each seed finds the liveness bug within a few schedules. The
// critical-transition search is skipped to keep the example short.
func Example() {
	sys, err := sim.Lookup(storage.SystemName)
	if err != nil {
		panic(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rep, err := search.Run(context.Background(), sys, search.Options{
			Strategy:       "pct",
			StrategyParams: map[string]string{"depth": "2", "steps": "40"},
			Seed:           seed,
			MaxPaths:       100,
			WalkDepth:      2000,
			NoCritical:     true,
		})
		if err != nil {
			panic(err)
		}
		f := rep.First()
		fmt.Printf("seed %d: %s %s (%s) after %d schedules\n", seed, rep.Verdict, f.Property, f.Kind, rep.Stats.Paths)
	}
	// Output:
	// seed 1: liveness RepairChecker (dead) after 6 schedules
	// seed 2: liveness RepairChecker (dead) after 3 schedules
	// seed 3: liveness RepairChecker (dead) after 6 schedules
}
