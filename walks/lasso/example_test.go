package lasso_test

import (
	"fmt"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
	"github.com/macemc/macemc/walks/lasso/lassotest"
)

// Example finds the livelock of two dining philosophers: random walks
// with a lasso detector until one walk returns to a state it was in, with
// no philosopher fed, every connection served, and the cycle replayed 10
// times.
func Example() {
	cfg := lassotest.Philosophers(2, false)
	m := lasso.NewMonitor(lasso.Options{})
	for i := uint64(0); len(m.Findings()) == 0; i++ {
		s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(2, i))})
		if err != nil {
			panic(err)
		}
		r := walks.Walk(s, &walks.Config{MaxSteps: 500, Liveness: cfg.Liveness, Observe: m.Observer()})
		fmt.Printf("walk %d: %s after %d steps\n", i, r.Outcome, r.Steps)
	}
	f := m.Findings()[0]
	fmt.Printf("lasso: stem %d, cycle %d steps, replayed %d times, proof %v\n", f.Stem, f.CycleLen, f.Replays, f.Proof())
	for i, ev := range f.Events {
		fmt.Printf("  %d %s\n", f.Stem+1+i, ev)
	}
	// Output:
	// walk 0: live after 12 steps
	// walk 1: stopped after 17 steps
	// lasso: stem 7, cycle 10 steps, replayed 10 times, proof true
	//   8 node 2 receives Acquire{} from node 0
	//   9 node 0 receives Granted{} from node 2
	//   10 node 2 receives Acquire{} from node 1
	//   11 node 1 receives Denied{} from node 2
	//   12 node 3 receives Acquire{} from node 0
	//   13 node 0 receives Denied{} from node 3
	//   14 node 3 receives Release{} from node 1
	//   15 node 2 receives Release{} from node 0
	//   16 node 3 receives Acquire{} from node 1
	//   17 node 1 receives Granted{} from node 3
}
