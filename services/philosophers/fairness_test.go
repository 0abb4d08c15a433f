package philosophers

import (
	"context"
	"testing"

	"github.com/macemc/macemc/search/dfs"
	xp "github.com/macemc/macemc/search/explore"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// graph is a system's whole reachable state space, states named by Hash.
type graph struct {
	hot     map[uint64]bool
	enabled map[uint64][]servicetest.Key
	edges   map[uint64][]edge
}

type edge struct {
	ev servicetest.Key
	to uint64
}

// explore builds the reachable state graph breadth first; it fails the
// test beyond max states. Philosophers make no choices besides the event,
// so Ready and StepEvent cover every transition.
func explore(t *testing.T, cfg *sim.Config, max int) *graph {
	g := &graph{hot: map[uint64]bool{}, enabled: map[uint64][]servicetest.Key{}, edges: map[uint64][]edge{}}
	s0 := servicetest.New(t, cfg, 0)
	queue := []*engine.Sim{s0}
	g.hot[s0.Hash()] = !servicetest.Live(t, s0)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		h := s.Hash()
		if !servicetest.Safe(t, s) {
			t.Fatalf("safety violated in a reachable state")
		}
		ready := s.Ready()
		for i := range ready {
			g.enabled[h] = append(g.enabled[h], servicetest.KeyOf(ready[i]))
		}
		for i := range g.enabled[h] {
			c := s.Clone(engine.NewRandom(0))
			if err := c.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			ch := c.Hash()
			g.edges[h] = append(g.edges[h], edge{g.enabled[h][i], ch})
			if _, seen := g.hot[ch]; !seen {
				g.hot[ch] = !servicetest.Live(t, c)
				if len(g.hot) > max {
					t.Fatalf("more than %d states", max)
				}
				queue = append(queue, c)
			}
		}
	}
	return g
}

