package chord_test

import (
	"fmt"

	"github.com/macemc/macemc/services/chord"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Example drives the buggy ring through the shortest execution of seed 003
// §6's bug: node 0's ring is recreated after a reset, and node 0 handles a
// Notify that sets its predecessor but not its successor (the critical
// transition). Whatever happens next, node 0 stays a ring of its own.
func Example() {
	cfg, s := servicetest.MustStart(chord.SystemName, map[string]string{"fixed": "false"}, engine.NewRandom(1))
	run := func(m servicetest.Match) { fmt.Println(servicetest.MustStep(s, m)) }
	run(servicetest.App(0))
	run(servicetest.App(1))
	run(servicetest.App(2))
	run(servicetest.From(0, 1))
	run(servicetest.Reset(0))
	s.SetFailures(false)
	run(servicetest.App(0))
	run(servicetest.From(1, 0))
	run(servicetest.From(0, 1)) // the critical transition
	safe, _ := s.AllHold(cfg.Safety)
	fmt.Println("SuccPred holds:", safe)
	for s.Steps() < 5000 {
		if _, err := s.Step(); err != nil {
			panic(err)
		}
	}
	for id := range sim.NodeID(3) {
		n := s.Service(id).(*chord.Chord)
		fmt.Printf("node %d: pred %d succ %d\n", id, n.Pred.Addr, n.Succ.Addr)
	}
	live, _ := s.AllHold(cfg.Liveness)
	fmt.Println("AllNodes holds after 5000 steps:", live)
	// Output:
	// node 0 handles app request Join{Bootstrap: 0}
	// node 1 handles app request Join{Bootstrap: 0}
	// node 2 handles app request Join{Bootstrap: 0}
	// node 0 receives FindSucc{Key: 99, Origin: Ref{Addr: 1, ID: 99}} from node 1
	// node 0 resets
	// node 0 handles app request Join{Bootstrap: 0}
	// node 1 receives FindSuccReply{Pred: Ref{Addr: 0, ID: 249}, Succ: Ref{Addr: 0, ID: 249}} from node 0
	// node 0 receives Notify{} from node 1
	// SuccPred holds: false
	// node 0: pred 2 succ 0
	// node 1: pred 0 succ 2
	// node 2: pred 1 succ 0
	// AllNodes holds after 5000 steps: false
}
