package randtree

import (
	"fmt"
	"slices"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Example drives the buggy tree through seed 003 §6's execution: A (node
// 1) takes C (node 3) as a child, C resets and ignores the JoinReply in
// init mode (the critical transition), then joins under D (node 2), and
// A keeps C as a child.
func Example() {
	// The full root sends C's first Join to its child 1, the second to 2.
	_, s := servicetest.MustStart(SystemName, map[string]string{"fixed": "false"}, &servicetest.Scripted{Rand: []int{0, 1}, Then: engine.NewRandom(1)})
	run := func(m servicetest.Match) { fmt.Println(servicetest.MustStep(s, m)) }
	msg := func(node, peer sim.NodeID, name string) {
		// Session traffic queued first on the connection goes first.
		if hello := servicetest.Message(node, peer, "Hello"); slices.ContainsFunc(s.Ready(), hello) {
			run(hello)
		}
		run(servicetest.Message(node, peer, name))
	}
	run(servicetest.App(0))
	run(servicetest.App(1))
	run(servicetest.App(2))
	msg(0, 1, "Join")
	msg(0, 2, "Join")
	msg(1, 0, "JoinReply")
	msg(2, 0, "JoinReply")
	run(servicetest.App(3))
	msg(0, 3, "Join")
	msg(1, 0, "Join")
	run(servicetest.Reset(3))
	msg(3, 1, "JoinReply") // the critical transition
	run(servicetest.App(3))
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
