package chord

import (
	"errors"
	"testing"

	"github.com/macemc/macemc/sim"
)

const systemName = "chord"

// Budgets, in simulator steps (default weights: app 40, message 8, timer 1).
const (
	// fixedWalks random walks of the fixed variant, with failures off and
	// on, must each reach a live state within fixedBudget steps.
	fixedWalks  = 200
	fixedBudget = 2000
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

func node(s *sim.Sim, id sim.NodeID) *Chord { return s.Service(id).(*Chord) }

func TestRegistration(t *testing.T) {
	sys, err := sim.Lookup("chord")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"nodes": "3", "fixed": "false", "resets": "1", "breaks": "0"}
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
	if len(cfg.Safety) != 1 || cfg.Safety[0].Name != "SuccPred" || len(cfg.Liveness) != 1 || cfg.Liveness[0].Name != "AllNodes" {
		t.Errorf("properties: safety %v liveness %v", cfg.Safety, cfg.Liveness)
	}
	if cfg.Nodes != 3 || cfg.Failures.Resets != 1 {
		t.Errorf("nodes %d resets %d", cfg.Nodes, cfg.Failures.Resets)
	}
	if err := cfg.Select([]string{"AllNodes"}); err != nil || len(cfg.Safety) != 0 {
		t.Errorf("select AllNodes: %v, safety %v", err, cfg.Safety)
	}
	if _, _, err := sys.Config(map[string]string{"nodes": "1"}); err == nil {
		t.Error("nodes=1 accepted")
	}
	if _, _, err := sys.Config(map[string]string{"fixed": "maybe"}); !errors.Is(err, sim.ErrBadParam) {
		t.Errorf("fixed=maybe: %v", err)
	}
}

// TestFixedRandomWalks: 200 seeded walks of the fixed variant with failures
// off and 200 with failures on (one reset) never violate SuccPred and reach
// a live state within fixedBudget steps; with failures on, a live state
// after the reset.
func TestFixedRandomWalks(t *testing.T) {
	for _, params := range []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "nodes": "4", "resets": "2", "breaks": "1"},
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
					t.Fatalf("%v failures=%v seed %d: SuccPred violated at step %d (%s)", params, failures, seed, r.unsafe, r.unsafeWhat)
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

// TestResetFromLivePrefix is the prefix-based search of seed 003 §4.2
// (point 4): from live states, reset each node in turn and walk on with
// failures off (10 live prefixes). The fixed variant always recovers. The
// buggy one recovers from the reset of a joining node but never (checked
// on the first 4 prefixes, 50 walks of 5,000 steps) from the reset of node 0:
// node 0 recreates a one-node ring, its predecessor's stabilize probe and
// notify reach it, and the notify sets its predecessor but not its
// successor; no lookup is left to reach it, so the reset itself is the
// critical transition.
func TestResetFromLivePrefix(t *testing.T) {
	fixed, buggy := testConfig(t, map[string]string{"fixed": "true"}), testConfig(t, nil)
	var steps []int
	for seed := range uint64(10) {
		for _, cfg := range []*sim.Config{fixed, buggy} {
			prefix := livePrefix(t, cfg, seed, fixedBudget)
			for x := range sim.NodeID(cfg.Nodes) {
				s := prefix.Clone(sim.NewRandom(seed*100 + uint64(x)))
				s.SetFailures(true)
				sc := newScript(t, s)
				sc.do("reset", reset(x))
				s.SetFailures(false)
				isFixed := cfg == fixed
				switch {
				case isFixed || x != 0:
					r := walk(t, s, fixedBudget, 0)
					if r.live < 0 || (isFixed && r.unsafe >= 0) {
						t.Fatalf("fixed=%v seed %d: no recovery from the reset of node %d: %+v", isFixed, seed, x, r)
					}
					if isFixed {
						steps = append(steps, r.live-prefix.Steps())
					}
				case seed < 4: // the dead checks cost 250,000 steps each
					if recovers(t, s, deadWalks, deadDepth) {
						t.Fatalf("buggy seed %d: recovered from the reset of node 0", seed)
					}
				}
			}
		}
	}
	med, max := median(steps)
	t.Logf("fixed: steps from a reset at a live state back to live: median %d max %d", med, max)
}

// bugScenario drives the shortest execution in which the bug strikes (the
// one macemc's search finds first): node 0 creates the ring, nodes 1 and
// 2 ask it to join, node 0 answers node 1 (taking it as both neighbours),
// then resets and recreates a one-node ring; node 1 gets the answer, joins
// with node 0 as successor and notifies it. Now two messages wait at node
// 0: node 2's lookup (FindSucc) and node 1's Notify. The last step is node
// 0 handling the Notify. It returns the script and the index of the last
// state.
func bugScenario(t *testing.T, cfg *sim.Config) (*script, int) {
	s := newSim(t, cfg, 1, true)
	sc := newScript(t, s)
	sc.do("node 0 creates the ring", app(0))
	sc.do("node 1 asks to join", app(1))
	sc.do("node 2 asks to join", app(2))
	sc.do("node 0 answers node 1's lookup", msg(0, 1, "FindSucc"))
	sc.do("node 0 resets", reset(0))
	s.SetFailures(false)
	sc.do("node 0 recreates the ring", app(0))
	sc.do("node 1 joins and notifies node 0", msg(1, 0, "FindSuccReply"))
	sc.do("node 0 handles the notify", msg(0, 1, "Notify"))
	return sc, len(sc.states) - 1
}

