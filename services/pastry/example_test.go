package pastry_test

import (
	"fmt"

	"github.com/macemc/macemc/services/pastry"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Example drives the buggy overlay through seed 003 §1's rapid rejoin:
// node 1 joins node 0's overlay, resets, and makes its first join attempt
// before node 0 has probed it (the critical transition). Node 0 keeps its
// stale entry for node 1 and routes every join request for node 1's
// identifier, and node 2's, to node 1, which is not joined.
func Example() {
	cfg, s := servicetest.MustStart(pastry.SystemName, map[string]string{"fixed": "false"}, engine.NewRandom(1))
	run := func(m servicetest.Match) { fmt.Println(servicetest.MustStep(s, m)) }
	run(servicetest.App(0))
	run(servicetest.App(1))
	run(servicetest.At(engine.EvTimer, 0))
	run(servicetest.At(engine.EvTimer, 1))
	run(servicetest.From(0, 1))
	run(servicetest.From(1, 0))
	run(servicetest.From(0, 1))
	run(servicetest.Reset(1))
	s.SetFailures(false)
	run(servicetest.App(1))
	run(servicetest.At(engine.EvTimer, 1)) // the critical transition
	forwarded := 0
	for s.Steps() < 5000 {
		if _, err := s.Step(); err != nil {
			panic(err)
		}
		if ev := s.LastEvent(); ev.Kind == engine.EvMessage && ev.Node == 1 && sim.MessageName(ev.Msg) == "JoinRequest" {
			forwarded++
		}
	}
	for id := range sim.NodeID(3) {
		n := s.Service(id).(*pastry.Pastry)
		fmt.Printf("node %d: %s, successor %d\n", id, n.Status, n.Successor())
	}
	fmt.Println("join requests forwarded to node 1:", forwarded > 0)
	live, _ := s.AllHold(cfg.Liveness)
	fmt.Println("AllNodes holds after 5000 steps:", live)
	// Output:
	// node 0 handles app request Join{Bootstrap: 0}
	// node 1 handles app request Join{Bootstrap: 0}
	// node 0 timer join fires
	// node 1 timer join fires
	// node 0 receives JoinRequest{Joiner: Handle{Addr: 1, ID: 99}} from node 1
	// node 1 receives JoinReply{Root: Handle{Addr: 0, ID: 249}, Leafset: []} from node 0
	// node 0 receives Announce{} from node 1
	// node 1 resets
	// node 1 handles app request Join{Bootstrap: 0}
	// node 1 timer join fires
	// node 0: joined, successor 1
	// node 1: joining, successor 1
	// node 2: joining, successor 2
	// join requests forwarded to node 1: true
	// AllNodes holds after 5000 steps: false
}
