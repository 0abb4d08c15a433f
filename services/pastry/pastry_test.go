package pastry

import (
	"errors"
	"testing"

	"github.com/macemc/macemc/sim"
)

const systemName = "pastry"

// Budgets, in simulator steps (default weights: app 40, message 8, timer 1).
const (
	// fixedWalks random walks of the fixed variant, with failures off and
	// on, must each reach a live state within fixedBudget steps.
	fixedWalks  = 200
	fixedBudget = 3000
	// A state is dead when deadWalks walks of deadDepth steps from it
	// (failures off) never reach a live state, and transient when one of
	// recoverWalks such walks does.
	deadWalks    = 50
	deadDepth    = 5000
	recoverWalks = 50
	// searchWalks walks per state in the binary search for the critical
	// transition.
	searchWalks = 20
)

func node(s *sim.Sim, id sim.NodeID) *Pastry { return s.Service(id).(*Pastry) }

func addrs(hs []Handle) []sim.NodeID {
	out := []sim.NodeID{}
	for _, h := range hs {
		out = append(out, h.Addr)
	}
	return out
}

func TestRegistration(t *testing.T) {
	sys, err := sim.Lookup("pastry")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"nodes": "3", "fixed": "false", "leafset": "2", "resets": "1", "breaks": "0"}
	for _, p := range sys.Params {
		if d, ok := want[p.Name]; !ok || d != p.Default {
			t.Errorf("param %s default %q, want %q", p.Name, p.Default, d)
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing params %v", want)
	}
	cfg := testConfig(t, nil)
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
	for _, params := range []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "nodes": "5", "leafset": "2", "resets": "2", "breaks": "1"},
	} {
		cfg := testConfig(t, params)
		for _, failures := range []bool{false, true} {
			var steps []int
			for seed := range uint64(fixedWalks) {
				s := newSim(t, cfg, seed, failures)
				want := 0
				if failures {
					want = cfg.Failures.Resets
				}
				r := walk(t, s, fixedBudget, want)
				if r.unsafe >= 0 {
					t.Fatalf("%v failures=%v seed %d: SizeMatch violated at step %d (%s)", params, failures, seed, r.unsafe, r.unsafeWhat)
				}
				if r.live < 0 {
					t.Fatalf("%v failures=%v seed %d: not live within %d steps", params, failures, seed, fixedBudget)
				}
				steps = append(steps, r.live)
				if seed < 3 {
					if err := sim.CheckDeterminism(cfg, s.ChoiceValues(), sim.Options{NoFailures: !failures}); err != nil {
						t.Fatal(err)
					}
				}
			}
			med, max := median(steps)
			t.Logf("%v failures=%v: %d walks live, steps to live median %d max %d (budget %d)", params, failures, len(steps), med, max, fixedBudget)
		}
	}
}

// TestFixedRapidRejoin is the prefix-based search of seed 003 §4.2 (point
// 4) on the fixed variant: from live states, reset each node, let it ask
// to rejoin and make its first join attempt at once (the rapid rejoin),
// then walk on with failures off. It always gets back in.
func TestFixedRapidRejoin(t *testing.T) {
	cfg := testConfig(t, map[string]string{"fixed": "true"})
	var steps []int
	for seed := range uint64(20) {
		prefix := livePrefix(t, cfg, seed, fixedBudget)
		for x := range sim.NodeID(cfg.Nodes) {
			s := prefix.Clone(sim.NewRandom(seed*100 + uint64(x)))
			s.SetFailures(true)
			sc := newScript(t, s)
			sc.do("reset", reset(x))
			s.SetFailures(false)
			sc.do("rejoin request", app(x))
			sc.do("first join attempt", timer(x, TimerJoin))
			r := walk(t, s, fixedBudget, 0)
			if r.live < 0 || r.unsafe >= 0 {
				t.Fatalf("seed %d: node %d did not get back in: %+v", seed, x, r)
			}
			steps = append(steps, r.live-prefix.Steps())
		}
	}
	med, max := median(steps)
	t.Logf("fixed: steps from a reset at a live state back to live: median %d max %d", med, max)
}

