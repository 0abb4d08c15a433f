package walk_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/chord"
	"github.com/macemc/macemc/sim"
)

// Example searches the Chord ring of services/chord with weighted random
// walks from the initial state, MaceMC's simulator mode, from three seeds.
// The walks never run out, so the search has a path budget; each seed
// breaks the ring's invariant SuccPred (a node's predecessor is itself
// exactly when its successor is) within a few walks, and the same seed
// always breaks it on the same walk.
func Example() {
	sys, err := sim.Lookup(chord.SystemName)
	if err != nil {
		panic(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rep, err := search.Run(context.Background(), sys, search.Options{
			Strategy:  "walk",
			Seed:      seed,
			MaxPaths:  200,
			WalkDepth: 2000,
		})
		if err != nil {
			panic(err)
		}
		f := rep.First()
		fmt.Printf("seed %d: %s violation of %s at step %d of walk %d\n", seed, rep.Verdict, f.Property, f.Steps, f.Path+1)
	}
	// Output:
	// seed 1: safety violation of SuccPred at step 17 of walk 18
	// seed 2: safety violation of SuccPred at step 23 of walk 15
	// seed 3: safety violation of SuccPred at step 19 of walk 5
}
