package register

import (
	"fmt"

	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim/engine"
)

// Example runs the new-old inversion of the buggy register (reads that do
// not write back) and checks its history: client 1 read 1, then client 2
// read 0, while the write of 1 was in progress.
func Example() {
	cfg, s := servicetest.MustStart(SystemName, map[string]string{"variant": "buggy"}, engine.NewRandom(1))
	for _, st := range inversion {
		servicetest.MustStep(s, st.m)
	}
	fmt.Print(s.HistoryText())
	fmt.Println(lin.New(cfg.Model, 0).CheckSim(s))
	// Output:
	// step 1  node 3  client 0 invokes Write{Value: 1}
	// step 7  node 4  client 1 invokes Read{}
	// step 11  node 4  client 1 returns 1
	// step 12  node 5  client 2 invokes Read{}
	// step 16  node 5  client 2 returns 0
	// illegal
}
