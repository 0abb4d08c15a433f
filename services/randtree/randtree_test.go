package randtree

import (
	"context"
	"slices"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// dMax is the walk length after which a walk that never reached a live
// state counts as stuck (seed 003's d_max, scaled to this small system).
const dMax = 5000

// walker's walks fail the test on a safety violation (Timers), and a walk
// that falls quiescent is live if the tree properties hold where it
// stopped.
var walker = servicetest.Walker{Quiescent: servicetest.QuiescentCheck}

// judge finds critical transitions with package critical: 20 walks of
// dMax steps per probe; a state is dead when none of 50 walks turns live,
// transient when one of 50 does.
var judge = servicetest.Judge{WalkDepth: dMax, Dead: 50, Transient: 50, Search: 20, Seed: 1}

// TestFixedWalksReachLive runs 200 seeded random walks of the fixed tree
// for each configuration, with failures on and off, and requires each to
// keep the Timers safety property and to reach a state where OneRoot,
// NoLoops, HasParent and KidsMatch all hold within dMax steps (after its
// failures).
func TestFixedWalksReachLive(t *testing.T) {
	walker.ReachLiveMatrix(t, SystemName, []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "nodes": "6", "resets": "2"},
		{"fixed": "true", "nodes": "5", "degree": "1", "resets": "2", "breaks": "2"},
	}, servicetest.Batch{Walks: 200, Budget: dMax})
}

const (
	nodeA = 1 // accepts C, then keeps it as a child forever
	nodeD = 2 // C's parent in the end
	nodeC = 3 // the node that resets
)

// recv delivers the next frame on the connection from node from to node
// to, which must carry the named message; Hello frames queued before it
// on that connection (session traffic) are delivered first.
func recv(t *testing.T, s *engine.Sim, what string, to, from sim.NodeID, name string) engine.Event {
	t.Helper()
	for {
		ev := servicetest.Step(t, s, what, servicetest.From(to, from))
		switch got := sim.MessageName(ev.Msg); {
		case got == name:
			return ev
		case got != "Hello":
			t.Fatalf("step %d (%s): got %v", s.Steps(), what, ev)
		}
	}
}

// paperScenario drives the tree of seed 003 §6 (nodes=4, degree=2) to the
// state just before the critical transition: root 0 has children A and D;
// C's Join went via the bootstrap (the root) down to A, which accepted it
// and sent a JoinReply; then C reset, losing all state.
func paperScenario(t *testing.T, fixed bool) *engine.Sim {
	params := map[string]string{}
	if fixed {
		params["fixed"] = "true"
	}
	// The root, full, sends C's Join down to its first child, A.
	ch := &servicetest.Scripted{Rand: []int{0}, Then: engine.NewRandom(0)}
	s := servicetest.NewWith(t, servicetest.Config(t, SystemName, params), engine.Options{Chooser: ch})
	servicetest.Step(t, s, "0 becomes root", servicetest.App(0))
	servicetest.Step(t, s, "A joins", servicetest.App(nodeA))
	servicetest.Step(t, s, "D joins", servicetest.App(nodeD))
	recv(t, s, "0 accepts A", 0, nodeA, "Join")
	recv(t, s, "0 accepts D", 0, nodeD, "Join")
	recv(t, s, "A joined", nodeA, 0, "JoinReply")
	recv(t, s, "D joined", nodeD, 0, "JoinReply")
	servicetest.Step(t, s, "C joins", servicetest.App(nodeC))
	recv(t, s, "0 sends C's Join to A", 0, nodeC, "Join")
	recv(t, s, "A accepts C", nodeA, 0, "Join")
	if a := s.Service(nodeA).(*Node); !slices.Contains(a.kids, nodeC) {
		t.Fatalf("A did not accept C:\n%s", s.NodeText(nodeA))
	}
	servicetest.Step(t, s, "C resets", servicetest.Reset(nodeC))
	return s
}

