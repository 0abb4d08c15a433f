package explore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/walks"
)

// summary is everything a search reports that must not depend on the
// number of workers: the verdict, every violation (path, choices, outcome)
// and every count (the elapsed time and the memory aside).
func summary(res *explore.Result) string {
	var b strings.Builder
	st := res.Stats
	st.Elapsed, st.VisitedBytes = 0, 0
	g := st.Graph
	st.Graph = nil
	fmt.Fprintf(&b, "%v %+v\n", res.Verdict, st)
	if g != nil {
		gs := *g
		gs.Bytes = 0
		fmt.Fprintf(&b, "graph %+v\n", gs)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "%v %v %q path %d depth %d steps %d live after %d checked %v choices %v err %v\n",
			v.Verdict, v.Outcome, v.Property, v.Path, v.Depth, v.Steps, v.LiveAfter, v.Checked, v.Choices, v.Err)
	}
	return b.String()
}

// TestSpeculationGivesTheSameResults: the bounded DFS run ahead by 2 and 4
// workers (speculation) reports exactly what one worker reports (every
// violation and every count), on every example system, buggy and fixed,
// with and without hashing, with the explored graph, and with a visited
// set too small for the search (the hints then prune what the set does
// not, and the coordinator runs those paths itself); and the records were
// used (most paths are followed from them).
func TestSpeculationGivesTheSameResults(t *testing.T) {
	type variant struct {
		name string
		set  func(*explore.Config)
	}
	variants := []variant{
		{"default", func(*explore.Config) {}},
		{"no-hashing", func(c *explore.Config) { c.NoHashing = true }},
		{"graph", func(c *explore.Config) { c.Graph = &explore.GraphConfig{} }},
		{"full-set", func(c *explore.Config) { c.MaxStates = 300 }},
	}
	budget := int64(1500)
	if testing.Short() {
		budget = 300
	}
	var hits, paths int64
	for _, sys := range sim.Systems() {
		for _, fixed := range []string{"false", "true"} {
			params := map[string]string{}
			if slices.ContainsFunc(sys.Params, func(p sim.ParamSpec) bool { return p.Name == "fixed" }) {
				params["fixed"] = fixed
			} else if fixed == "true" {
				continue
			}
			cfg, _, err := sys.Config(params)
			if err != nil {
				t.Fatal(err)
			}
			for vi, v := range variants {
				if vi > 0 && sys.Name != "randtree" && sys.Name != "transport" && sys.Name != "philosophers" ||
					testing.Short() && vi > 0 && sys.Name != "randtree" {
					continue // the variants on a few systems; the default on all
				}
				var want string
				for _, workers := range []int{1, 2, 4} {
					c := explore.Config{System: cfg, Seed: 7, WalkDepth: 300, MaxPaths: budget, MaxViolations: 3, Workers: workers,
						HandlerTimeout: time.Minute}
					v.set(&c)
					var h int64
					explore.SetSpecHook(&c, func(hit, _, _, _ int64) { h = hit })
					start := time.Now()
					res, err := run(c)
					if err != nil {
						t.Fatalf("%s %v %s workers %d: %v", sys.Name, params, v.name, workers, err)
					}
					t.Logf("%s %v %s workers %d: %v, %d paths", sys.Name, params, v.name, workers, time.Since(start), res.Stats.Paths)
					got := summary(res)
					if workers == 1 {
						want = got
						continue
					}
					hits += h
					paths += res.Stats.Paths
					if got != want {
						t.Errorf("%s %v %s: %d workers report\n%s\none worker\n%s", sys.Name, params, v.name, workers, got, want)
					}
				}
			}
		}
	}
	if hits < paths/2 {
		t.Errorf("the coordinator followed %d of %d paths from the workers' records: speculation hardly ran", hits, paths)
	}
}

// spinner hangs in its handler from the second timer firing of node 1 on
// (a busy loop the watchdog unwinds at its Context call), deep in the
// bounded search: in a subtree the workers run ahead.
type spinner struct {
	sim.Base
	Fired int
}

func (s *spinner) Start(ctx *sim.Context)      { ctx.SetPeriodic("tick") }
func (s *spinner) HandleApp(*sim.Context, any) {}
func (s *spinner) HandleTimer(ctx *sim.Context, _ string) {
	s.Fired++
	for ctx.Self() == 1 && s.Fired >= 3 {
		ctx.Self()
	}
}

