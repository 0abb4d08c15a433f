package storage

import (
	"fmt"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
)

func config(t testing.TB, fixed bool) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(map[string]string{"fixed": fmt.Sprint(fixed)})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func newSim(t testing.TB, cfg *sim.Config, c sim.Chooser) *sim.Sim {
	t.Helper()
	s, err := sim.New(cfg, sim.Options{Chooser: c})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func holds(t testing.TB, s *sim.Sim, ps []sim.Property) bool {
	t.Helper()
	ok, err := s.AllHold(ps)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// walk runs s until it is live or the execution has max steps, checking
// safety after every step; it returns the steps when it turned live, or
// -1 (also when it fell quiescent).
func walk(t testing.TB, s *sim.Sim, max int) int {
	t.Helper()
	cfg := s.Config()
	for s.Steps() < max {
		ok, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return -1
		}
		if !holds(t, s, cfg.Safety) {
			t.Fatalf("safety violated at step %d: %s", s.Steps(), s.LastEvent())
		}
		if holds(t, s, cfg.Liveness) {
			return s.Steps()
		}
	}
	return -1
}

// recovers runs k walks of up to steps more steps from clones of s and
// returns how many turned live.
func recovers(t testing.TB, s *sim.Sim, k, steps int) int {
	live := 0
	for j := range k {
		if walk(t, s.Clone(sim.NewRandom(uint64(1000*s.Steps()+j))), s.Steps()+steps) >= 0 {
			live++
		}
	}
	return live
}

func step(t testing.TB, s *sim.Sim, pred func(sim.Event) bool) sim.Event {
	t.Helper()
	for i, e := range s.Ready() {
		if pred(e) {
			if err := s.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("step %d: no such event ready", s.Steps())
	return sim.Event{}
}

func delivery(to, from sim.NodeID, typ string) func(sim.Event) bool {
	return func(e sim.Event) bool {
		return e.Kind == sim.EvMessage && e.Node == to && e.Peer == from && sim.MessageName(e.Msg) == typ
	}
}

const (
	manager sim.NodeID = 0
	victim  sim.NodeID = 1
	driver  sim.NodeID = 5
)

// scenario is seed 000's Figure 2 with the default parameters (4 extent
// nodes, extent 0 on nodes 1-3): node 1 sends a SyncReport, the driver
// fails node 1 and notifies the manager, node 1 halts, the manager drops
// node 1's replica, and then the stale SyncReport arrives.
func scenario(t testing.TB, s *sim.Sim) {
	step(t, s, func(e sim.Event) bool { return e.Kind == sim.EvTimer && e.Node == victim && e.Timer == syncTimer })
	s.SetChooser(&sim.Prefix{Seq: []int32{0}, Then: sim.NewRandom(0)}) // the driver picks node 1
	step(t, s, func(e sim.Event) bool { return e.Kind == sim.EvApp && e.Node == driver })
	step(t, s, delivery(victim, driver, "FaultInject"))
	step(t, s, delivery(manager, driver, "NotifyFailure"))
	step(t, s, delivery(manager, victim, "SyncReport"))
}

// TestCriticalTransition reproduces the vNext bug and finds its critical
// transition the MaceMC way: from every state of the scenario, k random
// walks of 3,000 steps (100 before the stale report, 30 after it). Up to the manager's handling of the stale
// SyncReport some walk repairs the extent; after it none does, while the
// manager counts 3 replicas of which only 2 are alive.
func TestCriticalTransition(t *testing.T) {
	const depth = 3000
	k := func(i int) int {
		if i < 5 {
			return 100
		}
		return 30
	}
	cfg := config(t, false)
	s := newSim(t, cfg, sim.NewRandom(0))
	var live []int
	var events []sim.Event
	live = append(live, recovers(t, s, k(0), depth))
	for i := range 5 {
		c := newSim(t, cfg, sim.NewRandom(0))
		scenario(t, c)
		// Replay the scenario's first i+1 steps.
		r, err := sim.Replay(cfg, c.ChoiceValues()[:c.StepStart(i+1)], i+1, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, r.LastEvent())
		live = append(live, recovers(t, r, k(i+1), depth))
	}
	t.Logf("live walks (of 100, the last of 30) from states 0..5: %v", live)
	crit := 0
	for i, n := range live {
		if n > 0 {
			crit = i + 1
		}
	}
	if crit != 5 {
		t.Fatalf("critical transition at step %d, want 5; live walks per state %v", crit, live)
	}
	ev := events[crit-1]
	if ev.Node != manager || ev.Kind != sim.EvMessage || sim.MessageName(ev.Msg) != "SyncReport" || ev.Peer != victim {
		t.Fatalf("critical event %s, want the manager receiving node 1's SyncReport", ev)
	}
	t.Logf("critical transition: step %d, %s", crit, ev)

	scenario(t, s)
	m := sim.Node[ExtentManager](s.View(), manager)
	if m.Replicas(0) != 3 || liveReplicas(s.View(), 0) != 2 || m.ExtentNodeMap[victim] != Failed {
		t.Fatalf("manager counts %d replicas, %d live; node 1 is %v", m.Replicas(0), liveReplicas(s.View(), 0), m.ExtentNodeMap[victim])
	}
}

// TestFixedScenario: with the fix the manager ignores the stale report and
// every walk from there repairs the extent.
func TestFixedScenario(t *testing.T) {
	cfg := config(t, true)
	s := newSim(t, cfg, sim.NewRandom(0))
	scenario(t, s)
	if m := sim.Node[ExtentManager](s.View(), manager); m.Replicas(0) != 2 {
		t.Fatalf("manager counts %d replicas, want 2", m.Replicas(0))
	}
	if n := recovers(t, s, 30, 3000); n != 30 {
		t.Fatalf("%d of 30 walks turned live", n)
	}
}

// TestWalks: 100 seeded random walks of the fixed variant turn live within
// the budget and never lose data; plain random walks of the buggy variant
// run into the bug now and then.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 3000
	var steps []int
	cfg := config(t, true)
	for seed := range uint64(walks) {
		n := walk(t, newSim(t, cfg, sim.NewRandom(seed)), budget)
		if n < 0 {
			t.Fatalf("fixed seed %d: not live after %d steps", seed, budget)
		}
		steps = append(steps, n)
	}
	slices.Sort(steps)
	t.Logf("fixed: steps to live median %d, p99 %d, max %d", steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])

	sys, _ := sim.Lookup(SystemName)
	big, _, err := sys.Config(map[string]string{"nodes": "6", "extents": "3", "failures": "2", "fixed": "true"})
	if err != nil {
		t.Fatal(err)
	}
	steps = steps[:0]
	for seed := range uint64(walks) {
		n := walk(t, newSim(t, big, sim.NewRandom(seed)), budget)
		if n < 0 {
			t.Fatalf("fixed, 6 nodes, 3 extents, 2 failures, seed %d: not live after %d steps", seed, budget)
		}
		steps = append(steps, n)
	}
	slices.Sort(steps)
	t.Logf("fixed, 6 nodes, 3 extents, 2 failures: steps to live median %d, p99 %d, max %d", steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])

	cfg = config(t, false)
	dead := 0
	for seed := range uint64(400) {
		if walk(t, newSim(t, cfg, sim.NewRandom(seed)), budget) < 0 {
			dead++
		}
	}
	t.Logf("buggy: %d of 400 walks stuck after %d steps", dead, budget)
	if dead == 0 {
		t.Fatal("no buggy walk ran into the bug")
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (sim.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		cfg := config(t, fixed)
		for seed := range uint64(5) {
			s := newSim(t, cfg, sim.NewRandom(seed))
			for s.Steps() < 300 {
				if ok, err := s.Step(); err != nil {
					t.Fatal(err)
				} else if !ok {
					break
				}
			}
			if err := sim.CheckDeterminism(cfg, s.ChoiceValues(), sim.Options{}); err != nil {
				t.Fatalf("fixed=%v seed %d: %v", fixed, seed, err)
			}
		}
	}
}
