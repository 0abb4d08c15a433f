package storage

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// walker's walks fail the test on a safety violation, and a walk that
// falls quiescent is stuck.
var walker servicetest.Walker

const (
	manager sim.NodeID = 0
	victim  sim.NodeID = 1
	driver  sim.NodeID = 5
)

// scenario is seed 000's Figure 2 with the default parameters (4 extent
// nodes, extent 0 on nodes 1-3): node 1 sends a SyncReport, the driver
// fails node 1 and notifies the manager, node 1 halts, the manager drops
// node 1's replica, and then the stale SyncReport arrives.
func scenario(t testing.TB, s *engine.Sim) {
	servicetest.Step(t, s, "node 1 sends a SyncReport", servicetest.Timer(victim, syncTimer))
	s.SetChooser(&engine.Prefix{Seq: []int32{0}, Then: engine.NewRandom(0)}) // the driver picks node 1
	servicetest.Step(t, s, "the driver fails node 1", servicetest.App(driver))
	servicetest.Step(t, s, "node 1 halts", servicetest.Message(victim, driver, "FaultInject"))
	servicetest.Step(t, s, "the manager drops node 1's replica", servicetest.Message(manager, driver, "NotifyFailure"))
	servicetest.Step(t, s, "the stale SyncReport arrives", servicetest.Message(manager, victim, "SyncReport"))
}

// TestCriticalTransition reproduces the vNext bug and finds its critical
// transition the MaceMC way (package critical, recovery walks to 3,000
// steps): probing every state of the scenario (100 walks before the stale
// report, 30 after it) and by critical.Find (40 walks per probe; from
// state 4 the 26th walk is the first live one) on the scenario continued
// to d_max. Up to the manager's handling of the stale SyncReport some walk
// repairs the extent; after it none does, while the manager counts 3
// replicas of which only 2 are alive. Liveness is the RepairChecker
// monitor's (the default) or the state predicate ExtentsReplicated
// (monitor=false): the same critical transition.
func TestCriticalTransition(t *testing.T) {
	for _, monitor := range []bool{true, false} {
		t.Run(fmt.Sprintf("monitor=%v", monitor), func(t *testing.T) {
			criticalTransition(t, servicetest.Variant(t, SystemName, false, servicetest.Params("monitor", monitor)))
		})
	}
}

func criticalTransition(t *testing.T, cfg *sim.Config) {
	const depth = 3000
	k := func(i int) int {
		if i < 5 {
			return 100
		}
		return 30
	}
	s := servicetest.New(t, cfg, 0)
	scenario(t, s)
	judge := servicetest.Judge{WalkDepth: depth, Search: 40, Seed: 1}
	probes := judge.Profile(t, s, 5, k)
	crit := servicetest.CriticalOfProbes(probes)
	if crit != 5 {
		t.Fatalf("critical transition at step %d, want 5; probes %+v", crit, probes)
	}
	if res := judge.Find(t, s); res.Step != crit {
		t.Fatalf("critical.Find: step %d (%s), want %d", res.Step, res.EventText, crit)
	}
	state := servicetest.Replayer(t, cfg, s.ChoiceValues())
	ev := state(crit).LastEvent()
	if ev.Node != manager || ev.Kind != engine.EvMessage || sim.MessageName(ev.Msg) != "SyncReport" || ev.Peer != victim {
		t.Fatalf("critical event %s, want the manager receiving node 1's SyncReport", ev)
	}
	t.Logf("critical transition: step %d, %s", crit, ev)

	m := sim.Node[ExtentManager](s.View(), manager)
	if m.Replicas(0) != 3 || liveReplicas(s.View(), 0) != 2 || m.ExtentNodeMap[victim] != Failed {
		t.Fatalf("manager counts %d replicas, %d live; node 1 is %v", m.Replicas(0), liveReplicas(s.View(), 0), m.ExtentNodeMap[victim])
	}
}

