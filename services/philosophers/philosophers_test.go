package philosophers

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// config builds the system with n philosophers, fixed or not.
func config(t testing.TB, n int, fixed bool) *sim.Config {
	t.Helper()
	return servicetest.Variant(t, SystemName, fixed, servicetest.Params("n", n))
}

// walker's walks fail the test on a safety violation, and a walk that
// falls quiescent is stuck.
var walker servicetest.Walker

// msg matches the next message from node from to node to.
func msg(to, from sim.NodeID) servicetest.Match { return servicetest.From(to, from) }

// stem drives every philosopher to hold its first fork with an Acquire for
// its second on the way: the first state of the livelock's cycle.
func stem(t testing.TB, s *engine.Sim, n int) bool {
	for i := range n {
		if !servicetest.TryStep(t, s, servicetest.App(sim.NodeID(i))) {
			return false
		}
	}
	for i := range n {
		if !servicetest.TryStep(t, s, msg(sim.NodeID(n+i), sim.NodeID(i))) {
			return false
		}
	}
	for i := range n {
		if !servicetest.TryStep(t, s, msg(sim.NodeID(i), sim.NodeID(n+i))) {
			return false
		}
	}
	return true
}

// cycle is the livelock's schedule for n philosophers: every right fork
// answers Busy, every philosopher puts its left fork back and asks again,
// every left fork takes the Release and grants the new Acquire, and every
// philosopher asks its right fork once more.
func cycle(n int) []servicetest.Match {
	var ks []servicetest.Match
	P := func(i int) sim.NodeID { return sim.NodeID(i % n) }
	F := func(i int) sim.NodeID { return sim.NodeID(n + i%n) }
	for i := range n {
		ks = append(ks, msg(F(i+1), P(i))) // right fork refuses
	}
	for i := range n {
		ks = append(ks, msg(P(i), F(i+1))) // Busy: release left, ask again
	}
	for i := range n {
		ks = append(ks, msg(F(i), P(i))) // left fork takes the Release
	}
	for i := range n {
		ks = append(ks, msg(F(i), P(i))) // and grants the Acquire
	}
	for i := range n {
		ks = append(ks, msg(P(i), F(i))) // Granted: ask the right fork
	}
	return ks
}

// TestLivelock shows the bug of the buggy variant for n = 2..5: after a
// stem of 3n steps, a schedule of 5n steps comes back to exactly the same
// global state (same Hash), nobody eats in any state of it (all hot), and
// every event enabled anywhere in it is also executed in it (fair). Yet
// there is no dead state: random walks from the cycle all turn live.
func TestLivelock(t *testing.T) {
	for n := 2; n <= 5; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			cfg := config(t, n, false)
			s := servicetest.New(t, cfg, 1)
			if !stem(t, s, n) {
				t.Fatal("stem not executable")
			}
			start := s.Hash()
			var hashes []uint64
			servicetest.Cycle{
				Steps: cycle(n),
				Before: func(iter, j int, s *engine.Sim) {
					if iter == 0 {
						hashes = append(hashes, s.Hash())
					} else if s.Hash() != hashes[j] {
						t.Fatalf("iteration %d step %d: state differs from iteration 0", iter, j)
					}
				},
				After: func(iter int, s *engine.Sim) {
					if s.Hash() != start {
						t.Fatalf("iteration %d did not return to the cycle's first state", iter)
					}
				},
			}.Run(t, s, 3)
			t.Logf("n=%d: stem %d steps, hot fair cycle of %d steps (ran it 3 times)", n, 3*n, 5*n)
			// No dead state: the cycle's states are transient.
			if stuck := walker.From(t, s, 20, 5000, 0).Stuck(); len(stuck) > 0 {
				t.Fatalf("walk %d from the cycle did not turn live", stuck[0])
			}
		})
	}
}

// TestFixedBreaksLivelock: with the fix the stem cannot even be run: the
// last philosopher asks fork 0 first.
func TestFixedBreaksLivelock(t *testing.T) {
	for n := 2; n <= 5; n++ {
		s := servicetest.New(t, config(t, n, true), 1)
		if stem(t, s, n) {
			t.Fatalf("n=%d: the livelock's stem runs in the fixed variant", n)
		}
	}
}

// TestWalks: seeded random walks of both variants always turn live (the
// buggy variant has no dead state) within the stated budget and never
// break Exclusion.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 2000
	for _, fixed := range []bool{false, true} {
		for n := 2; n <= 5; n++ {
			walker.ReachLive(t, config(t, n, fixed), servicetest.Batch{Walks: walks, Budget: budget}, fmt.Sprintf("fixed=%v n=%d", fixed, n))
		}
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (engine.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	servicetest.Deterministic(t, config(t, 3, false), 5, 300)
	servicetest.Deterministic(t, config(t, 3, true), 5, 300)
}