// A handler that hangs in a path run ahead is reported in the order, as
// one worker reports it: the coordinator runs that path itself.
func TestSpeculationHang(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &spinner{} },
		App: func(sim.NodeID) []any { return []any{1, 2, 3} }}
	var want string
	for _, workers := range []int{1, 2} {
		res, err := run(explore.Config{System: cfg, DepthStep: 8, MaxDepth: 8, WalkDepth: 20, Workers: workers, MaxViolations: 1,
			HandlerTimeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != explore.Safety || res.Violations[0].Outcome != walks.Failed || res.Violations[0].Property != walks.HangProperty {
			t.Fatalf("workers %d: %v %+v", workers, res.Verdict, res.Violations)
		}
		// The hang's message names the timeout, which is the same; the
		// steps and the path are compared.
		got := fmt.Sprint(res.Violations[0].Path, res.Violations[0].Steps, res.Violations[0].Choices, res.Stats.Paths)
		if workers == 1 {
			want = got
		} else if got != want {
			t.Errorf("2 workers: hang at %s, one worker at %s", got, want)
		}
	}
}

// TestShardsMergeToOneProcess: the search run as 1, 3 and 4 shards and
// merged reports exactly what one process reports, on a few systems,
// buggy and fixed, with the explored graph; the merge follows most paths
// of a fixed system from the shards' records.
func TestShardsMergeToOneProcess(t *testing.T) {
	systems, counts := []string{"randtree", "transport", "chord", "philosophers"}, []int{1, 3, 4}
	if testing.Short() {
		systems, counts = systems[:2], []int{4}
	}
	for _, name := range systems {
		sys, err := sim.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, fixed := range []string{"false", "true"} {
			cfg, _, err := sys.Config(map[string]string{"fixed": fixed})
			if err != nil {
				t.Fatal(err)
			}
			c := explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 3, WalkDepth: 300, MaxPaths: 800, MaxViolations: 2, Workers: 2,
				Graph: &explore.GraphConfig{}}
			one, err := explore.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			want := summary(one)
			for _, n := range counts {
				var shards []*explore.ShardRecords
				for i := range n {
					sh, err := explore.Shard(context.Background(), c, i, n)
					if err != nil {
						t.Fatalf("%s shard %d of %d: %v", name, i, n, err)
					}
					shards = append(shards, sh)
				}
				m := c
				m.Records = shards
				var hits, misses int64
				explore.SetSpecHook(&m, func(h, mi, _, _ int64) { hits, misses = h, mi })
				merged, err := explore.Run(context.Background(), m)
				if err != nil {
					t.Fatalf("%s merge of %d: %v", name, n, err)
				}
				if got := summary(merged); got != want {
					t.Errorf("%s fixed=%s: %d shards merged report\n%s\none process\n%s", name, fixed, n, got, want)
				}
				// A buggy system's shards stop at their first violations, and
				// the merge runs the paths past them itself.
				if fixed == "true" && hits < misses || hits == 0 {
					t.Errorf("%s fixed=%s, %d shards: the merge followed %d paths from records and ran %d itself", name, fixed, n, hits, misses)
				}
			}
		}
	}
}

// taker takes its application's requests and does nothing else: every
// path ends, quiescent, after the requests of all the nodes.
type taker struct {
	sim.Base
	Took []int
}

func (n *taker) HandleApp(_ *sim.Context, req any) { n.Took = append(n.Took, req.(int)) }

// TestGeneratorHandsOverPathsAboveTheSplit: in a tree whose paths all end
// above the split depth (none makes a task for a worker), the generator
// hands its records to the coordinator as it goes and stays a bounded
// number of them ahead, so that a search that stops after 20 paths does
// not run (and hold the records of) the whole tree first: 34,650 paths of
// 12 steps without hashing, where a depth bound of 60 puts the split at 56.
func TestGeneratorHandsOverPathsAboveTheSplit(t *testing.T) {
	cfg := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &taker{} },
		App: func(sim.NodeID) []any { return []any{1, 2, 3, 4} }}
	const workers = 2
	var want string
	for _, w := range []int{1, workers} {
		c := explore.Config{System: cfg, DepthStep: 60, MaxDepth: 60, WalkDepth: 100, Workers: w, MaxPaths: 20, NoHashing: true}
		var gen int64 = -1
		explore.SetGenHook(&c, func(paths int64) { gen = paths })
		res, err := run(c)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Paths != 20 {
			t.Fatalf("%d workers: %d paths, want the budget's 20", w, res.Stats.Paths)
		}
		got := summary(res)
		if w == 1 {
			want = got
			continue
		}
		if got != want {
			t.Errorf("%d workers:\n%s\none worker:\n%s", w, got, want)
		}
		// The coordinator holds one chunk while the generator fills the
		// tasks ahead of it and the one it is on: 2,560 paths now, and
		// never a sizeable part of the tree.
		bound := min(int64((explore.TasksPerWorker*workers+2)*explore.PreChunk), 34650/4)
		if gen < 0 || gen > bound {
			t.Errorf("the generator ran %d paths for a search of 20, want at most %d", gen, bound)
		}
	}
}