// TestPaperScenario replays seed 003 §6 on the buggy tree. Before C
// receives A's JoinReply the system can recover (along the live path C's
// application asks it to join first, and C answers the JoinReply with
// Remove); after C receives it in init mode and ignores it, 50 walks of
// dMax steps never reach a live state: A keeps C as a child forever.
func TestPaperScenario(t *testing.T) {
	s := paperScenario(t, false)
	// (a) Before the critical transition: walks recover.
	before := s.Steps()
	if !judge.IsTransient(t, s, before) {
		t.Fatal("no walk recovers before the critical transition")
	}
	// The live alternative: C's application asks it to join first.
	alt := s.Clone(engine.NewRandom(1))
	servicetest.Step(t, alt, "C joins again", servicetest.App(nodeC))
	recv(t, alt, "C gets the JoinReply while joining", nodeC, nodeA, "JoinReply")
	recv(t, alt, "A gets Remove", nodeA, nodeC, "Remove")
	if a := alt.Service(nodeA).(*Node); slices.Contains(a.kids, nodeC) {
		t.Fatalf("A kept C after Remove:\n%s", alt.NodeText(nodeA))
	}
	if n := walker.Recoveries(t, alt, 50, dMax, 200); n != 50 {
		t.Fatalf("on the live path only %d of 50 walks recover", n)
	}

	// The critical transition: C, in init mode, receives A's JoinReply.
	if c := s.Service(nodeC).(*Node); c.state != stateInit {
		t.Fatalf("C is not in init mode:\n%s", s.NodeText(nodeC))
	}
	ev := recv(t, s, "C gets the JoinReply in init mode", nodeC, nodeA, "JoinReply")
	if ev.Node != nodeC || ev.Peer != nodeA || sim.MessageName(ev.Msg) != "JoinReply" {
		t.Fatalf("critical event %v", ev)
	}
	// (b) After it: never live, and Algorithm 3 on the scenario (continued
	// to d_max) agrees.
	if !judge.IsDead(t, s, s.Steps()) {
		t.Fatal("a walk recovers after the critical transition")
	}
	judge.CheckCritical(t, s, before+1)

	// The rest of the paper's story: C joins again, is routed to D, and
	// ends up in the child sets of both A and D.
	ch := &servicetest.Scripted{Rand: []int{1}, Then: engine.NewRandom(0)}
	s.SetChooser(ch)
	servicetest.Step(t, s, "C joins again", servicetest.App(nodeC))
	recv(t, s, "0 sends C's Join to D", 0, nodeC, "Join")
	recv(t, s, "D accepts C", nodeD, 0, "Join")
	recv(t, s, "C joined under D", nodeC, nodeD, "JoinReply")
	a, d, c := s.Service(nodeA).(*Node), s.Service(nodeD).(*Node), s.Service(nodeC).(*Node)
	if !slices.Contains(a.kids, nodeC) || !slices.Contains(d.kids, nodeC) || c.parent != nodeD {
		t.Fatalf("not the paper's dead state:\n%s%s%s", s.NodeText(nodeA), s.NodeText(nodeD), s.NodeText(nodeC))
	}
	if !judge.IsDead(t, s, s.Steps()) {
		t.Fatal("a walk recovers from the dead state")
	}
}

// TestPaperScenarioFixed runs the same steps on the fixed tree: C answers
// the JoinReply with Remove, and every walk reaches a live state.
func TestPaperScenarioFixed(t *testing.T) {
	s := paperScenario(t, true)
	recv(t, s, "C gets the JoinReply in init mode", nodeC, nodeA, "JoinReply")
	if n := walker.Recoveries(t, s, 50, dMax, 300); n != 50 {
		t.Fatalf("only %d of 50 walks recover", n)
	}
	recv(t, s, "A gets Remove", nodeA, nodeC, "Remove")
	if a := s.Service(nodeA).(*Node); slices.Contains(a.kids, nodeC) {
		t.Fatalf("A kept C after Remove:\n%s", s.NodeText(nodeA))
	}
}

// TestBuggyWalksGetStuck is the search: seeded random walks from the
// initial state of the buggy tree (budget: 3000 walks of dMax steps) find
// an execution that never becomes live; it is stuck in the paper's state
// and its critical transition (k = 20 walks per probe) is the reset node
// receiving a JoinReply in init mode.
func TestBuggyWalksGetStuck(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	seed, s, _ := walker.FirstStuck(t, cfg, servicetest.Batch{Walks: 3000, Budget: dMax, Failures: true})
	res := judge.Find(t, s)
	i, ev := res.Step, res.Event
	t.Logf("seed %d: stuck; critical transition at step %d: %v (%d probes)", seed, i, ev, len(res.Probes))
	before := servicetest.Replayer(t, cfg, s.ChoiceValues())(i - 1)
	if sim.MessageName(ev.Msg) != "JoinReply" || before.Service(ev.Node).(*Node).state != stateInit {
		t.Fatalf("critical transition %v is not a JoinReply received in init mode", ev)
	}
	// A stale child: some node lists ev.Node, whose parent is another.
	c := s.Service(ev.Node).(*Node)
	if a := s.Service(ev.Peer).(*Node); !slices.Contains(a.kids, ev.Node) || c.parent == ev.Peer {
		t.Fatalf("not the paper's dead state:\n%s%s", s.NodeText(ev.Peer), s.NodeText(ev.Node))
	}
}

// TestJoinViaNonRootBootstrap has nodes 3 and 4 bootstrap via node 1, so
// their Joins go up to the root before they come down; 200 walks of the
// fixed tree with a reset reach a live state.
func TestJoinViaNonRootBootstrap(t *testing.T) {
	cfg := servicetest.Config(t, SystemName, map[string]string{"fixed": "true", "nodes": "5"})
	cfg.Service = func(id sim.NodeID) sim.Service {
		if id >= 3 {
			return newNode(true, 2, 1)
		}
		return newNode(true, 2, 0)
	}
	up := 0
	walker.Walks(t, cfg, servicetest.Batch{Walks: 200, Budget: dMax, Failures: true, Each: func(seed uint64, s *engine.Sim, r servicetest.Result) bool {
		if r.Live < 0 {
			t.Fatalf("seed %d: not live: %+v", seed, r)
		}
		for _, id := range []sim.NodeID{3, 4} {
			if n := s.Service(id).(*Node); n.parent != 1 {
				up++ // joined somewhere its bootstrap could only reach via the root
			}
		}
		return true
	}})
	if up == 0 {
		t.Fatal("no Join went up to the root")
	}
}

// A crashed node keeps its state and loses its timers: Timers holds of
// the nodes that are up, so the fixed variant with a crash breaks no
// safety property (budget: 3,000 paths).
func TestTimersWithACrash(t *testing.T) {
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Params: map[string]string{"fixed": "true"},
		Faults: "crashes=1", Properties: []string{"Timers"}, MaxPaths: 3000, WalkDepth: 100, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f != nil {
		t.Errorf("%v of %s at step %d", f.Kind, f.Property, f.Steps)
	}
}
