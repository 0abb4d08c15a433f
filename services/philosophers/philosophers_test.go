package philosophers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
)

func config(t testing.TB, n int, fixed bool) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(map[string]string{"n": fmt.Sprint(n), "fixed": fmt.Sprint(fixed)})
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

// walk runs s with its chooser until it is live or has max steps, checking
// safety after every step; it returns the steps taken when it turned live,
// or -1.
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

// evKey identifies a pending event the way a scheduler sees it: the kind,
// where it happens, the peer (for a message: the connection) and the timer.
type evKey struct {
	Kind  sim.EventKind
	Node  sim.NodeID
	Peer  sim.NodeID
	Timer string
}

func keyOf(e sim.Event) evKey {
	k := evKey{Kind: e.Kind, Node: e.Node, Timer: e.Timer}
	if e.Kind == sim.EvMessage || e.Kind == sim.EvDatagram {
		k.Peer = e.Peer
	}
	return k
}

// tryStep runs the ready event with key k, if there is one.
func tryStep(t testing.TB, s *sim.Sim, k evKey) bool {
	t.Helper()
	for i, e := range s.Ready() {
		if keyOf(e) == k {
			if err := s.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}

func msg(to, from sim.NodeID) evKey { return evKey{Kind: sim.EvMessage, Node: to, Peer: from} }

// stem drives every philosopher to hold its first fork with an Acquire for
// its second on the way: the first state of the livelock's cycle.
func stem(t testing.TB, s *sim.Sim, n int) bool {
	for i := range n {
		if !tryStep(t, s, evKey{Kind: sim.EvApp, Node: sim.NodeID(i)}) {
			return false
		}
	}
	for i := range n {
		if !tryStep(t, s, msg(sim.NodeID(n+i), sim.NodeID(i))) {
			return false
		}
	}
	for i := range n {
		if !tryStep(t, s, msg(sim.NodeID(i), sim.NodeID(n+i))) {
			return false
		}
	}
	return true
}

// cycle is the livelock's schedule for n philosophers: every right fork
// answers Busy, every philosopher puts its left fork back and asks again,
// every left fork takes the Release and grants the new Acquire, and every
// philosopher asks its right fork once more.
func cycle(n int) []evKey {
	var ks []evKey
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
			s := newSim(t, cfg, 1)
			if !stem(t, s, n) {
				t.Fatal("stem not executable")
			}
			start := s.Hash()
			var hashes []uint64
			for iter := range 3 {
				enabled, ran := map[evKey]bool{}, map[evKey]bool{}
				for j, k := range cycle(n) {
					if holds(t, s, cfg.Liveness) {
						t.Fatalf("iteration %d step %d: live inside the cycle", iter, j)
					}
					for _, e := range s.Ready() {
						enabled[keyOf(e)] = true
					}
					if iter == 0 {
						hashes = append(hashes, s.Hash())
					} else if s.Hash() != hashes[j] {
						t.Fatalf("iteration %d step %d: state differs from iteration 0", iter, j)
					}
					if !tryStep(t, s, k) {
						t.Fatalf("iteration %d step %d: %v not ready", iter, j, k)
					}
					ran[k] = true
				}
				if s.Hash() != start {
					t.Fatalf("iteration %d did not return to the cycle's first state", iter)
				}
				for k := range enabled {
					if !ran[k] {
						t.Fatalf("unfair cycle: %v enabled but never run", k)
					}
				}
			}
			t.Logf("n=%d: stem %d steps, hot fair cycle of %d steps (ran it 3 times)", n, 3*n, 5*n)
			// No dead state: the cycle's states are transient.
			for seed := range uint64(20) {
				if walk(t, s.Clone(sim.NewRandom(seed)), s.Steps()+5000) < 0 {
					t.Fatalf("walk %d from the cycle did not turn live", seed)
				}
			}
		})
	}
}

// TestFixedBreaksLivelock: with the fix the stem cannot even be run: the
// last philosopher asks fork 0 first.
func TestFixedBreaksLivelock(t *testing.T) {
	for n := 2; n <= 5; n++ {
		s := newSim(t, config(t, n, true), 1)
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
			cfg := config(t, n, fixed)
			var steps []int
			for seed := range uint64(walks) {
				k := walk(t, newSim(t, cfg, seed), budget)
				if k < 0 {
					t.Fatalf("fixed=%v n=%d seed %d: not live after %d steps", fixed, n, seed, budget)
				}
				steps = append(steps, k)
			}
			slices.Sort(steps)
			t.Logf("fixed=%v n=%d: steps to live median %d, p99 %d, max %d", fixed, n, steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])
		}
	}
}

// TestDeterministic replays seeded walks of both variants twice and
// compares the state after every step (sim.CheckDeterminism): no map
// order, clock or global randomness leaks into the service.
func TestDeterministic(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		cfg := config(t, 3, fixed)
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
