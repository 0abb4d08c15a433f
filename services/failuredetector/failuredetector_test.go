package failuredetector

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

func newSim(t testing.TB, cfg *sim.Config, seed uint64) *sim.Sim {
	t.Helper()
	s, err := sim.New(cfg, sim.Options{Chooser: sim.NewRandom(seed)})
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

// walk runs s until it is live or the execution has max steps; it returns
// the steps when it turned live, or -1.
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

func step(t testing.TB, s *sim.Sim, pred func(sim.Event) bool) {
	t.Helper()
	for i, e := range s.Ready() {
		if pred(e) {
			if err := s.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("step %d: no such event ready", s.Steps())
}

func delivery(to, from sim.NodeID, typ string) func(sim.Event) bool {
	return func(e sim.Event) bool {
		return e.Kind == sim.EvMessage && e.Node == to && e.Peer == from && sim.MessageName(e.Msg) == typ
	}
}

func app(id sim.NodeID) func(sim.Event) bool {
	return func(e sim.Event) bool { return e.Kind == sim.EvApp && e.Node == id }
}

func round(e sim.Event) bool {
	return e.Kind == sim.EvTimer && e.Node == detector && e.Timer == roundTimer
}

const (
	detector sim.NodeID = 0
	client   sim.NodeID = 1
	victim   sim.NodeID = 2
	other    sim.NodeID = 3
)

// scenario: the client sends its registration and halts daemon 2; the
// detector pings, daemon 3 answers, and the next round declares daemon 2
// failed before the registration arrives.
func scenario(t testing.TB, s *sim.Sim) {
	step(t, s, app(client))
	s.SetChooser(&sim.Prefix{Seq: []int32{0}, Then: sim.NewRandom(0)}) // the client halts daemon 2
	step(t, s, app(client))
	step(t, s, delivery(victim, client, "Halt"))
	step(t, s, round)
	step(t, s, delivery(other, detector, "Ping"))
	step(t, s, delivery(detector, other, "Pong"))
	step(t, s, round) // declares daemon 2 failed: nobody to tell
	step(t, s, delivery(detector, client, "RegisterClient"))
}

const scenarioSteps, critStep = 8, 7

// TestCriticalTransition: up to the round that declares daemon 2 failed
// while no client is registered, some random walk has the registration
// arrive first; after it, no walk of 30 ever tells the client.
func TestCriticalTransition(t *testing.T) {
	cfg := config(t, false)
	full := newSim(t, cfg, 0)
	scenario(t, full)
	var live []int
	var events []sim.Event
	for i := 0; i <= scenarioSteps; i++ {
		r, err := sim.Replay(cfg, full.ChoiceValues()[:full.StepStart(i)], i, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, r.LastEvent())
		live = append(live, recovers(t, r, 30, 3000))
	}
	t.Logf("live walks (of 30) from states 0..%d: %v", scenarioSteps, live)
	crit := 0
	for i, n := range live {
		if n > 0 {
			crit = i + 1
		}
	}
	if crit != critStep {
		t.Fatalf("critical transition at step %d, want %d", crit, critStep)
	}
	if ev := events[crit]; ev.Node != detector || ev.Kind != sim.EvTimer || ev.Timer != roundTimer {
		t.Fatalf("critical event %s, want the detector's round", ev)
	}
	t.Logf("critical transition: step %d, %s", crit, events[crit])
}

// TestHotCycle: after the bug, the detector pings daemon 3 forever and the
// global state repeats exactly: a hot, fair lasso.
func TestHotCycle(t *testing.T) {
	cfg := config(t, false)
	s := newSim(t, cfg, 0)
	scenario(t, s)
	// Deliver what is in flight.
	for s.InFlight() > 0 {
		step(t, s, func(e sim.Event) bool { return e.Kind == sim.EvMessage })
	}
	start := s.Hash()
	for iter := range 3 {
		enabled, ran := map[string]bool{}, map[string]bool{}
		for _, pred := range []func(sim.Event) bool{round, delivery(other, detector, "Ping"), delivery(detector, other, "Pong")} {
			if holds(t, s, cfg.Liveness) {
				t.Fatal("live inside the cycle")
			}
			for _, e := range s.Ready() {
				enabled[e.String()] = true
			}
			step(t, s, pred)
			ran[s.LastEvent().String()] = true
		}
		if s.Hash() != start {
			t.Fatalf("iteration %d: state differs", iter)
		}
		for e := range enabled {
			if !ran[e] {
				t.Fatalf("unfair: %s never runs", e)
			}
		}
	}
	c := sim.Node[Client](s.View(), client)
	t.Logf("client registered, daemon 2 halted, client knows %v: cycle of 3 steps repeats", c.Down)
}

// TestFixedScenario: with the fix the registration brings the history.
func TestFixedScenario(t *testing.T) {
	cfg := config(t, true)
	s := newSim(t, cfg, 0)
	scenario(t, s)
	step(t, s, delivery(client, detector, "NodesDown"))
	if !holds(t, s, cfg.Liveness) {
		t.Fatal("not live")
	}
}

// TestWalks: 100 seeded walks of the fixed variant turn live within the
// budget; random walks of the buggy variant rarely see the bug.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 1000
	for _, params := range []map[string]string{{}, {"nodes": "3", "failures": "2", "attempts": "2"}} {
		params["fixed"] = "true"
		sys, _ := sim.Lookup(SystemName)
		cfg, _, err := sys.Config(params)
		if err != nil {
			t.Fatal(err)
		}
		var steps []int
		for seed := range uint64(walks) {
			n := walk(t, newSim(t, cfg, seed), budget)
			if n < 0 {
				t.Fatalf("%v seed %d: not live after %d steps", params, seed, budget)
			}
			steps = append(steps, n)
		}
		slices.Sort(steps)
		t.Logf("%v: steps to live median %d, p99 %d, max %d", params, steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])
	}
	cfg := config(t, false)
	dead := 0
	for seed := range uint64(1000) {
		if walk(t, newSim(t, cfg, seed), budget) < 0 {
			dead++
		}
	}
	t.Logf("buggy: %d of 1000 walks stuck after %d steps", dead, budget)
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (sim.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		cfg := config(t, fixed)
		for seed := range uint64(5) {
			s := newSim(t, cfg, seed)
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
