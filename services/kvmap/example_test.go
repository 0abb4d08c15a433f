package kvmap

import (
	"fmt"

	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim/engine"
)

// Example runs the stale read: client 2 reads x at a follower that has not
// heard of the write of x=1 the leader already acknowledged.
func Example() {
	cfg, s := servicetest.MustStart(SystemName, nil, engine.NewRandom(1))
	for _, st := range stale {
		servicetest.MustStep(s, st.m)
	}
	fmt.Print(s.HistoryText())
	fmt.Println(lin.New(cfg.Model, 0).CheckSim(s))
	// Output:
	// step 3  node 3  client 0 invokes Put{Key: "x", Value: 1}
	// step 7  node 3  client 0 returns "ok"
	// step 8  node 5  client 2 invokes Get{Key: "x"}
	// step 10  node 5  client 2 returns 0
	// illegal
}
