package pastry

import (
	"errors"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Budgets, in simulator steps (default weights: app 40, message 8, timer 1).
const (
	// fixedWalks random walks of the fixed variant, with failures off and
	// on, must each reach a live state within fixedBudget steps.
	fixedWalks  = 200
	fixedBudget = 3000
	// deadDepth is the length of the walks that tell dead states from
	// transient ones (judge).
	deadDepth = 5000
)

// walker checks the state a walk starts in, records the first SizeMatch
// violation instead of failing, counts only resets as failures (a walk
// with failures on is live only once it has recovered from its resets)
// and fails the test if the overlay falls quiet, which it never should.
var walker = servicetest.Walker{CheckStart: true, RecordUnsafe: true, Quiescent: servicetest.QuiescentFails, ResetsOnly: true}

// judge (package critical): a state is dead when 50 recovery walks from it
// (to deadDepth steps in all, failures off after the execution's last
// one) never reach a live state, and transient when one of 50 such walks
// does; critical.Find tries 20 walks per probe. The walks ignore SizeMatch,
// which the test's own walks record instead.
var judge = servicetest.Judge{WalkDepth: deadDepth, Dead: 50, Transient: 50, Search: 20, Seed: 7919, IgnoreSafety: true}

func node(s *engine.Sim, id sim.NodeID) *Pastry { return s.Service(id).(*Pastry) }

func addrs(hs []Handle) []sim.NodeID {
	out := []sim.NodeID{}
	for _, h := range hs {
		out = append(out, h.Addr)
	}
	return out
}

func TestRegistration(t *testing.T) {
	sys := servicetest.CheckParams(t, SystemName, map[string]string{"nodes": "3", "fixed": "false", "leafset": "2", "resets": "1", "breaks": "0"})
	cfg := servicetest.Config(t, SystemName)
	if len(cfg.Safety) != 1 || cfg.Safety[0].Name != "SizeMatch" || len(cfg.Liveness) != 1 || cfg.Liveness[0].Name != "AllNodes" {
		t.Errorf("properties: safety %v liveness %v", cfg.Safety, cfg.Liveness)
	}
	if cfg.Nodes != 3 || cfg.Failures.Resets != 1 {
		t.Errorf("nodes %d resets %d", cfg.Nodes, cfg.Failures.Resets)
	}
	for _, bad := range []map[string]string{{"nodes": "1"}, {"leafset": "3"}, {"leafset": "0"}} {
		if _, _, err := sys.Config(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, _, err := sys.Config(map[string]string{"fixed": "maybe"}); !errors.Is(err, sim.ErrBadParam) {
		t.Errorf("fixed=maybe: %v", err)
	}
}

func TestSelectLeafset(t *testing.T) {
	self := Handle{Addr: 0, ID: 100}
	h := func(a int, id ID) Handle { return Handle{Addr: sim.NodeID(a), ID: id} }
	for _, c := range []struct {
		cands       []Handle
		size        int
		left, right []sim.NodeID
	}{
		{nil, 2, []sim.NodeID{}, []sim.NodeID{}},
		{[]Handle{h(1, 90)}, 2, []sim.NodeID{}, []sim.NodeID{1}},
		{[]Handle{h(1, 90), h(2, 110), self, h(2, 110)}, 2, []sim.NodeID{1}, []sim.NodeID{2}},
		// All fit: split by clockwise distance, successor first on the right.
		{[]Handle{h(1, 90), h(2, 101), h(3, 250)}, 4, []sim.NodeID{1}, []sim.NodeID{2, 3}},
		// More than fit: L/2 closest on each side.
		{[]Handle{h(1, 90), h(2, 101), h(3, 250), h(4, 120), h(5, 60)}, 4, []sim.NodeID{1, 5}, []sim.NodeID{2, 4}},
	} {
		l, r := selectLeafset(self, c.cands, c.size)
		if got, want := addrs(l), c.left; !equal(got, want) {
			t.Errorf("%v size %d: left %v, want %v", c.cands, c.size, got, want)
		}
		if got, want := addrs(r), c.right; !equal(got, want) {
			t.Errorf("%v size %d: right %v, want %v", c.cands, c.size, got, want)
		}
	}
}

func equal(a, b []sim.NodeID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFixedRandomWalks: 200 seeded walks of the fixed variant with failures
// off and 200 with failures on never violate SizeMatch and reach a live
// state within fixedBudget steps; with failures on, a live state after all
// the resets. Also with more nodes, a smaller leaf set relative to them,
// two resets and a connection break.
func TestFixedRandomWalks(t *testing.T) {
	walker.ReachLiveMatrix(t, SystemName, []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "nodes": "5", "leafset": "2", "resets": "2", "breaks": "1"},
	}, servicetest.Batch{Walks: fixedWalks, Budget: fixedBudget, Determinism: 3})
}

// TestFixedRapidRejoin is the prefix-based search of seed 003 §4.2 (point
// 4) on the fixed variant: from live states, reset each node, let it ask
// to rejoin and make its first join attempt at once (the rapid rejoin),
// then walk on with failures off. It always gets back in.
func TestFixedRapidRejoin(t *testing.T) {
	cfg := servicetest.Config(t, SystemName, map[string]string{"fixed": "true"})
	var steps []int
	for seed := range uint64(20) {
		prefix := walker.LivePrefix(t, cfg, seed, fixedBudget)
		for x := range sim.NodeID(cfg.Nodes) {
			s := servicetest.ResetAt(t, prefix, x, seed*100+uint64(x))
			servicetest.Step(t, s, "rejoin request", servicetest.App(x))
			servicetest.Step(t, s, "first join attempt", servicetest.Timer(x, TimerJoin))
			r := walker.Walk(t, s, fixedBudget, 0)
			if r.Live < 0 || r.Unsafe >= 0 {
				t.Fatalf("seed %d: node %d did not get back in: %+v", seed, x, r)
			}
			steps = append(steps, r.Live-prefix.Steps())
		}
	}
	t.Logf("fixed: steps from a reset at a live state back to live: %v", servicetest.Summarize(steps))
}

// rejoinScenario drives the execution of the bug: nodes 2 and 1 join node
// 0's overlay (live after step 14), node 2 resets, the application asks it
// to rejoin, and its join timer fires at once: a rapid rejoin, before any
// leaf set probe has reached it. It returns the script and the index of
// the last state.
func rejoinScenario(t *testing.T, cfg *sim.Config) (*servicetest.Script, int) {
	s := servicetest.New(t, cfg, 1)
	sc := servicetest.NewScript(t, s)
	sc.Do("node 0 asks to start", servicetest.App(0))
	sc.Do("node 1 asks to join", servicetest.App(1))
	sc.Do("node 2 asks to join", servicetest.App(2))
	sc.Do("node 0 starts the overlay", servicetest.Timer(0, TimerJoin))
	sc.Do("node 2 sends its join request", servicetest.Timer(2, TimerJoin))
	sc.Do("node 0 answers node 2", servicetest.Message(0, 2, "JoinRequest"))
	sc.Do("node 2 joins", servicetest.Message(2, 0, "JoinReply"))
	sc.Do("node 0 inserts node 2", servicetest.Message(0, 2, "Announce"))
	sc.Do("node 1 sends its join request", servicetest.Timer(1, TimerJoin))
	sc.Do("node 0 routes node 1's join to node 2", servicetest.Message(0, 1, "JoinRequest"))
	sc.Do("node 2 answers node 1", servicetest.Message(2, 0, "JoinRequest"))
	sc.Do("node 1 joins", servicetest.Message(1, 2, "JoinReply"))
	sc.Do("node 0 inserts node 1", servicetest.Message(0, 1, "Announce"))
	sc.Do("node 2 inserts node 1", servicetest.Message(2, 1, "Announce"))
	if !servicetest.Live(t, s) {
		t.Fatalf("not live after step %d", s.Steps())
	}
	sc.Do("node 2 resets", servicetest.Reset(2))
	s.SetFailures(false)
	sc.Do("node 2 is asked to rejoin", servicetest.App(2))
	sc.Do("node 2 sends its join request", servicetest.Timer(2, TimerJoin))
	return sc, sc.Last()
}

// TestBuggyCriticalTransition: in rejoinScenario the critical transition is
// step 17, node 2's join timer firing: its first join attempt after the
// reset, which makes it a joining node. Nodes 0 and 1 still hold node 2's
// previous incarnation in their leaf sets. Before this step the state is
// transient: node 2 is idle, so a leaf set probe from node 0 or node 1
// gets the answer "not a member" and the stale entry is dropped; if both
// are dropped before node 2 tries to join, its join reaches a joined node
// and it gets in. After it the state is dead: a joining node answers
// probes as a member (the bug), so the stale entries are never dropped,
// and every join request for node 2's identifier is routed to the node
// closest to it, node 2 itself, which is not joined and drops it (seed 003
// §1: "its join messages were forwarded to unjoined nodes"). SizeMatch is
// never violated: Pastry's bug is a pure liveness bug (Table 2).
func TestBuggyCriticalTransition(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	sc, crit := rejoinScenario(t, cfg)
	if crit != 17 {
		t.Fatalf("scenario has %d steps", crit)
	}
	ev := sc.States[crit].LastEvent()
	if ev.Kind != engine.EvTimer || ev.Node != 2 || ev.Timer != TimerJoin {
		t.Fatalf("step %d is %s", crit, ev)
	}
	for _, id := range []sim.NodeID{0, 1} {
		if n := node(sc.States[crit], id); !contains(n.Leafset, 2) {
			t.Errorf("node %d does not hold node 2: %v", id, n.Leafset)
		}
	}
	// (a) before: transient; (b) after: dead; and the binary search of
	// Algorithm 3 over the scenario agrees.
	judge.CheckCritical(t, sc.Sim, crit)
	// In the dead state node 2 keeps receiving its own join requests, and
	// SizeMatch holds throughout.
	dead := sc.States[crit].Clone(engine.NewRandom(5))
	ownJoins := 0
	for range deadDepth {
		servicetest.Next(t, dead)
		if !servicetest.Safe(t, dead) {
			t.Fatalf("SizeMatch violated at step %d", dead.Steps())
		}
		if e := dead.LastEvent(); e.Kind == engine.EvMessage && e.Node == 2 && sim.MessageName(e.Msg) == "JoinRequest" && e.Msg.(JoinRequest).Joiner.Addr == 2 {
			ownJoins++
		}
	}
	if n := node(dead, 2); n.Status != Joining || len(n.Leafset) != 0 || ownJoins == 0 {
		t.Errorf("node 2: %s, leaf set %v, own join requests received %d", n.Status, n.Leafset, ownJoins)
	}
	t.Logf("in %d steps from the dead state node 2 received its own join request %d times", deadDepth, ownJoins)
	for _, st := range sc.States {
		if !servicetest.Safe(t, st) {
			t.Errorf("SizeMatch violated after step %d", st.Steps())
		}
	}
}

// TestBuggySlowRejoin shows the live alternative before the critical
// transition: node 2 rejoins slowly, after nodes 0 and 1 probed it while it
// was idle and dropped it from their leaf sets; its join then reaches a
// joined node and it gets in.
func TestBuggySlowRejoin(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	sc, crit := rejoinScenario(t, cfg)
	alt := sc.States[crit-1].Clone(engine.NewRandom(9))
	servicetest.Step(t, alt, "node 0 probes its leaf set", servicetest.Timer(0, TimerMaintain))
	servicetest.Step(t, alt, "node 1 probes its leaf set", servicetest.Timer(1, TimerMaintain))
	servicetest.Step(t, alt, "node 2, idle, answers node 0: not a member", servicetest.Message(2, 0, "Probe"))
	servicetest.Step(t, alt, "node 2, idle, answers node 1: not a member", servicetest.Message(2, 1, "Probe"))
	servicetest.Step(t, alt, "node 0 drops node 2", servicetest.Message(0, 2, "ProbeReply"))
	servicetest.Step(t, alt, "node 1 drops node 2", servicetest.Message(1, 2, "ProbeReply"))
	for _, id := range []sim.NodeID{0, 1} {
		if n := node(alt, id); contains(n.Leafset, 2) {
			t.Fatalf("node %d still holds node 2", id)
		}
	}
	servicetest.Step(t, alt, "node 2 sends its join request", servicetest.Timer(2, TimerJoin))
	if !judge.IsTransient(t, alt, alt.Steps()) {
		t.Error("slow rejoin does not recover")
	}
}

// TestFixedScenarioRecovers runs rejoinScenario on the fixed variant: the
// join request for node 2 makes node 0 drop its stale entry and route it
// to a joined node, and node 2 gets back in.
func TestFixedScenarioRecovers(t *testing.T) {
	cfg := servicetest.Config(t, SystemName, map[string]string{"fixed": "true"})
	sc, crit := rejoinScenario(t, cfg)
	rs := walker.From(t, sc.States[crit], judge.Transient, fixedBudget, 0)
	rs.CheckLive(t, "fixed scenario")
	t.Logf("fixed scenario: steps to live after step %d: %v", crit, rs.Summary())
}

// TestBuggyRandomWalksFindDeadState is the search without a script: seeded
// random walks of the buggy variant with failures on (one reset), 5,000
// steps each, until the first that never becomes live after its reset. The critical
// transition of that walk, found by binary search, is a join timer: a
// node's join attempt while its stale entry (or another joining node's)
// lies on its join route. SizeMatch is never violated.
func TestBuggyRandomWalksFindDeadState(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	seed, s, _ := walker.FirstStuck(t, cfg, servicetest.Batch{Walks: 300, Budget: deadDepth, Failures: true, Each: func(seed uint64, _ *engine.Sim, r servicetest.Result) bool {
		if r.Unsafe >= 0 {
			t.Fatalf("seed %d: SizeMatch violated at step %d", seed, r.Unsafe)
		}
		return true
	}})
	res := judge.Find(t, s)
	crit, ev := res.Step, res.Event
	if !judge.IsCritical(t, s, crit) {
		t.Fatalf("seed %d: step %d is not the critical transition", seed, crit)
	}
	if ev.Kind != engine.EvTimer || ev.Timer != TimerJoin {
		t.Errorf("seed %d: critical transition at step %d is %s", seed, crit, ev)
	}
	t.Logf("seed %d: dead after %d steps; critical transition at step %d: %s", seed, s.Steps(), crit, ev)
}