// rejoinScenario drives the execution of the bug: nodes 2 and 1 join node
// 0's overlay (live after step 14), node 2 resets, the application asks it
// to rejoin, and its join timer fires at once: a rapid rejoin, before any
// leaf set probe has reached it. It returns the script and the index of
// the last state.
func rejoinScenario(t *testing.T, cfg *sim.Config) (*script, int) {
	s := newSim(t, cfg, 1, true)
	sc := newScript(t, s)
	sc.do("node 0 asks to start", app(0))
	sc.do("node 1 asks to join", app(1))
	sc.do("node 2 asks to join", app(2))
	sc.do("node 0 starts the overlay", timer(0, TimerJoin))
	sc.do("node 2 sends its join request", timer(2, TimerJoin))
	sc.do("node 0 answers node 2", msg(0, 2, "JoinRequest"))
	sc.do("node 2 joins", msg(2, 0, "JoinReply"))
	sc.do("node 0 inserts node 2", msg(0, 2, "Announce"))
	sc.do("node 1 sends its join request", timer(1, TimerJoin))
	sc.do("node 0 routes node 1's join to node 2", msg(0, 1, "JoinRequest"))
	sc.do("node 2 answers node 1", msg(2, 0, "JoinRequest"))
	sc.do("node 1 joins", msg(1, 2, "JoinReply"))
	sc.do("node 0 inserts node 1", msg(0, 1, "Announce"))
	sc.do("node 2 inserts node 1", msg(2, 1, "Announce"))
	if !isLive(t, s) {
		t.Fatalf("not live after step %d", s.Steps())
	}
	sc.do("node 2 resets", reset(2))
	s.SetFailures(false)
	sc.do("node 2 is asked to rejoin", app(2))
	sc.do("node 2 sends its join request", timer(2, TimerJoin))
	return sc, len(sc.states) - 1
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
	cfg := testConfig(t, nil)
	sc, crit := rejoinScenario(t, cfg)
	if crit != 17 {
		t.Fatalf("scenario has %d steps", crit)
	}
	ev := sc.states[crit].LastEvent()
	if ev.Kind != sim.EvTimer || ev.Node != 2 || ev.Timer != TimerJoin {
		t.Fatalf("step %d is %s", crit, ev)
	}
	for _, id := range []sim.NodeID{0, 1} {
		if n := node(sc.states[crit], id); !contains(n.Leafset, 2) {
			t.Errorf("node %d does not hold node 2: %v", id, n.Leafset)
		}
	}
	// (a) before: transient; (b) after: dead.
	if !recovers(t, sc.states[crit-1], recoverWalks, deadDepth) {
		t.Errorf("state before step %d does not recover", crit)
	}
	if recovers(t, sc.states[crit], deadWalks, deadDepth) {
		t.Errorf("state after step %d recovers", crit)
	}
	// The binary search of Algorithm 3 over the scenario agrees.
	if got := criticalStep(t, crit, func(i int) *sim.Sim { return sc.states[i] }, searchWalks, deadDepth); got != crit {
		t.Errorf("critical transition search: step %d (%s), want %d", got, sc.states[got].LastEvent(), crit)
	}
	// In the dead state node 2 keeps receiving its own join requests, and
	// SizeMatch holds throughout.
	dead := sc.states[crit].Clone(sim.NewRandom(5))
	ownJoins := 0
	for range deadDepth {
		step(t, dead)
		if !isSafe(t, dead) {
			t.Fatalf("SizeMatch violated at step %d", dead.Steps())
		}
		if e := dead.LastEvent(); e.Kind == sim.EvMessage && e.Node == 2 && sim.MessageName(e.Msg) == "JoinRequest" && e.Msg.(JoinRequest).Joiner.Addr == 2 {
			ownJoins++
		}
	}
	if n := node(dead, 2); n.Status != Joining || len(n.Leafset) != 0 || ownJoins == 0 {
		t.Errorf("node 2: %s, leaf set %v, own join requests received %d", n.Status, n.Leafset, ownJoins)
	}
	t.Logf("in %d steps from the dead state node 2 received its own join request %d times", deadDepth, ownJoins)
	for _, st := range sc.states {
		if !isSafe(t, st) {
			t.Errorf("SizeMatch violated after step %d", st.Steps())
		}
	}
}

