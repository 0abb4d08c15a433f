package chord

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
	fixedBudget = 2000
	// deadDepth is the length of the walks that tell dead states from
	// transient ones (judge).
	deadDepth = 5000
)

// walker checks the state a walk starts in, records the first SuccPred
// violation instead of failing, counts only resets as failures (a walk
// with failures on is live only once it has recovered from its resets)
// and fails the test if the ring falls quiet, which it never should.
var walker = servicetest.Walker{CheckStart: true, RecordUnsafe: true, Quiescent: servicetest.QuiescentFails, ResetsOnly: true}

// judge (package critical): a state is dead when 50 recovery walks from it
// (to deadDepth steps in all, failures off after the execution's last
// one) never reach a live state, and transient when one of 50 such walks
// does; critical.Find tries 20 walks per probe. The walks ignore SuccPred,
// which the test's own walks record instead.
var judge = servicetest.Judge{WalkDepth: deadDepth, Dead: 50, Transient: 50, Search: 20, Seed: 7919, IgnoreSafety: true}

func node(s *engine.Sim, id sim.NodeID) *Chord { return s.Service(id).(*Chord) }

func TestRegistration(t *testing.T) {
	sys := servicetest.CheckParams(t, SystemName, map[string]string{"nodes": "3", "fixed": "false", "resets": "1", "breaks": "0"})
	cfg := servicetest.Config(t, SystemName)
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
	walker.ReachLiveMatrix(t, SystemName, []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "nodes": "4", "resets": "2", "breaks": "1"},
	}, servicetest.Batch{Walks: fixedWalks, Budget: fixedBudget, Determinism: 3})
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
	fixed, buggy := servicetest.Config(t, SystemName, map[string]string{"fixed": "true"}), servicetest.Config(t, SystemName)
	var steps []int
	for seed := range uint64(10) {
		for _, cfg := range []*sim.Config{fixed, buggy} {
			prefix := walker.LivePrefix(t, cfg, seed, fixedBudget)
			for x := range sim.NodeID(cfg.Nodes) {
				s := servicetest.ResetAt(t, prefix, x, seed*100+uint64(x))
				isFixed := cfg == fixed
				switch {
				case isFixed || x != 0:
					r := walker.Walk(t, s, fixedBudget, 0)
					if r.Live < 0 || (isFixed && r.Unsafe >= 0) {
						t.Fatalf("fixed=%v seed %d: no recovery from the reset of node %d: %+v", isFixed, seed, x, r)
					}
					if isFixed {
						steps = append(steps, r.Live-prefix.Steps())
					}
				case seed < 4: // the dead checks cost 250,000 steps each
					if !judge.IsDead(t, s, s.Steps()) {
						t.Fatalf("buggy seed %d: recovered from the reset of node 0", seed)
					}
				}
			}
		}
	}
	t.Logf("fixed: steps from a reset at a live state back to live: %v", servicetest.Summarize(steps))
}