// TestShardsMergePathsAboveTheSplitInOrder: merged shards follow the paths
// that end above the split depth in one process's order when shard 0
// handed them over in several tasks (8,000 paths of the tree above, 256 a
// task).
func TestShardsMergePathsAboveTheSplitInOrder(t *testing.T) {
	cfg := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &taker{} },
		App: func(sim.NodeID) []any { return []any{1, 2, 3, 4} }}
	c := explore.Config{System: cfg, Strategy: dfs.Strategy{}, DepthStep: 60, MaxDepth: 60, WalkDepth: 100, Workers: 2, MaxPaths: 8000, NoHashing: true}
	order := func(c explore.Config) []string {
		var paths []string
		explore.SetPathHook(&c, func(ch []int32) { paths = append(paths, fmt.Sprint(ch)) })
		if _, err := explore.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return paths
	}
	want := order(c)
	var shards []*explore.ShardRecords
	for i := range 3 {
		sh, err := explore.Shard(context.Background(), c, i, 3)
		if err != nil {
			t.Fatalf("shard %d of 3: %v", i, err)
		}
		shards = append(shards, sh)
	}
	m := c
	m.Records = shards
	got := order(m)
	if len(got) != 8000 || !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the merge followed %d paths, one process %d; they part at path %d", len(got), len(want), i+1)
	}
}

// ticker counts its timer's firings at node 0; node 1's timer does
// nothing, so that a path returns to a state of its own at once (a cycle
// of the bounded part), and a reset of node 0 loses the count.
type ticker struct {
	sim.Base
	Fired int
}

func (n *ticker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (n *ticker) HandleTimer(ctx *sim.Context, _ string) {
	if ctx.Self() == 0 {
		n.Fired++
	}
}

// TestShardsMergeCycleWalksWithoutFailures: a path of the bounded part
// that ends above the split depth on a cycle of its own (node 1's timer
// fires) walks from there without failures, as in one process, when the
// merge walks it from shard 0's record: a reset of node 0 in that walk
// would lose its count and lengthen the walk, so the merged transitions
// count differed from the one process's.
func TestShardsMergeCycleWalksWithoutFailures(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &ticker{} },
		Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[ticker](v, 0).Fired >= 3 }}},
		Failures: sim.Failures{Resets: 1}}
	c := explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, DepthStep: 6, MaxDepth: 6, WalkDepth: 100, MaxViolations: 1, Workers: 1}
	one, err := explore.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if one.Verdict != explore.None || one.Stats.Cycles == 0 {
		t.Fatalf("one process: %v, %d cycles; want no violation, and paths that end on a cycle", one.Verdict, one.Stats.Cycles)
	}
	want := summary(one)
	c.Workers = 2
	spec, err := explore.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(spec); got != want {
		t.Errorf("2 workers report\n%s\none worker\n%s", got, want)
	}
	for _, n := range []int{2, 3} {
		var shards []*explore.ShardRecords
		for i := range n {
			sh, err := explore.Shard(context.Background(), c, i, n)
			if err != nil {
				t.Fatalf("shard %d of %d: %v", i, n, err)
			}
			shards = append(shards, sh)
		}
		m := c
		m.Records = shards
		merged, err := explore.Run(context.Background(), m)
		if err != nil {
			t.Fatalf("merge of %d: %v", n, err)
		}
		if merged.Stats.Transitions != one.Stats.Transitions {
			t.Errorf("%d shards merged: %d transitions, one process %d", n, merged.Stats.Transitions, one.Stats.Transitions)
		}
		if got := summary(merged); got != want {
			t.Errorf("%d shards merged report\n%s\none process\n%s", n, got, want)
		}
	}
}

// TestShardInterruptedIsNotExhausted: a shard whose search is cancelled
// says so; its round's generator, which stops first, made no task, which
// read as a round that no path of reached its bound (StopExhausted).
func TestShardInterruptedIsNotExhausted(t *testing.T) {
	sys, err := sim.Lookup("randtree")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(map[string]string{"fixed": "true"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, WalkDepth: 300, MaxPaths: 800, Workers: 2}
	sh, err := explore.Shard(ctx, c, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Stop != explore.StopInterrupted || len(sh.Rounds) != 1 {
		t.Errorf("a cancelled shard stopped: %s after %d rounds; want stopped: %s after 1", sh.Stop, len(sh.Rounds), explore.StopInterrupted)
	}
}
