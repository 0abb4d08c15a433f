package explore_test

import (
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/walks"
)

// routes: node 0 starts with two one-shot timers, "long" and "short",
// each of which cancels the other. "short" reaches state X in one step;
// "long" reaches the very same X (same struct, same pending timer) in
// three (long, long2, long3). From X, timers t1, t2, t3 break the safety
// property: at step 4 by the short route, step 6 by the long one. The
// bounded search tries "long" first (timers are ordered by name).
type routes struct {
	sim.Base
	X     bool
	Stage int
}

func (r *routes) Start(ctx *sim.Context) {
	ctx.SetTimer("long")
	ctx.SetTimer("short")
}

func (r *routes) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "short":
		ctx.CancelTimer("long")
		r.X = true
		ctx.SetTimer("t1")
	case "long":
		ctx.CancelTimer("short")
		ctx.SetTimer("long2")
	case "long2":
		ctx.SetTimer("long3")
	case "long3":
		r.X = true
		ctx.SetTimer("t1")
	case "t1":
		r.Stage = 1
		ctx.SetTimer("t2")
	case "t2":
		r.Stage = 2
		ctx.SetTimer("t3")
	case "t3":
		r.Stage = 3
	}
}

func routesConfig() *sim.Config {
	return &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &routes{} },
		Safety: []sim.Property{{Name: "NotBroken", Check: func(v *sim.View) bool {
			return sim.Node[routes](v, 0).Stage != 3
		}}},
	}
}

// TestPruneKeepsTheShallowerOccurrence: a state first reached deep (by the
// long route, at depth 3) and then shallower (by the short route, at depth
// 1) must be explored again from the shallow occurrence, which has more
// of the depth bound left: with a bound of 5 only the short route reaches
// the violation (step 4). Pruning it for having been seen (at any depth,
// or at a greater depth) would miss the violation. The walks add nothing
// (d_max 5 = the bound).
func TestPruneKeepsTheShallowerOccurrence(t *testing.T) {
	res, err := run(explore.Config{System: routesConfig(), DepthStep: 5, MaxDepth: 5, WalkDepth: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != explore.Safety || res.Violations[0].Steps != 4 {
		t.Fatalf("want the violation at step 4 by the short route, got %v %+v", res.Verdict, res.Stats)
	}
	// With a bound of 3, neither route gets there.
	res, err = run(explore.Config{System: routesConfig(), DepthStep: 3, MaxDepth: 3, WalkDepth: 3, Workers: 1})
	if err != nil || res.Verdict != explore.None {
		t.Fatalf("bound 3: %v %v", res.Verdict, err)
	}
}

// commuting: two nodes each with one driver request; the two orders reach
// the same state at depth 2.
type commuting struct {
	sim.Base
	Done bool
}

func (c *commuting) HandleApp(*sim.Context, any) { c.Done = true }

// TestPruneAtTheSameDepth: a state reached again at the depth it was
// first reached at, in the same round, is pruned: of the two orders of
// two independent requests the second ends where the first did, and is
// cut there. Not pruning at equal depth would explore it twice.
func TestPruneAtTheSameDepth(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &commuting{} },
		App:     func(sim.NodeID) []any { return []any{"go"} },
	}
	res, err := run(explore.Config{System: cfg, DepthStep: 2, MaxDepth: 2, WalkDepth: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// States: {1 done}, {0 done}, {both}: three, the last reached twice.
	if res.Stats.Paths != 2 || res.Stats.Pruned != 1 || res.Stats.DistinctStates != 3 {
		t.Fatalf("want 2 paths, 1 pruned, 3 states: %+v", res.Stats)
	}
}

// forks: node 0 starts with one-shot timers "a" and "b", each of which
// cancels the other; each then starts a chain of timers, and the chain
// after "a" breaks the safety property at step 6. The bounded search runs
// the "a" branch first, then the "b" branch.
type forks struct {
	sim.Base
	Branch string
	At     int
}

func (f *forks) Start(ctx *sim.Context) {
	ctx.SetTimer("a")
	ctx.SetTimer("b")
}

func (f *forks) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "a", "b":
		ctx.CancelTimer(map[string]string{"a": "b", "b": "a"}[name])
		f.Branch = name
	}
	f.At++
	if f.At < 6 {
		ctx.SetTimer("next")
	}
}

