package explore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// sumCheck judges an execution by the sum of the counters: a sum of 5 or
// more is a violation, a sum of exactly 4 cannot be decided. Its key is
// the sum, so distinct keys are distinct sums.
type sumCheck struct {
	mu    sync.Mutex
	calls int
}

func (c *sumCheck) Check(s *engine.Sim) explore.Judgement {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	sum := 0
	for i := range s.Nodes() {
		sum += s.Service(sim.NodeID(i)).(*counter).N
	}
	j := explore.Judgement{Key: uint64(sum), Property: "SumBelow5", Detail: sum}
	switch {
	case sum >= 5:
		j.Outcome = explore.CheckViolated
	case sum == 4:
		j.Outcome = explore.CheckUnknown
	}
	return j
}

// TestPathCheck: the path check judges every execution where it ends
// (quiescent within the bound, or at the end of its walk), never a pruned
// path; its violations are committed like any other, in path order, and
// its statistics count the paths and distinct keys whatever the workers.
func TestPathCheck(t *testing.T) {
	cfg := counterConfig(2, 2) // sums 4 to 6 at quiescence (Rand adds 0 or 1 per node)
	var first *explore.Stats
	for _, workers := range []int{1, 2} {
		for _, depth := range []int{3, 10} { // walks after depth 3; quiescent within 10
			c := &sumCheck{}
			res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: dfs.Strategy{}, DepthStep: depth, MaxDepth: depth,
				WalkDepth: 20, Workers: workers, Seed: 1, MaxViolations: 1000, Check: c})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			// With several workers, paths run ahead of the order may be
			// judged and then pruned (speculation): more calls, the same
			// statistics.
			if st.Checked != st.Paths-st.Pruned || int64(c.calls) < st.Checked || workers == 1 && int64(c.calls) != st.Checked {
				t.Errorf("depth %d: %d paths, %d pruned, %d checked, %d calls", depth, st.Paths, st.Pruned, st.Checked, c.calls)
			}
			// Within depth 10 every execution is explored; the walks after
			// depth 3 need not draw every sum.
			if depth == 10 && (st.CheckedDistinct != 3 || st.CheckedViolated != 2 || st.CheckedUnknown != 1) {
				t.Errorf("depth %d: %d distinct sums, %d violating, %d unknown; want 3, 2, 1", depth, st.CheckedDistinct, st.CheckedViolated, st.CheckedUnknown)
			}
			v := res.Violations[0]
			if !v.Checked || v.Verdict != explore.Safety || v.Outcome != walks.Unsafe || v.Property != "SumBelow5" || v.Observed.(int) < 5 {
				t.Errorf("depth %d: violation %+v", depth, v)
			}
			if depth == 10 {
				if first == nil {
					first = &st
				} else if st.Checked != first.Checked || len(res.Violations) != first.Violations {
					t.Errorf("workers %d: %d checked, %d violations; 1 worker: %d, %d", workers, st.Checked, len(res.Violations), first.Checked, first.Violations)
				}
			}
		}
	}
}

// stopAfter is a DFS-like scheduler that ends every path after n steps
// (explore.Watcher): the paths are blocked, neither walked nor checked.
type stopAfter struct {
	n, steps int
}

func (s *stopAfter) Choose(engine.ChoiceKind, int, []float64) int { return 0 }
func (s *stopAfter) Watch(*engine.Sim) bool                       { s.steps++; return s.steps < s.n }

type stopStrategy struct{ sched *stopAfter }

func (stopStrategy) Name() string            { return "stop" }
func (stopStrategy) Doc() string             { return "" }
func (stopStrategy) Params() []sim.ParamSpec { return nil }
func (s stopStrategy) New(explore.Setup) (explore.Explorer, error) {
	return &stopExplorer{sched: s.sched}, nil
}

type stopExplorer struct {
	sched *stopAfter
	ends  []explore.End
}

func (e *stopExplorer) Next(prev *explore.End) (explore.Path, bool) {
	if prev != nil {
		e.ends = append(e.ends, *prev)
		return explore.Path{}, false
	}
	return explore.Path{Round: 1, Depth: 10, Scheduler: e.sched}, true
}
func (e *stopExplorer) Status() explore.Status {
	return explore.Status{Rounds: 1, Depth: 10, Done: explore.StopExhausted}
}

// TestWatcher: a scheduler that watches its steps sees every step of the
// bounded part, and ending the path there blocks it.
func TestWatcher(t *testing.T) {
	sched := &stopAfter{n: 2}
	st := stopStrategy{sched}
	c := &sumCheck{}
	res, err := explore.Run(context.Background(), explore.Config{System: counterConfig(2, 2), Strategy: st, WalkDepth: 20, Workers: 1, Check: c})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Paths != 1 || res.Stats.Blocked != 1 || res.Stats.Walks != 0 || res.Stats.Checked != 0 || c.calls != 0 || sched.steps != 2 {
		t.Fatalf("stats %+v, %d watched steps, %d checks", res.Stats, sched.steps, c.calls)
	}
}
