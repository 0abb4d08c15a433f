package randtree

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Example drives the buggy tree through seed 003 §6's execution: A (node
// 1) takes C (node 3) as a child, C resets and ignores the JoinReply in
// init mode (the critical transition), then joins under D (node 2), and
// A keeps C as a child.
func Example() {
	sys, err := sim.Lookup("randtree")
	if err != nil {
		panic(err)
	}
	cfg, _, err := sys.Config(map[string]string{"fixed": "false"})
	if err != nil {
		panic(err)
	}
	// The full root sends C's first Join to its child 1, the second to 2.
	s, err := sim.New(cfg, sim.Options{Chooser: &script{rand: []int{0, 1}, then: sim.NewRandom(1)}})
	if err != nil {
		panic(err)
	}
	run := func(kind sim.EventKind, node, peer sim.NodeID, name string) {
		for i, ev := range s.Ready() {
			if ev.Kind == kind && ev.Node == node && (kind != sim.EvMessage || ev.Peer == peer && sim.MessageName(ev.Msg) == name) {
				if err := s.StepEvent(i); err != nil {
					panic(err)
				}
				fmt.Println(s.LastEvent())
				return
			}
		}
		panic("no such event")
	}
	msg := func(node, peer sim.NodeID, name string) {
		// Session traffic queued first on the connection goes first.
		for _, ev := range s.Ready() {
			if ev.Kind == sim.EvMessage && ev.Node == node && ev.Peer == peer && sim.MessageName(ev.Msg) == "Hello" && name != "Hello" {
				run(sim.EvMessage, node, peer, "Hello")
			}
		}
		run(sim.EvMessage, node, peer, name)
	}
	run(sim.EvApp, 0, 0, "")
	run(sim.EvApp, 1, 0, "")
	run(sim.EvApp, 2, 0, "")
	msg(0, 1, "Join")
	msg(0, 2, "Join")
	msg(1, 0, "JoinReply")
	msg(2, 0, "JoinReply")
	run(sim.EvApp, 3, 0, "")
	msg(0, 3, "Join")
	msg(1, 0, "Join")
	run(sim.EvReset, 3, 0, "")
	msg(3, 1, "JoinReply") // the critical transition
	run(sim.EvApp, 3, 0, "")
	msg(0, 3, "Join")
	msg(2, 0, "Join")
	msg(3, 2, "JoinReply")
	for id := range sim.NodeID(4) {
		n := s.Service(id).(*Node)
		fmt.Printf("node %d: %s, parent %d, children %v\n", id, n.state, n.parent, n.kids)
	}
	fmt.Println("KidsMatch:", KidsMatch.Check(s.View()))
	// Output:
	// node 0 handles app request JoinOverlay{}
	// node 1 handles app request JoinOverlay{}
	// node 2 handles app request JoinOverlay{}
	// node 0 receives Frame{src: 2, dst: 0, body: Join{source: 1, id: attempt{inc: 2, n: 1}, down: false}} from node 1
	// node 0 receives Frame{src: 3, dst: 0, body: Join{source: 2, id: attempt{inc: 3, n: 1}, down: false}} from node 2
	// node 1 receives Frame{src: 1, dst: 2, body: Hello{}} from node 0
	// node 1 receives Frame{src: 1, dst: 2, body: JoinReply{id: attempt{inc: 2, n: 1}, root: 0}} from node 0
	// node 2 receives Frame{src: 1, dst: 3, body: Hello{}} from node 0
	// node 2 receives Frame{src: 1, dst: 3, body: JoinReply{id: attempt{inc: 3, n: 1}, root: 0}} from node 0
	// node 3 handles app request JoinOverlay{}
	// node 0 receives Frame{src: 4, dst: 0, body: Join{source: 3, id: attempt{inc: 4, n: 1}, down: false}} from node 3
	// node 1 receives Frame{src: 1, dst: 2, body: Join{source: 3, id: attempt{inc: 4, n: 1}, down: true}} from node 0
	// node 3 resets
	// node 3 receives Frame{src: 2, dst: 0, body: JoinReply{id: attempt{inc: 4, n: 1}, root: 0}} from node 1
	// node 3 handles app request JoinOverlay{}
	// node 0 receives Frame{src: 5, dst: 0, body: Join{source: 3, id: attempt{inc: 5, n: 1}, down: false}} from node 3
	// node 2 receives Frame{src: 1, dst: 3, body: Join{source: 3, id: attempt{inc: 5, n: 1}, down: true}} from node 0
	// node 3 receives Frame{src: 3, dst: 0, body: JoinReply{id: attempt{inc: 5, n: 1}, root: 0}} from node 2
	// node 0: joined, parent -1, children [1 2]
	// node 1: joined, parent 0, children [3]
	// node 2: joined, parent 0, children [3]
	// node 3: joined, parent 2, children []
	// KidsMatch: false
}
