package proposers

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

func config(t testing.TB, k int, fixed bool) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(map[string]string{"proposers": fmt.Sprint(k), "fixed": fmt.Sprint(fixed)})
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

// walk runs s until it is live or has max steps, checking safety after
// every step; it returns the steps when it turned live, or -1.
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

// evKey identifies a pending event as a scheduler sees it.
type evKey struct {
	Kind sim.EventKind
	Node sim.NodeID
	Peer sim.NodeID
}

func keyOf(e sim.Event) evKey {
	k := evKey{Kind: e.Kind, Node: e.Node}
	if e.Kind == sim.EvMessage {
		k.Peer = e.Peer
	}
	return k
}

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

// projection is the partial state a lasso detector hashes (seed 000 §IV,
// Appendix C): each node's LassoKey, which leaves out ballot rounds, and
// the types of the pending events, not their payloads.
func projection(s *sim.Sim) string {
	var b strings.Builder
	for id := range s.Nodes() {
		fmt.Fprintf(&b, "%d:%+v ", id, s.Service(sim.NodeID(id)).(interface{ LassoKey() any }).LassoKey())
	}
	var evs []string
	for _, e := range s.Ready() {
		evs = append(evs, fmt.Sprintf("%s@%d<-%d:%s", e.Kind, e.Node, e.Peer, sim.MessageName(e.Msg)))
	}
	slices.Sort(evs)
	fmt.Fprintf(&b, "%v inflight=%d", evs, s.InFlight())
	return b.String()
}

const acceptor sim.NodeID = 0

// stem: both proposers start; proposer 1's Prepare is promised and its
// Accept is on its way, proposer 2's Prepare with a higher ballot too.
func stem(t testing.TB, s *sim.Sim) {
	for _, k := range []evKey{{Kind: sim.EvApp, Node: 1}, {Kind: sim.EvApp, Node: 2}, msg(acceptor, 1), msg(1, acceptor)} {
		if !tryStep(t, s, k) {
			t.Fatalf("stem: %v not ready", k)
		}
	}
}

// half is half the livelock: proposer b's Prepare pre-empts proposer a,
// whose Accept is refused; b sends its Accept, a prepares a higher ballot.
func half(a, b sim.NodeID) []evKey {
	return []evKey{msg(acceptor, b), msg(acceptor, a), msg(b, acceptor), msg(a, acceptor)}
}

// TestDuel shows the bug: after a stem of 4 steps, an 8-step schedule in
// which the two proposers pre-empt each other returns to the same
// projection (node LassoKeys and pending message types), with no value
// chosen in any state and every enabled event run. The exact state never
// repeats, because ballots grow: only a partial hash sees the lasso.
func TestDuel(t *testing.T) {
	cfg := config(t, 2, false)
	s := newSim(t, cfg, 1)
	stem(t, s)
	start := projection(s)
	seen := map[uint64]bool{}
	var projs []string
	cyc := slices.Concat(half(1, 2), half(2, 1))
	for iter := range 5 {
		enabled, ran := map[evKey]bool{}, map[evKey]bool{}
		for j, k := range cyc {
			if holds(t, s, cfg.Liveness) {
				t.Fatalf("iteration %d step %d: live inside the cycle", iter, j)
			}
			if seen[s.Hash()] {
				t.Fatalf("iteration %d step %d: an exact state repeated", iter, j)
			}
			seen[s.Hash()] = true
			if iter == 0 {
				projs = append(projs, projection(s))
			} else if projection(s) != projs[j] {
				t.Fatalf("iteration %d step %d: projection differs from iteration 0", iter, j)
			}
			for _, e := range s.Ready() {
				enabled[keyOf(e)] = true
			}
			if !tryStep(t, s, k) {
				t.Fatalf("iteration %d step %d: %v not ready", iter, j, k)
			}
			ran[k] = true
		}
		if got := projection(s); got != start {
			t.Fatalf("iteration %d: projection\n%s\nwant\n%s", iter, got, start)
		}
		for k := range enabled {
			if !ran[k] {
				t.Fatalf("unfair cycle: %v enabled but never run", k)
			}
		}
	}
	p1 := sim.Node[Proposer](s.View(), 1)
	t.Logf("5 cycles of 8 steps: projection repeats, %d distinct exact states, proposer 1 at round %d", len(seen), p1.Ballot.Round)
	// No dead state: random walks from the duel still choose a value.
	for seed := range uint64(20) {
		if walk(t, s.Clone(sim.NewRandom(seed)), s.Steps()+5000) < 0 {
			t.Fatalf("walk %d from the duel did not turn live", seed)
		}
	}
}

// TestFixedEndsDuel: with the fix, proposer 1 defers as soon as proposer
// 2's ballot pre-empts it, so the duel's second half cannot run.
func TestFixedEndsDuel(t *testing.T) {
	cfg := config(t, 2, true)
	s := newSim(t, cfg, 1)
	stem(t, s)
	for _, k := range half(1, 2) {
		if !tryStep(t, s, k) {
			t.Fatalf("%v not ready", k)
		}
	}
	if p := sim.Node[Proposer](s.View(), 1); p.Phase != Deferring {
		t.Fatalf("proposer 1 is %v, want deferring", p.Phase)
	}
	if tryStep(t, s, msg(acceptor, 1)) {
		t.Fatal("proposer 1 sent another Prepare")
	}
	if walk(t, s, s.Steps()+100) < 0 {
		t.Fatal("not live")
	}
}

// TestWalks: seeded random walks of both variants turn live (the buggy
// variant has no dead state) within the budget and never break Agreement.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 1000
	for _, fixed := range []bool{false, true} {
		for k := 2; k <= 4; k++ {
			cfg := config(t, k, fixed)
			var steps []int
			for seed := range uint64(walks) {
				n := walk(t, newSim(t, cfg, seed), budget)
				if n < 0 {
					t.Fatalf("fixed=%v proposers=%d seed %d: not live after %d steps", fixed, k, seed, budget)
				}
				steps = append(steps, n)
			}
			slices.Sort(steps)
			t.Logf("fixed=%v proposers=%d: steps to live median %d, p99 %d, max %d", fixed, k, steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1])
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
