package scheduler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
)

func config(t testing.TB, items int, fixed bool) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(map[string]string{"items": fmt.Sprint(items), "fixed": fmt.Sprint(fixed)})
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

// walk runs s until it is live or the execution has max steps, checking
// safety; it returns the steps when it turned live, or -1 (also when it
// fell quiescent).
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

func delivery(to sim.NodeID, typ string) func(sim.Event) bool {
	return func(e sim.Event) bool {
		return e.Kind == sim.EvMessage && e.Node == to && sim.MessageName(e.Msg) == typ
	}
}

func app(id sim.NodeID) func(sim.Event) bool {
	return func(e sim.Event) bool { return e.Kind == sim.EvApp && e.Node == id }
}

const server, client sim.NodeID = 0, 1

// scenario with 2 items: the client takes the first resource, asks for the
// second before it exists and is told Empty; the server makes the second
// resource (the client is not on the wait queue yet: no Wakeup); then the
// client goes to sleep and the server queues it, next to the resource.
var scenario = []func(sim.Event) bool{
	app(server),
	app(client),
	delivery(server, "Take"),
	delivery(client, "Item"),
	delivery(server, "Take"),
	app(server), // the last Produce: critical
	delivery(client, "Empty"),
	delivery(server, "Sleeping"),
}

const critStep = 6

// TestLostWakeup: the scenario ends quiescent and not live, with a resource
// available and the client asleep; walks show that the critical transition
// is the server's last Produce while the client's Empty is in flight.
func TestLostWakeup(t *testing.T) {
	cfg := config(t, 2, false)
	s := newSim(t, cfg, 0)
	var live []int
	var events []sim.Event
	live = append(live, recovers(t, s, 100, 3000))
	events = append(events, sim.Event{})
	for _, pred := range scenario {
		step(t, s, pred)
		events = append(events, s.LastEvent())
		live = append(live, recovers(t, s, 100, 3000))
	}
	if len(s.Ready()) != 0 || holds(t, s, cfg.Liveness) {
		t.Fatal("scenario does not end quiescent and not live")
	}
	srv, cl := sim.Node[Server](s.View(), server), sim.Node[Client](s.View(), client)
	if srv.Available != 1 || !srv.ClientWaiting || cl.State != Asleep {
		t.Fatalf("server %+v client %+v", srv, cl)
	}
	t.Logf("live walks (of 100) from states 0..%d: %v", len(scenario), live)
	crit := 0
	for i, n := range live {
		if n > 0 {
			crit = i + 1
		}
	}
	if crit != critStep {
		t.Fatalf("critical transition at step %d, want %d", crit, critStep)
	}
	if ev := events[crit]; ev.Node != server || ev.Kind != sim.EvApp {
		t.Fatalf("critical event %s, want the server's Produce", ev)
	}
	t.Logf("critical transition: step %d, %s", crit, events[crit])
}

// TestFixedScenario: with the fix the server answers Sleeping with Wakeup.
func TestFixedScenario(t *testing.T) {
	cfg := config(t, 2, true)
	s := newSim(t, cfg, 0)
	for _, pred := range scenario {
		step(t, s, pred)
	}
	if walk(t, s, s.Steps()+10) < 0 {
		t.Fatal("not live")
	}
}

// TestWalks: 100 seeded walks of the fixed variant turn live within the
// budget; a good share of buggy walks lose the wakeup.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 1000
	for _, items := range []int{1, 2, 5} {
		cfg := config(t, items, true)
		var steps []int
		for seed := range uint64(walks) {
			n := walk(t, newSim(t, cfg, seed), budget)
			if n < 0 {
				t.Fatalf("items=%d seed %d: not live after %d steps", items, seed, budget)
			}
			steps = append(steps, n)
		}
		slices.Sort(steps)
		t.Logf("fixed items=%d: steps to live median %d, p99 %d, max %d", items, steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])
		dead := 0
		cfg = config(t, items, false)
		for seed := range uint64(walks) {
			if walk(t, newSim(t, cfg, seed), budget) < 0 {
				dead++
			}
		}
		t.Logf("buggy items=%d: %d of %d walks stuck", items, dead, walks)
		if dead == 0 {
			t.Errorf("items=%d: no buggy walk lost the wakeup", items)
		}
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (sim.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		cfg := config(t, 2, fixed)
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
