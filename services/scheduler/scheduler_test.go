package scheduler

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// config builds the system with items resources, fixed or not.
func config(t testing.TB, items int, fixed bool) *sim.Config {
	t.Helper()
	return servicetest.Variant(t, SystemName, fixed, servicetest.Params("items", items))
}

// walker's walks fail the test on a safety violation, and a walk that
// falls quiescent is stuck.
var walker servicetest.Walker

const server, client sim.NodeID = 0, 1

// scenario with 2 items: the client takes the first resource, asks for the
// second before it exists and is told Empty; the server makes the second
// resource (the client is not on the wait queue yet: no Wakeup); then the
// client goes to sleep and the server queues it, next to the resource.
var scenario = []servicetest.Match{
	servicetest.App(server),
	servicetest.App(client),
	servicetest.MessageTo(server, "Take"),
	servicetest.MessageTo(client, "Item"),
	servicetest.MessageTo(server, "Take"),
	servicetest.App(server), // the last Produce: critical
	servicetest.MessageTo(client, "Empty"),
	servicetest.MessageTo(server, "Sleeping"),
}

// runScenario runs the scenario from the initial state of cfg (seed 0).
func runScenario(t testing.TB, cfg *sim.Config) *servicetest.Script {
	sc := servicetest.NewScript(t, servicetest.New(t, cfg, 0))
	for i, m := range scenario {
		sc.Do(fmt.Sprintf("step %d of the scenario", i+1), m)
	}
	return sc
}

const critStep = 6

// TestLostWakeup: the scenario ends quiescent and not live, with a resource
// available and the client asleep; walks show that the critical transition
// is the server's last Produce while the client's Empty is in flight: each
// state probed with 100 recovery walks to 3,000 steps (package critical),
// and critical.Find on the scenario agrees.
func TestLostWakeup(t *testing.T) {
	cfg := config(t, 2, false)
	sc := runScenario(t, cfg)
	s := sc.Sim
	judge := servicetest.Judge{WalkDepth: 3000, Search: 100, Seed: 1}
	probes := judge.Profile(t, s, sc.Last(), func(int) int { return 100 })
	if len(s.Ready()) != 0 || servicetest.Live(t, s) {
		t.Fatal("scenario does not end quiescent and not live")
	}
	srv, cl := sim.Node[Server](s.View(), server), sim.Node[Client](s.View(), client)
	if srv.Available != 1 || !srv.ClientWaiting || cl.State != Asleep {
		t.Fatalf("server %+v client %+v", srv, cl)
	}
	crit := servicetest.CriticalOfProbes(probes)
	if crit != critStep {
		t.Fatalf("critical transition at step %d, want %d; probes %+v", crit, critStep, probes)
	}
	if res := judge.Find(t, s); res.Step != crit {
		t.Fatalf("critical.Find: step %d (%s), want %d", res.Step, res.EventText, crit)
	}
	ev := sc.States[crit].LastEvent()
	if ev.Node != server || ev.Kind != engine.EvApp {
		t.Fatalf("critical event %s, want the server's Produce", ev)
	}
	t.Logf("critical transition: step %d, %s", crit, ev)
}

// TestFixedScenario: with the fix the server answers Sleeping with Wakeup.
func TestFixedScenario(t *testing.T) {
	s := runScenario(t, config(t, 2, true)).Sim
	if walker.Walk(t, s, 10, 0).Live < 0 {
		t.Fatal("not live")
	}
}

// TestWalks: 100 seeded walks of the fixed variant turn live within the
// budget; a good share of buggy walks lose the wakeup.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 1000
	for _, items := range []int{1, 2, 5} {
		b := servicetest.Batch{Walks: walks, Budget: budget}
		walker.ReachLive(t, config(t, items, true), b, fmt.Sprintf("fixed items=%d", items))
		dead := len(walker.Walks(t, config(t, items, false), b).Stuck())
		t.Logf("buggy items=%d: %d of %d walks stuck", items, dead, walks)
		if dead == 0 {
			t.Errorf("items=%d: no buggy walk lost the wakeup", items)
		}
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (engine.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	servicetest.Deterministic(t, config(t, 2, false), 5, 300)
	servicetest.Deterministic(t, config(t, 2, true), 5, 300)
}
