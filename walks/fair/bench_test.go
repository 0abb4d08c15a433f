package fair

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// benchGraph is a random graph of n states and 4n transitions, the size of
// a search's graph after a few seconds, shaped like one: the states fall
// in blocks of 32, three transitions in four stay in their block (its
// cycles) and the others lead to a later block. Every state is hot but
// one in 16, and enables two of 8 units. With starve, unit 8 is enabled
// in every state and never runs, so the graph holds no fair cycle (the
// search of an exhausted, correct system); without it, some blocks hold
// one. Every transition has a time class (time: 1 waits, 2 passes, 0 and 3
// none), for the benchmarks that give it.
type benchEdge struct {
	from, to int32
	unit     uint64
	time     int
}

func benchGraph(n int, starve bool) (hot []bool, enabled [][]uint64, edges []benchEdge) {
	r := rand.New(rand.NewPCG(5, 6))
	hot, enabled = make([]bool, n), make([][]uint64, n)
	for v := range n {
		hot[v] = v%16 != 0
		enabled[v] = []uint64{uint64(r.IntN(8)), uint64(r.IntN(8))}
		if starve {
			enabled[v] = append(enabled[v], 8)
		}
	}
	for range 4 * n {
		from := r.IntN(n)
		to := from/32*32 + r.IntN(32)
		if r.IntN(4) == 0 {
			to = from/32*32 + 32 + r.IntN(1024)
		}
		if to >= n {
			continue
		}
		edges = append(edges, benchEdge{from: int32(from), to: int32(to), unit: enabled[from][r.IntN(2)], time: r.IntN(4)})
	}
	return hot, enabled, edges
}

func buildBench(hot []bool, enabled [][]uint64, edges []benchEdge, timed bool) *Graph {
	g := New(0)
	for v := range hot {
		if _, err := g.AddState(uint64(1000+v), hot[v], enabled[v]); err != nil {
			panic(err)
		}
	}
	ch := []int32{0, 1}
	for _, e := range edges {
		addBenchEdge(g, e, timed, ch)
	}
	return g
}

// addBenchEdge adds e, with its time class when timed (a quarter of the
// transitions wait, a quarter let time pass).
func addBenchEdge(g *Graph, e benchEdge, timed bool, ch []int32) {
	t := TimeNone
	if timed {
		t = [...]Time{TimeNone, TimeWaits, TimePasses, TimeNone}[e.time]
	}
	g.AddEdge(e.from, e.to, e.unit, 0, false, t, ch)
}

// BenchmarkAddEdge measures recording the transitions of a graph of 65,536
// states (262,144 transitions).
func BenchmarkAddEdge(b *testing.B) {
	hot, enabled, edges := benchGraph(1<<16, true)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buildBench(hot, enabled, edges, true)
	}
}

// BenchmarkFairCycles measures a search of the whole graph (FairCycles
// without its incremental pre-check) of 65,536 states: none, a graph that
// holds no fair cycle; found, one that does; timed, transitions with time
// classes.
func BenchmarkFairCycles(b *testing.B) {
	for _, c := range []struct {
		name          string
		starve, timed bool
	}{{"none", true, false}, {"found", false, false}, {"none-timed", true, true}, {"found-timed", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			hot, enabled, edges := benchGraph(1<<16, c.starve)
			g := buildBench(hot, enabled, edges, c.timed)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				g.fairCycles(1, 8)
			}
		})
	}
}

// BenchmarkFairCyclesGrowing measures the searches of a graph of 65,536
// states that holds no fair cycle, as a search runs them: one after every
// 1,024 transitions added, block by block (the incremental pre-check
// answers them).
func BenchmarkFairCyclesGrowing(b *testing.B) {
	hot, enabled, edges := benchGraph(1<<16, true)
	slices.SortStableFunc(edges, func(x, y benchEdge) int { return int(x.from/32 - y.from/32) })
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		g := buildBench(hot, enabled, nil, false)
		b.StartTimer()
		for i, e := range edges {
			addBenchEdge(g, e, true, []int32{0})
			if i%1024 == 1023 {
				g.FairCycles(1, 8)
			}
		}
	}
}
