package explore_test

import (
	"context"
	"testing"
	"time"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/fair"
)

// pingPong passes a token back and forth; a node that gets it may keep
// it (Context.Rand), which makes the system live. Passing it on forever is
// a fair livelock whose states repeat after four steps (each node's Has
// flips twice), but no dead state:
// a walk soon keeps the token.
type pingPong struct {
	sim.Base
	Has, Kept bool
}

func (p *pingPong) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, "token")
	}
}

func (p *pingPong) HandleMessage(ctx *sim.Context, from sim.NodeID, _ sim.Message) {
	if ctx.Rand(2) == 1 {
		p.Kept = true
		return
	}
	p.Has = !p.Has
	ctx.Send(from, "token")
}

var kept = sim.Property{Name: "Kept", Check: func(v *sim.View) bool {
	return sim.Count(v, func(_ sim.NodeID, p *pingPong) bool { return p.Kept }) > 0
}}

// idler has a periodic timer that changes nothing, and one driver request
// that makes it live: its only hot cycle (the timer firing in place while
// the request waits) starves the driver.
type idler struct {
	sim.Base
	Done bool
}

func (i *idler) Start(ctx *sim.Context)                              { ctx.SetPeriodic("tick") }
func (i *idler) HandleApp(*sim.Context, any)                         { i.Done = true }
func (i *idler) HandleTimer(*sim.Context, string)                    {}
func (i *idler) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {}

func runGraph(t *testing.T, cfg *sim.Config, workers int) *explore.Result {
	t.Helper()
	res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: dfs.Strategy{}, WalkDepth: 200, Workers: workers,
		MaxDepth: 40, Graph: &explore.GraphConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGraphLivelock: the token's four-state cycle is hot and fair (and each
// of its states has a live successor: 8 states, 8 transitions); the
// graph reports it after the first round (where every walk became live),
// as a lasso of the graph that replays: a stem into the cycle and the
// cycle back to the same state.
func TestGraphLivelock(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &pingPong{} }, Liveness: []sim.Property{kept}}
	for _, w := range []int{1, 2} {
		res := runGraph(t, cfg, w)
		if len(res.Violations) != 1 {
			t.Fatalf("workers %d: %d violations, stop %s", w, len(res.Violations), res.Stats.Stop)
		}
		v := res.Violations[0]
		l, ok := v.Observed.(*fair.Lasso)
		if v.Verdict != explore.Liveness || v.Outcome != walks.Observed || !ok || v.Graph == nil || v.Property != "Kept" {
			t.Fatalf("workers %d: violation %+v", w, v)
		}
		if len(l.Cycle) != 4 || v.Steps != len(l.Stem)+4 || v.Graph.SCC != 4 || res.Stats.Rounds != 1 {
			t.Fatalf("workers %d: lasso stem %d cycle %d (SCC %d), %d steps, %d rounds", w, len(l.Stem), len(l.Cycle), v.Graph.SCC, v.Steps, res.Stats.Rounds)
		}
		if g := res.Stats.Graph; g == nil || g.Checks != 1 || g.States != 8 || g.Edges != 8 {
			t.Fatalf("workers %d: graph stats %+v", w, g)
		}
	}
}

// TestGraphUnfair: the idler's only hot cycle starves its driver, so the
// graph has no lasso; the search exhausts the state space (the timer loops
// in place) and reports nothing.
func TestGraphUnfair(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &idler{} }, App: func(sim.NodeID) []any { return []any{1} },
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[idler](v, 0).Done }}}}
	res := runGraph(t, cfg, 1)
	if len(res.Violations) != 0 || res.Stats.Stop != explore.StopExhausted {
		t.Fatalf("%d violations, stop %s", len(res.Violations), res.Stats.Stop)
	}
	if g := res.Stats.Graph; g == nil || g.States != 2 || g.Edges != 3 || g.Checks == 0 {
		t.Fatalf("graph %+v, want 2 states (hot, live), 3 transitions", g)
	}
}

// TestGraphNeedsLiveness: without a liveness property nothing is hot and
// nothing is recorded.
func TestGraphNeedsLiveness(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &pingPong{} }}
	if res := runGraph(t, cfg, 1); res.Stats.Graph != nil || len(res.Violations) != 0 {
		t.Fatalf("graph %+v, %d violations", res.Stats.Graph, len(res.Violations))
	}
}

// waiter waits for a timeout: its timer asks the clock and sets itself
// again until the time is up, then it is done.
type waiter struct {
	sim.Base
	Done bool
}