// TestBuggyCriticalTransition: in bugScenario the critical transition is
// step 8, node 0 handling Notify from node 1. Node 0 is a one-node ring
// (Pred == Succ == itself); the Notify makes node 1 its predecessor but
// leaves its successor at itself. Before this step the state is transient:
// if node 0 handles node 2's lookup first, it takes node 2 as both
// neighbours (the one-node-ring case of handleFindSucc) and stabilization
// does the rest. After it the state is dead: node 0 no longer counts as
// alone (it has a predecessor), so the lookup no longer sets its
// successor; it never stabilizes (its successor is itself); and the node
// that has it as successor probes it and gets the answer "my predecessor
// is you", which changes nothing (seed 003 §6). The same step is the
// first violation of SuccPred.
func TestBuggyCriticalTransition(t *testing.T) {
	cfg := testConfig(t, nil)
	sc, crit := bugScenario(t, cfg)
	if crit != 8 {
		t.Fatalf("scenario has %d steps", crit)
	}
	ev := sc.states[crit].LastEvent()
	if ev.Kind != sim.EvMessage || ev.Node != 0 || ev.Peer != 1 || sim.MessageName(ev.Msg) != "Notify" {
		t.Fatalf("step %d is %s", crit, ev)
	}
	// SuccPred: holds before, first violated at the critical step.
	for i, st := range sc.states {
		if got := isSafe(t, st); got != (i < crit) {
			t.Errorf("SuccPred after step %d (%s): %v", i, st.LastEvent(), got)
		}
	}
	if n0 := node(sc.states[crit], 0); n0.Pred.Addr != 1 || n0.Succ.Addr != 0 {
		t.Fatalf("node 0 after the notify: pred %v succ %v", n0.Pred, n0.Succ)
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
	// The live alternative: node 0 handles node 2's lookup first.
	alt := newScript(t, sc.states[crit-1].Clone(sim.NewRandom(3)))
	alt.do("node 0 answers node 2's lookup", msg(0, 2, "FindSucc"))
	if n0 := node(alt.s, 0); n0.Pred.Addr != 2 || n0.Succ.Addr != 2 {
		t.Errorf("node 0 after node 2's lookup: pred %v succ %v", n0.Pred, n0.Succ)
	}
	if r := walk(t, alt.s, fixedBudget, 0); r.live < 0 {
		t.Errorf("alternative does not reach liveness: %+v", r)
	}
	// The dead state is the one of seed 003 §6: node 0 is a one-node ring
	// with node 2 as predecessor, while node 1 -> node 2 -> node 0.
	dead := sc.states[crit].Clone(sim.NewRandom(5))
	if r := walk(t, dead, deadDepth, 0); r.live >= 0 {
		t.Fatal("dead state became live")
	}
	got := [3][2]sim.NodeID{}
	for i := range 3 {
		n := node(dead, sim.NodeID(i))
		got[i] = [2]sim.NodeID{n.Pred.Addr, n.Succ.Addr}
	}
	if want := [3][2]sim.NodeID{{2, 0}, {0, 2}, {1, 0}}; got != want {
		t.Errorf("dead state (pred, succ) per node: %v, want %v", got, want)
	}
}

// TestFixedScenarioRecovers runs bugScenario on the fixed variant: the
// Notify makes node 1 node 0's successor as well as its predecessor,
// SuccPred holds throughout, and the ring forms.
func TestFixedScenarioRecovers(t *testing.T) {
	cfg := testConfig(t, map[string]string{"fixed": "true"})
	sc, crit := bugScenario(t, cfg)
	for i, st := range sc.states {
		if !isSafe(t, st) {
			t.Errorf("SuccPred violated after step %d (%s)", i, st.LastEvent())
		}
	}
	if n0 := node(sc.states[crit], 0); n0.Pred.Addr != 1 || n0.Succ.Addr != 1 {
		t.Errorf("node 0: pred %v succ %v", n0.Pred, n0.Succ)
	}
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
// transition of that walk, found by binary search, is node 0 resetting or
// node 0 handling a Notify, and SuccPred is first violated at or after it.
func TestBuggyRandomWalksFindDeadState(t *testing.T) {
	cfg := testConfig(t, nil)
	const maxSeeds, budget = 100, deadDepth
	found := 0
	for seed := uint64(0); seed < maxSeeds && found < 1; seed++ {
		s := newSim(t, cfg, seed, true)
		r := walk(t, s, budget, 1)
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
		reset := ev.Kind == sim.EvReset && ev.Node == 0
		notify := ev.Kind == sim.EvMessage && ev.Node == 0 && sim.MessageName(ev.Msg) == "Notify"
		if !reset && !notify {
			t.Errorf("seed %d: critical transition at step %d is %s", seed, crit, ev)
		}
		if r.unsafe < crit {
			t.Errorf("seed %d: SuccPred violated at step %d, before the critical step %d", seed, r.unsafe, crit)
		}
		t.Logf("seed %d: dead after %d steps; critical transition at step %d: %s; SuccPred first violated at step %d (%s)", seed, n, crit, ev, r.unsafe, r.unsafeWhat)
	}
	if found == 0 {
		t.Fatalf("no dead state in %d walks of %d steps", maxSeeds, budget)
	}
}
