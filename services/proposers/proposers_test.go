package proposers

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// config builds the system with k proposers, fixed or not.
func config(t testing.TB, k int, fixed bool) *sim.Config {
	t.Helper()
	return servicetest.Variant(t, SystemName, fixed, servicetest.Params("proposers", k))
}

// walker's walks fail the test on a safety violation, and a walk that
// falls quiescent is stuck.
var walker servicetest.Walker

// msg matches the next message from node from to node to.
func msg(to, from sim.NodeID) servicetest.Match { return servicetest.From(to, from) }

// projection is the partial state a lasso detector hashes (seed 000 §IV,
// Appendix C): each node's LassoKey, which leaves out ballot rounds, and
// the types of the pending events, not their payloads.
func projection(s *engine.Sim) string {
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
func stem(t testing.TB, s *engine.Sim) {
	for i, m := range []servicetest.Match{servicetest.App(1), servicetest.App(2), msg(acceptor, 1), msg(1, acceptor)} {
		servicetest.Step(t, s, fmt.Sprintf("step %d of the stem", i), m)
	}
}

// half is half the livelock: proposer b's Prepare pre-empts proposer a,
// whose Accept is refused; b sends its Accept, a prepares a higher ballot.
func half(a, b sim.NodeID) []servicetest.Match {
	return []servicetest.Match{msg(acceptor, b), msg(acceptor, a), msg(b, acceptor), msg(a, acceptor)}
}

// TestDuel shows the bug: after a stem of 4 steps, an 8-step schedule in
// which the two proposers pre-empt each other returns to the same
// projection (node LassoKeys and pending message types), with no value
// chosen in any state and every enabled event run. The exact state never
// repeats, because ballots grow: only a partial hash sees the lasso.
func TestDuel(t *testing.T) {
	cfg := config(t, 2, false)
	s := servicetest.New(t, cfg, 1)
	stem(t, s)
	start := projection(s)
	seen := map[uint64]bool{}
	var projs []string
	servicetest.Cycle{
		Steps: slices.Concat(half(1, 2), half(2, 1)),
		Before: func(iter, j int, s *engine.Sim) {
			if seen[s.Hash()] {
				t.Fatalf("iteration %d step %d: an exact state repeated", iter, j)
			}
			seen[s.Hash()] = true
			if iter == 0 {
				projs = append(projs, projection(s))
			} else if projection(s) != projs[j] {
				t.Fatalf("iteration %d step %d: projection differs from iteration 0", iter, j)
			}
		},
		After: func(iter int, s *engine.Sim) {
			if got := projection(s); got != start {
				t.Fatalf("iteration %d: projection\n%s\nwant\n%s", iter, got, start)
			}
		},
	}.Run(t, s, 5)
	p1 := sim.Node[Proposer](s.View(), 1)
	t.Logf("5 cycles of 8 steps: projection repeats, %d distinct exact states, proposer 1 at round %d", len(seen), p1.Ballot.Round)
	// No dead state: random walks from the duel still choose a value.
	if stuck := walker.From(t, s, 20, 5000, 0).Stuck(); len(stuck) > 0 {
		t.Fatalf("walk %d from the duel did not turn live", stuck[0])
	}
}

// TestFixedEndsDuel: with the fix, proposer 1 defers as soon as proposer
// 2's ballot pre-empts it, so the duel's second half cannot run.
func TestFixedEndsDuel(t *testing.T) {
	cfg := config(t, 2, true)
	s := servicetest.New(t, cfg, 1)
	stem(t, s)
	for i, m := range half(1, 2) {
		servicetest.Step(t, s, fmt.Sprintf("step %d of the duel's first half", i), m)
	}
	if p := sim.Node[Proposer](s.View(), 1); p.Phase != Deferring {
		t.Fatalf("proposer 1 is %v, want deferring", p.Phase)
	}
	if servicetest.TryStep(t, s, msg(acceptor, 1)) {
		t.Fatal("proposer 1 sent another Prepare")
	}
	if walker.Walk(t, s, 100, 0).Live < 0 {
		t.Fatal("not live")
	}
}

// TestWalks: seeded random walks of both variants turn live (the buggy
// variant has no dead state) within the budget and never break Agreement.
func TestWalks(t *testing.T) {
	const walks, budget = 100, 1000
	for _, fixed := range []bool{false, true} {
		for k := 2; k <= 4; k++ {
			walker.ReachLive(t, config(t, k, fixed), servicetest.Batch{Walks: walks, Budget: budget}, fmt.Sprintf("fixed=%v proposers=%d", fixed, k))
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
