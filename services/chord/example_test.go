package chord_test

import (
	"fmt"

	"github.com/macemc/macemc/services/chord"
	"github.com/macemc/macemc/sim"
)

// Example drives the buggy ring through the shortest execution of seed 003
// §6's bug: node 0's ring is recreated after a reset, and node 0 handles a
// Notify that sets its predecessor but not its successor (the critical
// transition). Whatever happens next, node 0 stays a ring of its own.
func Example() {
	sys, err := sim.Lookup("chord")
	if err != nil {
		panic(err)
	}
	cfg, _, err := sys.Config(map[string]string{"fixed": "false"})
	if err != nil {
		panic(err)
	}
	s, err := sim.New(cfg, sim.Options{Chooser: sim.NewRandom(1)})
	if err != nil {
		panic(err)
	}
	run := func(kind sim.EventKind, node, peer sim.NodeID) {
		for i, ev := range s.Ready() {
			if ev.Kind == kind && ev.Node == node && (kind != sim.EvMessage || ev.Peer == peer) {
				if err := s.StepEvent(i); err != nil {
					panic(err)
				}
				fmt.Println(s.LastEvent())
				return
			}
		}
		panic("no such event")
	}
	run(sim.EvApp, 0, 0)
	run(sim.EvApp, 1, 0)
	run(sim.EvApp, 2, 0)
	run(sim.EvMessage, 0, 1)
	run(sim.EvReset, 0, 0)
	s.SetFailures(false)
	run(sim.EvApp, 0, 0)
	run(sim.EvMessage, 1, 0)
	run(sim.EvMessage, 0, 1) // the critical transition
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