// TestBuggySlowRejoin shows the live alternative before the critical
// transition: node 2 rejoins slowly, after nodes 0 and 1 probed it while it
// was idle and dropped it from their leaf sets; its join then reaches a
// joined node and it gets in.
func TestBuggySlowRejoin(t *testing.T) {
	cfg := testConfig(t, nil)
	sc, crit := rejoinScenario(t, cfg)
	alt := newScript(t, sc.states[crit-1].Clone(sim.NewRandom(9)))
	alt.do("node 0 probes its leaf set", timer(0, TimerMaintain))
	alt.do("node 1 probes its leaf set", timer(1, TimerMaintain))
	alt.do("node 2, idle, answers node 0: not a member", msg(2, 0, "Probe"))
	alt.do("node 2, idle, answers node 1: not a member", msg(2, 1, "Probe"))
	alt.do("node 0 drops node 2", msg(0, 2, "ProbeReply"))
	alt.do("node 1 drops node 2", msg(1, 2, "ProbeReply"))
	for _, id := range []sim.NodeID{0, 1} {
		if n := node(alt.s, id); contains(n.Leafset, 2) {
			t.Fatalf("node %d still holds node 2", id)
		}
	}
	alt.do("node 2 sends its join request", timer(2, TimerJoin))
	if !recovers(t, alt.s, recoverWalks, deadDepth) {
		t.Error("slow rejoin does not recover")
	}
}

// TestFixedScenarioRecovers runs rejoinScenario on the fixed variant: the
// join request for node 2 makes node 0 drop its stale entry and route it
// to a joined node, and node 2 gets back in.
func TestFixedScenarioRecovers(t *testing.T) {
	cfg := testConfig(t, map[string]string{"fixed": "true"})
	sc, crit := rejoinScenario(t, cfg)
	var steps []int
	for seed := range uint64(recoverWalks) {
		r := walk(t, sc.states[crit].Clone(sim.NewRandom(seed)), fixedBudget, 0)
		if r.live < 0 || r.unsafe >= 0 {
			t.Fatalf("seed %d: %+v", seed, r)
		}
		steps = append(steps, r.live-crit)
	}
	med, max := median(steps)
	t.Logf("fixed scenario: steps to live after step %d: median %d max %d", crit, med, max)
}

// TestBuggyRandomWalksFindDeadState is the search without a script: seeded
// random walks of the buggy variant with failures on (one reset), 5,000
// steps each, until the first that never becomes live after its reset. The critical
// transition of that walk, found by binary search, is a join timer: a
// node's join attempt while its stale entry (or another joining node's)
// lies on its join route. SizeMatch is never violated.
func TestBuggyRandomWalksFindDeadState(t *testing.T) {
	cfg := testConfig(t, nil)
	const maxSeeds, budget = 300, deadDepth
	found := 0
	for seed := uint64(0); seed < maxSeeds && found < 1; seed++ {
		s := newSim(t, cfg, seed, true)
		r := walk(t, s, budget, 1)
		if r.unsafe >= 0 {
			t.Fatalf("seed %d: SizeMatch violated at step %d", seed, r.unsafe)
		}
		if r.live >= 0 {
			continue
		}
		found++
		n := s.Steps()
		state := replayState(t, cfg, s.ChoiceValues())
		crit := criticalStep(t, n, state, searchWalks, deadDepth)
		ev := state(crit).LastEvent()
		if recovers(t, state(crit), deadWalks, deadDepth) || !recovers(t, state(crit-1), recoverWalks, deadDepth) {
			t.Fatalf("seed %d: step %d is not the critical transition", seed, crit)
		}
		if ev.Kind != sim.EvTimer || ev.Timer != TimerJoin {
			t.Errorf("seed %d: critical transition at step %d is %s", seed, crit, ev)
		}
		t.Logf("seed %d: dead after %d steps; critical transition at step %d: %s", seed, n, crit, ev)
	}
	if found == 0 {
		t.Fatalf("no dead state in %d walks of %d steps", maxSeeds, budget)
	}
}