// sccs returns the strongly connected components of g restricted to the
// states in set (Tarjan).
func (g *graph) sccs(set map[uint64]bool) [][]uint64 {
	index, low := map[uint64]int{}, map[uint64]int{}
	onStack := map[uint64]bool{}
	var stack []uint64
	var out [][]uint64
	next := 0
	var visit func(v uint64)
	visit = func(v uint64) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range g.edges[v] {
			if !set[e.to] {
				continue
			}
			if _, ok := index[e.to]; !ok {
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			var c []uint64
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			out = append(out, c)
		}
	}
	for v := range set {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	return out
}

// fairHotCycle reports whether some cycle of hot states is strongly fair:
// every event enabled in one of its states is executed in it (the
// liveness violation of seed 000 §II). Streett emptiness: in an SCC, an
// event enabled somewhere but never taken inside rules out the states that
// enable it; drop them and look again.
func (g *graph) fairHotCycle(set map[uint64]bool) (bool, int) {
	for _, c := range g.sccs(set) {
		in := map[uint64]bool{}
		for _, v := range c {
			in[v] = true
		}
		taken := map[servicetest.Key]bool{}
		internal := false
		for _, v := range c {
			for _, e := range g.edges[v] {
				if in[e.to] {
					taken[e.ev], internal = true, true
				}
			}
		}
		if !internal {
			continue
		}
		sub := map[uint64]bool{}
		for _, v := range c {
			ok := true
			for _, k := range g.enabled[v] {
				if !taken[k] {
					ok = false
					break
				}
			}
			if ok {
				sub[v] = true
			}
		}
		if len(sub) == len(c) {
			return true, len(c)
		}
		if found, size := g.fairHotCycle(sub); found {
			return true, size
		}
	}
	return false, 0
}

// TestFairHotCycles explores the whole state space for n = 2 and 3: the
// buggy variant has a fair cycle of hot states (the livelock), the fixed
// one has none, and neither has a dead state (every state reaches a live
// one).
func TestFairHotCycles(t *testing.T) {
	for n := 2; n <= 3; n++ {
		for _, fixed := range []bool{false, true} {
			g := explore(t, config(t, n, fixed), 200000)
			hot := map[uint64]bool{}
			for h, isHot := range g.hot {
				if isHot {
					hot[h] = true
				}
			}
			found, size := g.fairHotCycle(hot)
			t.Logf("n=%d fixed=%v: %d states, %d hot; fair hot cycle: %v (SCC of %d states)", n, fixed, len(g.hot), len(hot), found, size)
			if found == fixed {
				t.Errorf("n=%d fixed=%v: fair hot cycle found = %v", n, fixed, found)
			}
			// No dead state: walk the graph backwards from the live states.
			rev := map[uint64][]uint64{}
			for v, es := range g.edges {
				for _, e := range es {
					rev[e.to] = append(rev[e.to], v)
				}
			}
			reach := map[uint64]bool{}
			var todo []uint64
			for h, isHot := range g.hot {
				if !isHot {
					reach[h] = true
					todo = append(todo, h)
				}
			}
			for len(todo) > 0 {
				v := todo[len(todo)-1]
				todo = todo[:len(todo)-1]
				for _, u := range rev[v] {
					if !reach[u] {
						reach[u] = true
						todo = append(todo, u)
					}
				}
			}
			if len(reach) != len(g.hot) {
				t.Errorf("n=%d fixed=%v: %d states cannot reach a live state", n, fixed, len(g.hot)-len(reach))
			}
		}
	}
}

// TestExploredGraph: the default search (bounded DFS, the explored state
// graph on) reports the livelock of the buggy variant as a lasso of the
// graph, and exhausts the fixed variant's state space without one, as the
// brute-force decision above says, for n = 2 and 3; the exhausted graph
// holds every reachable state.
func TestExploredGraph(t *testing.T) {
	for n := 2; n <= 3; n++ {
		for _, fixed := range []bool{false, true} {
			res, err := xp.Run(context.Background(), xp.Config{System: config(t, n, fixed), Strategy: dfs.Strategy{},
				WalkDepth: 400, Graph: &xp.GraphConfig{}})
			if err != nil {
				t.Fatal(err)
			}
			found := len(res.Violations) > 0 && res.Violations[0].Graph != nil
			t.Logf("n=%d fixed=%v: %d rounds, stop %s, graph %+v, lasso %v", n, fixed, res.Stats.Rounds, res.Stats.Stop, *res.Stats.Graph, found)
			if found == fixed || fixed && res.Stats.Stop != xp.StopExhausted {
				t.Errorf("n=%d fixed=%v: lasso %v, stop %s", n, fixed, found, res.Stats.Stop)
			}
			if all := len(explore(t, config(t, n, fixed), 200000).hot); fixed && res.Stats.Graph.States != all {
				t.Errorf("n=%d fixed: the exhausted graph has %d states, the state space %d", n, res.Stats.Graph.States, all)
			}
		}
	}
}

// TestUnfairCyclesInFixed measures why the explored graph's cycle search
// checks fairness, where seed 002's NDFS and MAP look for any cycle
// through accepting (here: hot) states: the fixed variant, which has no
// liveness bug, has hot cycles, every one of them unfair (a philosopher's
// retry loop while his neighbour's Release waits). An accepting-cycle
// search would report a false lasso on it.
func TestUnfairCyclesInFixed(t *testing.T) {
	g := explore(t, config(t, 3, true), 200000)
	hot := map[uint64]bool{}
	for h, isHot := range g.hot {
		if isHot {
			hot[h] = true
		}
	}
	cyclic := 0
	for _, c := range g.sccs(hot) {
		if len(c) > 1 {
			cyclic++
		}
	}
	if found, _ := g.fairHotCycle(hot); cyclic == 0 || found {
		t.Fatalf("fixed, n=3: %d hot strongly connected components with cycles, fair cycle %v; want some, none fair", cyclic, found)
	}
	t.Logf("fixed, n=3: %d hot components with cycles, none fair", cyclic)
}