// TestPruneOnlyWithinTheRound: the states of an earlier round do not prune
// a later, deeper round (seed 003 Algorithm 1 starts each round with an
// empty set): round 1 (depth 3) records both branches' first states, and
// round 2 (depth 6) must go through the "a" branch's again to the
// violation at step 6. (Round 2's first path differs from round 1's last,
// the "b" branch, so its states are checked afresh, not replayed.) The
// walks cannot reach it (d_max 3).
func TestPruneOnlyWithinTheRound(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &forks{} },
		Safety: []sim.Property{{Name: "Short", Check: func(v *sim.View) bool {
			f := sim.Node[forks](v, 0)
			return f.Branch != "a" || f.At < 6
		}}},
	}
	res, err := run(explore.Config{System: cfg, DepthStep: 3, MaxDepth: 6, WalkDepth: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != explore.Safety || res.Violations[0].Steps != 6 || res.Stats.Rounds != 2 {
		t.Fatalf("want the violation at step 6 in round 2, got %v %+v", res.Verdict, res.Stats)
	}
}

// flipper: node 0's periodic timer flips A forever; Never never holds.
// Every path returns to the initial state after two steps.
type flipper struct {
	sim.Base
	A bool
}

func (f *flipper) Start(ctx *sim.Context)           { ctx.SetPeriodic("flip") }
func (f *flipper) HandleTimer(*sim.Context, string) { f.A = !f.A }

// TestCycleOnThePathWalks: a bounded path that returns to a state of its
// own path ends its bounded part there and walks (Stats.Cycles), rather
// than going on and being cut by the states it recorded itself: a dead
// state whose only events loop back to it is still walked from, and its
// liveness violation found.
func TestCycleOnThePathWalks(t *testing.T) {
	cfg := &sim.Config{
		Nodes:    1,
		Service:  func(sim.NodeID) sim.Service { return &flipper{} },
		Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}},
	}
	res, err := run(explore.Config{System: cfg, DepthStep: 5, MaxDepth: 5, WalkDepth: 50, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != explore.Liveness || res.Violations[0].Outcome != walks.Dead || res.Stats.Cycles != 1 || res.Stats.Walks != 1 {
		t.Fatalf("want a dead walk from the cycle, got %v %+v", res.Verdict, res.Stats)
	}
}

// TestMaxPathsIsExact: a path budget runs exactly that many paths.
func TestMaxPathsIsExact(t *testing.T) {
	for _, n := range []int64{1, 3, 7} {
		res, err := run(explore.Config{System: counterConfig(2, 3), DepthStep: 4, WalkDepth: 20, Workers: 2, MaxPaths: n, NoHashing: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Paths != n || res.Stats.Stop != explore.StopPaths {
			t.Errorf("MaxPaths %d: %d paths, stop %v", n, res.Stats.Paths, res.Stats.Stop)
		}
	}
}

// TestTransitionsCountSteps: the transitions counted are the steps taken,
// none for the step that found nothing left to run: three driver requests
// are three transitions, whether the bounded part or the walk runs out of
// events.
func TestTransitionsCountSteps(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &commuting{} },
		App:     func(sim.NodeID) []any { return []any{1, 2, 3} },
	}
	for _, depth := range []int{1, 5} {
		res, err := run(explore.Config{System: cfg, DepthStep: depth, MaxDepth: depth, WalkDepth: 50, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Paths != 1 || res.Stats.Transitions != 3 {
			t.Errorf("depth %d: %d paths, %d transitions; want 1 and 3", depth, res.Stats.Paths, res.Stats.Transitions)
		}
	}
}
