package lasso_test

import (
	"fmt"

	"github.com/macemc/macemc/services/philosophers"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
)

// Example finds the livelock of two dining philosophers (the example
// system services/philosophers): random walks with a lasso detector until
// one walk returns to a state it was in, with not every philosopher fed,
// every connection served, and the cycle replayed 10 times.
func Example() {
	sys, err := sim.Lookup(philosophers.SystemName)
	if err != nil {
		panic(err)
	}
	cfg, _, err := sys.Config(map[string]string{"n": "2"})
	if err != nil {
		panic(err)
	}
	m := lasso.NewMonitor(lasso.Options{})
	for i := uint64(0); len(m.Findings()) == 0; i++ {
		s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(2, i))})
		if err != nil {
			panic(err)
		}
		r := walks.Walk(s, &walks.Config{MaxSteps: 500, Liveness: cfg.Liveness, Safety: cfg.Safety, Observe: m.Observer()})
		fmt.Printf("walk %d: %s after %d steps\n", i, r.Outcome, r.Steps)
	}
	f := m.Findings()[0]
	fmt.Printf("lasso: stem %d, cycle %d steps, replayed %d times, proof %v\n", f.Stem, f.CycleLen, f.Replays, f.Proof())
	for i, ev := range f.Events {
		fmt.Printf("  %d %s\n", f.Stem+1+i, ev)
	}
	// Output:
	// walk 0: stopped after 19 steps
	// lasso: stem 4, cycle 15 steps, replayed 10 times, proof true
	//   5 node 3 receives Acquire{} from node 1
	//   6 node 3 receives Acquire{} from node 0
	//   7 node 1 receives Granted{} from node 3
	//   8 node 2 receives Acquire{} from node 1
	//   9 node 1 receives Busy{} from node 2
	//   10 node 3 receives Release{} from node 1
	//   11 node 0 receives Busy{} from node 3
	//   12 node 3 receives Acquire{} from node 1
	//   13 node 2 receives Release{} from node 0
	//   14 node 2 receives Acquire{} from node 0
	//   15 node 1 receives Granted{} from node 3
	//   16 node 2 receives Acquire{} from node 1
	//   17 node 0 receives Granted{} from node 2
	//   18 node 1 receives Busy{} from node 2
	//   19 node 3 receives Release{} from node 1
}