// TestFixedScenario: with the fix the manager ignores the stale report and
// every walk from there repairs the extent.
func TestFixedScenario(t *testing.T) {
	cfg := servicetest.Variant(t, SystemName, true)
	s := servicetest.New(t, cfg, 0)
	scenario(t, s)
	if m := sim.Node[ExtentManager](s.View(), manager); m.Replicas(0) != 2 {
		t.Fatalf("manager counts %d replicas, want 2", m.Replicas(0))
	}
	if n := walker.Recoveries(t, s, 30, 3000, uint64(1000*s.Steps())); n != 30 {
		t.Fatalf("%d of 30 walks turned live", n)
	}
}

// TestWalks: 100 seeded random walks of the fixed variant turn live within
// the budget and never lose data; plain random walks of the buggy variant
// run into the bug now and then.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 3000
	b := servicetest.Batch{Walks: walks, Budget: budget}
	walker.ReachLive(t, servicetest.Variant(t, SystemName, true), b, "fixed")

	big := servicetest.Config(t, SystemName, map[string]string{"nodes": "6", "extents": "3", "failures": "2", "fixed": "true"})
	walker.ReachLive(t, big, b, "fixed, 6 nodes, 3 extents, 2 failures")

	dead := len(walker.Walks(t, servicetest.Variant(t, SystemName, false), servicetest.Batch{Walks: 400, Budget: budget}).Stuck())
	t.Logf("buggy: %d of 400 walks stuck after %d steps", dead, budget)
	if dead == 0 {
		t.Fatal("no buggy walk ran into the bug")
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (engine.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	servicetest.Deterministic(t, servicetest.Variant(t, SystemName, false), 5, 300)
	servicetest.Deterministic(t, servicetest.Variant(t, SystemName, true), 5, 300)
}

// TestMonitorAgreesWithPredicates: on every state of 200 seeded walks of
// both variants (and of a larger system with two failures), the
// RepairChecker monitor is hot exactly when the state predicate
// ExtentsReplicated does not hold, and its assertion holds exactly when
// NoDataLoss does: the monitor, fed only by what the nodes announce,
// tracks the ground truth the predicates read from the nodes' structs.
func TestMonitorAgreesWithPredicates(t *testing.T) {
	for _, params := range []map[string]string{
		{"fixed": "false"},
		{"fixed": "true"},
		{"nodes": "6", "extents": "3", "failures": "2"},
	} {
		cfg := servicetest.Config(t, SystemName, params)
		if len(cfg.Monitors) != 1 || len(cfg.Liveness) != 1 || cfg.Liveness[0].Name != "RepairChecker" {
			t.Fatalf("%v: the default config does not check the RepairChecker monitor", params)
		}
		pred := servicetest.Config(t, SystemName, params, servicetest.Params("monitor", false))
		replicated, noLoss := pred.Liveness[0], pred.Safety[0]
		hot, agreed := 0, 0
		for seed := range uint64(200) {
			s := servicetest.New(t, cfg, seed)
			for s.Steps() < 300 {
				v := s.View()
				m := sim.MonitorOf[RepairChecker](v)
				_, failure := s.Monitor(0)
				if m.Hot() == replicated.Check(v) || (failure == "") != noLoss.Check(v) {
					t.Fatalf("%v seed %d step %d: monitor hot %v, failure %q; ExtentsReplicated %v, NoDataLoss %v",
						params, seed, s.Steps(), m.Hot(), failure, replicated.Check(v), noLoss.Check(v))
				}
				if m.Hot() {
					hot++
				}
				agreed++
				if ok, err := s.Step(); err != nil || !ok {
					t.Fatalf("%v seed %d: step %v, %v", params, seed, ok, err)
				}
			}
		}
		t.Logf("%v: %d states agreed, %d of them hot", params, agreed, hot)
		if hot == 0 || hot == agreed {
			t.Fatalf("%v: the walks never or always saw a hot monitor", params)
		}
	}
}