// bugScenario drives the shortest execution in which the bug strikes (the
// one macemc's search finds first): node 0 creates the ring, nodes 1 and
// 2 ask it to join, node 0 answers node 1 (taking it as both neighbours),
// then resets and recreates a one-node ring; node 1 gets the answer, joins
// with node 0 as successor and notifies it. Now two messages wait at node
// 0: node 2's lookup (FindSucc) and node 1's Notify. The last step is node
// 0 handling the Notify. It returns the script and the index of the last
// state.
func bugScenario(t *testing.T, cfg *sim.Config) (*servicetest.Script, int) {
	s := servicetest.New(t, cfg, 1)
	sc := servicetest.NewScript(t, s)
	sc.Do("node 0 creates the ring", servicetest.App(0))
	sc.Do("node 1 asks to join", servicetest.App(1))
	sc.Do("node 2 asks to join", servicetest.App(2))
	sc.Do("node 0 answers node 1's lookup", servicetest.Message(0, 1, "FindSucc"))
	sc.Do("node 0 resets", servicetest.Reset(0))
	s.SetFailures(false)
	sc.Do("node 0 recreates the ring", servicetest.App(0))
	sc.Do("node 1 joins and notifies node 0", servicetest.Message(1, 0, "FindSuccReply"))
	sc.Do("node 0 handles the notify", servicetest.Message(0, 1, "Notify"))
	return sc, sc.Last()
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
	cfg := servicetest.Config(t, SystemName)
	sc, crit := bugScenario(t, cfg)
	if crit != 8 {
		t.Fatalf("scenario has %d steps", crit)
	}
	ev := sc.States[crit].LastEvent()
	if ev.Kind != engine.EvMessage || ev.Node != 0 || ev.Peer != 1 || sim.MessageName(ev.Msg) != "Notify" {
		t.Fatalf("step %d is %s", crit, ev)
	}
	// SuccPred: holds before, first violated at the critical step.
	for i, st := range sc.States {
		if got := servicetest.Safe(t, st); got != (i < crit) {
			t.Errorf("SuccPred after step %d (%s): %v", i, st.LastEvent(), got)
		}
	}
	if n0 := node(sc.States[crit], 0); n0.Pred.Addr != 1 || n0.Succ.Addr != 0 {
		t.Fatalf("node 0 after the notify: pred %v succ %v", n0.Pred, n0.Succ)
	}
	// (a) before: transient; (b) after: dead; and the binary search of
	// Algorithm 3 over the scenario agrees.
	judge.CheckCritical(t, sc.Sim, crit)
	// The live alternative: node 0 handles node 2's lookup first.
	alt := sc.States[crit-1].Clone(engine.NewRandom(3))
	servicetest.Step(t, alt, "node 0 answers node 2's lookup", servicetest.Message(0, 2, "FindSucc"))
	if n0 := node(alt, 0); n0.Pred.Addr != 2 || n0.Succ.Addr != 2 {
		t.Errorf("node 0 after node 2's lookup: pred %v succ %v", n0.Pred, n0.Succ)
	}
	if r := walker.Walk(t, alt, fixedBudget, 0); r.Live < 0 {
		t.Errorf("alternative does not reach liveness: %+v", r)
	}
	// The dead state is the one of seed 003 §6: node 0 is a one-node ring
	// with node 2 as predecessor, while node 1 -> node 2 -> node 0.
	dead := sc.States[crit].Clone(engine.NewRandom(5))
	if r := walker.Walk(t, dead, deadDepth, 0); r.Live >= 0 {
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
	cfg := servicetest.Config(t, SystemName, map[string]string{"fixed": "true"})
	sc, crit := bugScenario(t, cfg)
	for i, st := range sc.States {
		if !servicetest.Safe(t, st) {
			t.Errorf("SuccPred violated after step %d (%s)", i, st.LastEvent())
		}
	}
	if n0 := node(sc.States[crit], 0); n0.Pred.Addr != 1 || n0.Succ.Addr != 1 {
		t.Errorf("node 0: pred %v succ %v", n0.Pred, n0.Succ)
	}
	rs := walker.From(t, sc.States[crit], judge.Transient, fixedBudget, 0)
	rs.CheckLive(t, "fixed scenario")
	t.Logf("fixed scenario: steps to live after step %d: %v", crit, rs.Summary())
}

// TestBuggyRandomWalksFindDeadState is the search without a script: seeded
// random walks of the buggy variant with failures on (one reset), 5,000
// steps each, until the first that never becomes live after its reset. The critical
// transition of that walk, found by binary search, is node 0 resetting or
// node 0 handling a Notify, and SuccPred is first violated at or after it.
func TestBuggyRandomWalksFindDeadState(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	seed, s, r := walker.FirstStuck(t, cfg, servicetest.Batch{Walks: 100, Budget: deadDepth, Failures: true})
	res := judge.Find(t, s)
	crit, ev := res.Step, res.Event
	if !judge.IsCritical(t, s, crit) {
		t.Fatalf("seed %d: step %d is not the critical transition", seed, crit)
	}
	reset := ev.Kind == engine.EvReset && ev.Node == 0
	notify := ev.Kind == engine.EvMessage && ev.Node == 0 && sim.MessageName(ev.Msg) == "Notify"
	if !reset && !notify {
		t.Errorf("seed %d: critical transition at step %d is %s", seed, crit, ev)
	}
	if r.Unsafe < crit {
		t.Errorf("seed %d: SuccPred violated at step %d, before the critical step %d", seed, r.Unsafe, crit)
	}
	t.Logf("seed %d: dead after %d steps; critical transition at step %d: %s; SuccPred first violated at step %d (%s)", seed, s.Steps(), crit, ev, r.Unsafe, r.UnsafeEvent)
}