func (w *waiter) Start(ctx *sim.Context) { ctx.SetTimer("timeout") }

func (w *waiter) HandleTimer(ctx *sim.Context, _ string) {
	if ctx.Elapsed(ctx.Now(), time.Second) {
		w.Done = true
		return
	}
	ctx.SetTimer("timeout")
}

// deadlineWaiter waits for a fixed deadline (Since never moves): its
// timer asks the clock and, told "elapsed", is done.
type deadlineWaiter struct {
	sim.Base
	Since sim.Time
	Done  bool
}

func (w *deadlineWaiter) Start(ctx *sim.Context) { ctx.SetPeriodic("a") }

func (w *deadlineWaiter) HandleTimer(ctx *sim.Context, _ string) {
	if !w.Done && ctx.Elapsed(w.Since, 10*time.Second) {
		w.Done = true
	}
}

// clockWatcher's timer asks the clock and changes nothing.
type clockWatcher struct{ sim.Base }

func (c *clockWatcher) Start(ctx *sim.Context) { ctx.SetPeriodic("b") }

func (c *clockWatcher) HandleTimer(ctx *sim.Context, _ string) { ctx.Elapsed(sim.Time{}, time.Second) }

// TestGraphTimeoutIsNoLivelock: three waiters' timers that the clock
// keeps telling "not yet" are hot cycles fair to every node but unfair to
// time, so the graph offers no lasso and the exhausted search reports
// nothing, but counts them as waiting on a timeout (GraphStats.TimeWaits):
// no proof of liveness. Fairness to time is per node: a waiter for a fixed
// deadline whose "not yet" repeats while another node is told "elapsed"
// waits as much (a trial's "deadline", reported as a certain lasso when
// the pair was one for all nodes), which the graph sees only if every
// transition keeps its event's node. The graph is the same (its
// transitions split by time class, each with its node) whether one worker
// records it from the paths it runs, two from their speculative records,
// or a merge from the records of 3 shards.
func TestGraphTimeoutIsNoLivelock(t *testing.T) {
	waiters := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &waiter{} },
		Liveness: []sim.Property{{Name: "AllDone", Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, w *waiter) bool { return w.Done })
		}}}}
	deadline := &sim.Config{Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &deadlineWaiter{}
			}
			return &clockWatcher{}
		},
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[deadlineWaiter](v, 0).Done }}}}
	for _, sys := range []struct {
		name          string
		cfg           *sim.Config
		states, edges int
	}{
		// 8 states (each waiter done or not); from each, a waiter not
		// done waits in place or is done: 12 transitions of each kind.
		{"waiters", waiters, 8, 24},
		// 2 states: in the hot one the waiter waits in place or is done
		// and the watcher is told "not yet" or "elapsed" in place; in the
		// live one the waiter's timer does nothing and the watcher's two.
		{"deadline", deadline, 2, 7},
	} {
		c := explore.Config{System: sys.cfg, Strategy: dfs.Strategy{}, Seed: 3, WalkDepth: 200, MaxDepth: 40, Graph: &explore.GraphConfig{}}
		var want string
		for _, w := range []int{1, 2} {
			c.Workers = w
			res, err := explore.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			g := res.Stats.Graph
			if len(res.Violations) != 0 || res.Stats.Stop != explore.StopExhausted || g == nil || g.Checks == 0 {
				t.Fatalf("%s, %d workers: %d violations, stop %s, graph %+v; want none, exhausted", sys.name, w, len(res.Violations), res.Stats.Stop, g)
			}
			if g.States != sys.states || g.Edges != sys.edges || g.TimeWaits == 0 {
				t.Errorf("%s, %d workers: graph %+v, want %d states, %d transitions and cycles set aside for time", sys.name, w, g, sys.states, sys.edges)
			}
			if w == 1 {
				want = summary(res)
			} else if got := summary(res); got != want {
				t.Errorf("%s, %d workers:\n%s\none worker:\n%s", sys.name, w, got, want)
			}
		}
		var shards []*explore.ShardRecords
		for i := range 3 {
			sh, err := explore.Shard(context.Background(), c, i, 3)
			if err != nil {
				t.Fatalf("%s: shard %d of 3: %v", sys.name, i, err)
			}
			shards = append(shards, sh)
		}
		m := c
		m.Records = shards
		merged, err := explore.Run(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(merged); got != want {
			t.Errorf("%s: 3 shards merged:\n%s\none worker:\n%s", sys.name, got, want)
		}
	}
}
