package fair

import (
	"fmt"
	"slices"
)

// Step is one transition of a lasso in the graph: from state From to
// state To, made by Choices.
type Step struct {
	From, To int32
	Choices  []int32
}

// Lasso is a fair cycle of hot states and a path to it: Stem leads from
// the root to the cycle's first state, Cycle leads from it back to it.
type Lasso struct {
	Stem, Cycle []Step
	// SCC is the number of states of the strongly connected component the
	// cycle runs in (every state of which lies on some such cycle).
	SCC int
}

// FairCycle looks for a cycle of hot states reachable from state root
// that is fair: every unit with an enabled event in one of its states runs
// an event in it (failures never count and never run in it), and it is
// fair to time: every node with a transition in it that waits (TimeWaits)
// has one in it that lets time pass (TimePasses), as the lasso detector
// (walks/lasso) wants of the cycles it confirms. Such a cycle can repeat
// forever in a fairly scheduled execution that never becomes live. It
// returns nil when the graph has none; otherwise the first of FairCycles.
//
// The search is the classic one for strong fairness (Streett emptiness,
// Emerson and Lei): split the hot states into strongly connected
// components (Tarjan); a component in which every unit enabled somewhere
// runs on one of its own transitions, and in which every node that waits
// on one of them lets time pass on another, holds a fair cycle (one
// through all of its transitions); otherwise no fair cycle passes through
// a state that enables a unit the component never runs, nor takes a
// transition of a node that waits there and never lets time pass there,
// so drop those states and transitions and split what is left again.
// Time is one more Streett pair per node, on transitions rather than
// states: the node's transitions that wait enable it, its transitions that
// let time pass fulfil it.
func (g *Graph) FairCycle(root int32) *Lasso {
	if ls := g.FairCycles(root, 1); len(ls) > 0 {
		return ls[0]
	}
	return nil
}

// FairCycles returns up to max lassos into fair cycles of hot states
// reachable from root (see FairCycle), as alternatives for a caller that
// must check them on the system: for each fair component, its shortest
// simple fair cycles first (found by a bounded iterative-deepening search,
// each state at most once: the likeliest to repeat when the graph's keys
// merge states, and the shortest to read), then the cycle that runs all of
// the component's transitions' units, which is fair whenever the component
// is. Every lasso has the shortest stem from root to its cycle.
//
// Performance: a search that found no fair cycle is followed by one that
// first looks only at the part of the graph that changed (incremental): a
// fair cycle the graph did not hold before runs through a transition
// added since or through a state reached since, so when the states that
// lie on a cycle with one of those hold none, neither does the graph, and
// the answer is the same empty one without a search of all of it.
func (g *Graph) FairCycles(root int32, max int) []*Lasso {
	if int(root) >= len(g.keys) || root < 0 || max <= 0 {
		return nil
	}
	if !g.inc.changed(g, root) {
		g.inc.skips++
		return nil
	}
	out := g.fairCycles(root, max)
	g.inc.none = len(out) == 0
	return out
}

// fairCycles is FairCycles' search of the whole graph.
func (g *Graph) fairCycles(root int32, max int) []*Lasso {
	a := g.adjacency()
	t := g.tarjan(a, false)
	defer g.keepGen(t)
	reach, hot := g.reachableHot(a, root)
	var out []*Lasso
	t.refine(hot, func(c []int32) bool {
		for _, cyc := range g.simpleFairCycles(a, reach, c, max-len(out)) {
			out = append(out, g.lassoOf(reach, root, cyc, len(c)))
		}
		if len(out) < max {
			out = append(out, g.lasso(a, reach, root, c))
		}
		return len(out) < max
	})
	return out
}

// reachableHot returns the shortest paths from root over adjacency a and
// the hot states they reach.
func (g *Graph) reachableHot(a *adjacency, root int32) (*paths, []int32) {
	reach := g.bfs(a, root, func(int32) bool { return true }, false)
	var hot []int32
	for v := range g.hot {
		if g.hot[v] && reach.reached(int32(v)) {
			hot = append(hot, int32(v))
		}
	}
	return reach, hot
}

// FairIgnoringTime returns the number of strongly connected components of
// hot states reachable from root that hold a cycle fair to every unit when
// fairness to time is set aside (every transition that waits is kept). On
// a graph in which FairCycles finds no fair cycle, these are the
// components whose cycles all wait forever on a timeout: some node asks
// the clock in them and is told "not yet" at every ask. Such a cycle is
// no execution if that node's deadline is fixed, and a real one if the
// deadline keeps moving (a heartbeat that renews it), which the graph
// cannot tell (Time): a caller that would call the absence of fair cycles
// a proof of liveness asks this first. It leaves the incremental state of
// FairCycles as it was.
func (g *Graph) FairIgnoringTime(root int32) int {
	if int(root) >= len(g.keys) || root < 0 {
		return 0
	}
	a := g.adjacency()
	t := g.tarjan(a, false)
	t.noTime = true
	defer g.keepGen(t)
	_, hot := g.reachableHot(a, root)
	n := 0
	t.refine(hot, func([]int32) bool {
		n++
		return true
	})
	return n
}

// tarjan returns a tarjan over adjacency a with the scratch arrays, which
// it clears unless keep is set (a search of a part of the graph only
// touches, and first resets, the entries of that part: see components).
func (g *Graph) tarjan(a *adjacency, keep bool) *tarjan {
	n := len(g.keys)
	sc := &g.scratch
	if sc.gen > 1<<30 {
		keep = false
	}
	if keep {
		sc.index, sc.low, sc.mark, sc.on = extend(sc.index, n), extend(sc.low, n), extend(sc.mark, n), extend(sc.on, n)
	} else {
		sc.index, sc.low, sc.mark, sc.on = grow(sc.index, n), grow(sc.low, n), grow(sc.mark, n), grow(sc.on, n)
		sc.gen = 0
	}
	// waitAt and passAt hold stamps of gen, as mark does.
	if keep {
		sc.waitAt, sc.passAt = extend(sc.waitAt, g.tnodes), extend(sc.passAt, g.tnodes)
	} else {
		sc.waitAt, sc.passAt = grow(sc.waitAt, g.tnodes), grow(sc.passAt, g.tnodes)
	}
	sc.drop = extend(sc.drop, len(g.edges))
	return &tarjan{g: g, a: a, index: sc.index, low: sc.low, on: sc.on, mark: sc.mark, gen: sc.gen, stack: sc.stack[:0], calls: sc.calls[:0],
		drop: sc.drop, dropped: sc.dropped[:0], waitAt: sc.waitAt, passAt: sc.passAt, waiting: sc.waiting[:0]}
}

// keepGen keeps t's membership stamp and stacks for the next search, and
// puts back the transitions its refinement dropped.
func (g *Graph) keepGen(t *tarjan) {
	for _, e := range t.dropped {
		t.drop[e] = false
	}
	g.scratch.gen, g.scratch.stack, g.scratch.calls, g.scratch.dropped = t.gen, t.stack[:0], t.calls[:0], t.dropped[:0]
	g.scratch.waiting = t.waiting[:0]
}

// refine splits set into strongly connected components and refines them
// (see FairCycle): it calls fair with every component that holds a fair
// cycle, in order, until fair returns false. The transitions that wait of
// a node that waits in a component and never lets time pass there are
// dropped (t.drop) for the rest of the search: the components, and the
// cycles fair builds in them, do without them (a part of the component
// holds none of the node's transitions that let time pass either). With
// t.noTime, time is no pair: nothing is dropped for it.
func (t *tarjan) refine(set []int32, fair func(c []int32) bool) {
	g, a := t.g, t.a
	work := [][]int32{set}
	taken := make([]bool, g.unit.n)
	goOn := true
	for len(work) > 0 && goOn {
		set := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range t.components(set) {
			if !goOn {
				break
			}
			if !t.cyclic(c) {
				continue
			}
			clear(taken)
			t.gen++
			for _, v := range c {
				t.mark[v] = t.gen
			}
			// The nodes that wait in c (t.waiting, stamped in waitAt)
			// and those that let time pass in it (stamped in passAt).
			t.waiting = t.waiting[:0]
			for _, v := range c {
				for _, e := range a.out(v) {
					if ed := &g.edges[e]; !ed.failure && !dropped(t.drop, e, ed) && t.mark[ed.to] == t.gen {
						taken[ed.unit] = true
						switch {
						case ed.time == TimeNone || t.noTime:
						case ed.time == TimePasses:
							t.passAt[ed.node] = t.gen
						case t.waitAt[ed.node] != t.gen:
							t.waitAt[ed.node] = t.gen
							t.waiting = append(t.waiting, ed.node)
						}
					}
				}
			}
			stands := false // some node is unfair to time
			for _, n := range t.waiting {
				stands = stands || t.passAt[n] != t.gen
			}
			var keep []int32
			for _, v := range c {
				ok := true
				for _, u := range g.enabled(v) {
					if !taken[u] {
						ok = false
						break
					}
				}
				if ok {
					keep = append(keep, v)
				}
			}
			if len(keep) == len(c) && !stands {
				goOn = fair(c)
				continue
			}
			if stands {
				t.dropWaits(c)
			}
			if len(keep) > 1 || len(keep) == 1 && t.selfLoop(keep[0]) {
				work = append(work, keep)
			}
		}
	}
}

// dropWaits drops the transitions that wait inside component c (its
// states marked t.gen) of the nodes that let time pass nowhere in it (not
// stamped t.gen in passAt).
func (t *tarjan) dropWaits(c []int32) {
	for _, v := range c {
		for _, e := range t.a.out(v) {
			if ed := &t.g.edges[e]; !ed.failure && ed.time == TimeWaits && !t.drop[e] && t.mark[ed.to] == t.gen && t.passAt[ed.node] != t.gen {
				t.drop[e] = true
				t.dropped = append(t.dropped, e)
			}
		}
	}
}

// dropped reports whether the refinement dropped transition e (ed): only
// transitions that wait are ever dropped. Performance: the mask is read
// only for them, so the searches of a graph that never asks the clock
// cost what they did before time was one of the pairs.
func dropped(drop []bool, e int32, ed *edge) bool { return ed.time == TimeWaits && drop[e] }

// incremental is what the searches for fair cycles know of the graph
// between them: the states reachable from the root (over the transitions
// looked at so far) and whether the last search found no fair cycle.
type incremental struct {
	root    int32
	started bool
	none    bool // the last search found no fair cycle
	edges   int  // the transitions looked at
	reached []bool
	stamp   []int32 // visits of the current look (gen-1 and gen)
	bstamp  []int32 // the same, of the search backwards (gen-1)
	gen     int32
	// Scratch of changed.
	seeds, ends      []int32
	queue, set, fill []int32
	adj              adjacency
	skips            int // searches answered from the part that changed (tests)
}

// changed brings inc up to date with g's new transitions and reports
// whether a search from root may find a fair cycle: unless the last search
// found none, whether the hot states on a path (over transitions between
// hot states that are no failure) from a seed back to a seed's source hold
// a fair cycle. The seeds are the targets of the transitions between hot
// reached states added since (their sources the sources), and the hot
// states reached since (each its own source). Every cycle of hot states
// that runs a new transition or a newly reached state lies among those
// states, and every other cycle of hot reachable states was there when
// the last search found none. Fairness to time changes none of this: a
// cycle's time classes (and their nodes) are those of its transitions, so
// a new fair cycle still runs through a new transition or state, and
// refine (which drops what waits as the whole search does) keeps every
// fair cycle among those states: the answer is no only when the whole
// search's would be.
func (inc *incremental) changed(g *Graph, root int32) bool {
	if !inc.started || inc.root != root {
		*inc = incremental{root: root, started: true, reached: inc.reached[:0], stamp: inc.stamp[:0], bstamp: inc.bstamp[:0],
			adj: inc.adj, skips: inc.skips}
	}
	for len(inc.reached) < len(g.keys) {
		inc.reached = append(inc.reached, false)
	}
	inc.seeds, inc.ends = inc.seeds[:0], inc.ends[:0]
	if !inc.reached[root] {
		inc.reach(g, root)
	}
	first := inc.edges
	for e := first; e < len(g.edges); e++ {
		if ed := &g.edges[e]; inc.reached[ed.from] && !inc.reached[ed.to] {
			inc.reach(g, ed.to)
		}
	}
	inc.edges = len(g.edges)
	if !inc.none {
		return true
	}
	for e := first; e < len(g.edges); e++ {
		if ed := &g.edges[e]; !ed.failure && inc.reached[ed.from] && g.hot[ed.from] && g.hot[ed.to] {
			inc.seeds, inc.ends = append(inc.seeds, ed.to), append(inc.ends, ed.from)
		}
	}
	if len(inc.seeds) == 0 {
		return false
	}
	n := len(g.keys)
	inc.stamp, inc.bstamp = extend(inc.stamp, n), extend(inc.bstamp, n)
	if inc.gen += 2; inc.gen > 1<<30 {
		clear(inc.stamp)
		clear(inc.bstamp)
		inc.gen = 2
	}
	// The states on a path (over transitions between hot states that are
	// no failure) from a seed to a seed's source: those reachable from a
	// seed (fwd, stamped gen-1 in stamp) that reach a source (bwd, stamped
	// gen-1 in bstamp); stamped gen in stamp. Performance: the two
	// searches take a state each in turn, and the one that ends first
	// bounds the other (every state on such a path is in both): the
	// states a few new transitions lead to can be most of the graph, those
	// that lead to them few, or the other way round.
	seen := inc.gen - 1
	fwd, bwd := inc.set[:0], inc.fill[:0]
	for _, v := range inc.seeds {
		if inc.stamp[v] != seen {
			inc.stamp[v] = seen
			fwd = append(fwd, v)
		}
	}
	for _, u := range inc.ends {
		if inc.bstamp[u] != seen {
			inc.bstamp[u] = seen
			bwd = append(bwd, u)
		}
	}
	i, j := 0, 0
	for ; i < len(fwd) && j < len(bwd); i, j = i+1, j+1 {
		for e := g.head[fwd[i]]; e >= 0; e = g.next[e] {
			if ed := &g.edges[e]; !ed.failure && g.hot[ed.to] && inc.stamp[ed.to] != seen {
				inc.stamp[ed.to] = seen
				fwd = append(fwd, ed.to)
			}
		}
		for e := g.rhead[bwd[j]]; e >= 0; e = g.rnext[e] {
			if ed := &g.edges[e]; !ed.failure && g.hot[ed.from] && inc.bstamp[ed.from] != seen {
				inc.bstamp[ed.from] = seen
				bwd = append(bwd, ed.from)
			}
		}
	}
	inc.set, inc.fill = fwd, bwd
	on := inc.queue[:0]
	if i == len(fwd) {
		// fwd is whole: the states in it that reach a source in it.
		for _, u := range inc.ends {
			if inc.stamp[u] == seen {
				inc.stamp[u] = inc.gen
				on = append(on, u)
			}
		}
		for k := 0; k < len(on); k++ {
			for e := g.rhead[on[k]]; e >= 0; e = g.rnext[e] {
				if ed := &g.edges[e]; !ed.failure && inc.stamp[ed.from] == seen {
					inc.stamp[ed.from] = inc.gen
					on = append(on, ed.from)
				}
			}
		}
	} else {
		// bwd is whole: the states in it that a seed in it reaches.
		for _, v := range inc.seeds {
			if inc.bstamp[v] == seen && inc.stamp[v] != inc.gen {
				inc.stamp[v] = inc.gen
				on = append(on, v)
			}
		}
		for k := 0; k < len(on); k++ {
			for e := g.head[on[k]]; e >= 0; e = g.next[e] {
				if ed := &g.edges[e]; !ed.failure && inc.bstamp[ed.to] == seen && inc.stamp[ed.to] != inc.gen {
					inc.stamp[ed.to] = inc.gen
					on = append(on, ed.to)
				}
			}
		}
	}
	inc.queue = on
	if len(on) == 0 {
		return false
	}
	// Their transitions, for the search of their components.
	a := &inc.adj
	a.start, a.end = extend(a.start, n), extend(a.end, n)
	a.idx = a.idx[:0]
	for _, v := range on {
		a.start[v] = int32(len(a.idx))
		for e := g.head[v]; e >= 0; e = g.next[e] {
			a.idx = append(a.idx, e)
		}
		a.end[v] = int32(len(a.idx))
	}
	t := g.tarjan(a, true)
	defer g.keepGen(t)
	found := false
	t.refine(on, func([]int32) bool {
		found = true
		return false
	})
	return found
}

// reach marks the states reachable from v (over every transition) as
// reached, and the hot ones among them as seeds, each its own source.
func (inc *incremental) reach(g *Graph, v int32) {
	inc.reached[v] = true
	q := append(inc.queue[:0], v)
	for i := 0; i < len(q); i++ {
		w := q[i]
		if g.hot[w] {
			inc.seeds, inc.ends = append(inc.seeds, w), append(inc.ends, w)
		}
		for e := g.head[w]; e >= 0; e = g.next[e] {
			if to := g.edges[e].to; !inc.reached[to] {
				inc.reached[to] = true
				q = append(q, to)
			}
		}
	}
	inc.queue = q[:0]
}

// simpleCycleBudget bounds the transitions the search for simple fair
// cycles looks at per component.
const simpleCycleBudget = 200_000

// simpleFairCycles returns up to max fair cycles of component c that pass
// through no state twice, shortest first, each as its transitions from its
// first state: an iterative-deepening search from each state of c in order
// of distance from the root, within a budget of transitions looked at,
// over the transitions the refinement kept (not dropped).
func (g *Graph) simpleFairCycles(a *adjacency, reach *paths, c []int32, max int) [][]int32 {
	n := len(g.keys)
	in := make([]bool, n)
	for _, v := range c {
		in[v] = true
	}
	starts := slices.Clone(c)
	slices.SortFunc(starts, func(x, y int32) int {
		if d := reach.dist[x] - reach.dist[y]; d != 0 {
			return int(d)
		}
		return int(x - y)
	})
	budget := simpleCycleBudget
	on := make([]bool, n)
	ran := make([]int32, g.unit.n)    // per unit: transitions of the path that run it
	passes := make([]int32, g.tnodes) // per node: transitions of the path that let time pass
	waits := 0                        // transitions of the path that wait
	var path []int32                  // edges
	drop := g.scratch.drop
	var out [][]int32
	seen := map[string]bool{}
	var dfs func(start, v int32, limit int) bool
	// count adds d to the path's counts of transition ed.
	count := func(ed *edge, d int32) {
		ran[ed.unit] += d
		switch ed.time {
		case TimeWaits:
			waits += int(d)
		case TimePasses:
			passes[ed.node] += d
		}
	}
	fair := func() bool {
		for _, e := range path {
			if ed := &g.edges[e]; waits > 0 && ed.time == TimeWaits && passes[ed.node] == 0 {
				return false // ed's node waits and never lets time pass
			}
			for _, u := range g.enabled(g.edges[e].from) {
				if ran[u] == 0 {
					return false
				}
			}
		}
		return true
	}
	dfs = func(start, v int32, limit int) bool {
		for _, e := range a.out(v) {
			if budget--; budget < 0 {
				return false
			}
			ed := &g.edges[e]
			if ed.failure || dropped(drop, e, ed) || !in[ed.to] {
				continue
			}
			if ed.to == start {
				if len(path)+1 != limit {
					continue
				}
				path = append(path, e)
				count(ed, 1)
				if fair() {
					k := fmt.Sprint(canonicalRotation(path))
					if !seen[k] {
						seen[k] = true
						out = append(out, slices.Clone(path))
					}
				}
				count(ed, -1)
				path = path[:len(path)-1]
				if len(out) >= max {
					return false
				}
				continue
			}
			if on[ed.to] || len(path)+1 >= limit {
				continue
			}
			on[ed.to] = true
			path = append(path, e)
			count(ed, 1)
			ok := dfs(start, ed.to, limit)
			count(ed, -1)
			path = path[:len(path)-1]
			on[ed.to] = false
			if !ok {
				return false
			}
		}
		return true
	}
	for limit := 1; limit <= len(c) && len(out) < max && budget > 0; limit++ {
		for _, s := range starts {
			on[s] = true
			ok := dfs(s, s, limit)
			on[s] = false
			if !ok || len(out) >= max {
				break
			}
		}
	}
	return out
}

// canonicalRotation returns the rotation of a cycle's edges that starts at
// its smallest edge, so that one cycle found from two of its states is
// recognised.
func canonicalRotation(cyc []int32) []int32 {
	m := 0
	for i := range cyc {
		if cyc[i] < cyc[m] {
			m = i
		}
	}
	return slices.Concat(cyc[m:], cyc[:m])
}

// lassoOf builds the lasso of a cycle given as edges: the shortest stem
// from root to its first state, then the cycle.
func (g *Graph) lassoOf(reach *paths, root int32, cyc []int32, scc int) *Lasso {
	start := g.edges[cyc[0]].from
	l := &Lasso{SCC: scc}
	for _, s := range g.path(reach, root, start) {
		l.Stem = append(l.Stem, s.Step)
	}
	for _, e := range cyc {
		ed := &g.edges[e]
		l.Cycle = append(l.Cycle, Step{From: ed.from, To: ed.to, Choices: g.choices(ed)})
	}
	return l
}

// scratch holds FairCycles' arrays between calls: a search runs again and
// again as the graph grows, and allocating them anew each time would keep
// the collector busy.
type scratch struct {
	adj                    adjacency
	fill, index, low, mark []int32
	on                     []bool
	gen                    int32 // the last membership stamp in mark
	stack                  []int32
	calls                  []frame
	// drop marks the transitions a search's refinement dropped (refine),
	// dropped lists them: each search starts with none, and puts back
	// those it dropped when it ends (keepGen), at the cost of what it
	// dropped rather than of the whole graph.
	drop    []bool
	dropped []int32
	// waitAt and passAt stamp, per node, the component (its gen) in which
	// it waits and lets time pass; waiting lists the nodes that wait in
	// one (refine).
	waitAt, passAt []int32
	waiting        []uint16
}

// grow returns s with length n and every element zero, reusing its memory
// when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// extend returns s with length at least n, its elements kept (new ones
// zero).
func extend[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	if cap(s) >= n {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// adjacency is the graph's transitions by source state (of some states,
// when it indexes a part of the graph).
type adjacency struct {
	start, end []int32 // per state: a range of idx
	idx        []int32 // edge indices
}

func (a *adjacency) out(v int32) []int32 { return a.idx[a.start[v]:a.end[v]] }

func (g *Graph) adjacency() *adjacency {
	n := len(g.keys)
	a := &g.scratch.adj
	a.start = grow(a.start, n+1)
	a.idx = grow(a.idx, len(g.edges))
	for i := range g.edges {
		a.start[g.edges[i].from+1]++
	}
	for v := 0; v < n; v++ {
		a.start[v+1] += a.start[v]
	}
	a.end = a.start[1:]
	g.scratch.fill = grow(g.scratch.fill, n)
	fill := g.scratch.fill
	copy(fill, a.start[:n])
	for i := range g.edges {
		f := g.edges[i].from
		a.idx[fill[f]] = int32(i)
		fill[f]++
	}
	return a
}

// tarjan splits vertex sets into strongly connected components along
// non-failure transitions that the refinement did not drop, iteratively
// (no recursion: the graphs are large).
type tarjan struct {
	g       *Graph
	a       *adjacency
	index   []int32 // 0: unvisited in this pass; else 1 + visit order
	low     []int32
	on      []bool
	mark    []int32 // membership stamps
	gen     int32
	stack   []int32
	calls   []frame
	drop    []bool  // per transition: dropped by the refinement
	dropped []int32 // the transitions dropped
	// waitAt, passAt and waiting: see scratch.
	waitAt, passAt []int32
	waiting        []uint16
	// noTime sets fairness to time aside (FairIgnoringTime).
	noTime bool
}

type frame struct {
	v int32
	i int32 // next out-edge
}

// components returns the strongly connected components of the subgraph
// set induces.
func (t *tarjan) components(set []int32) [][]int32 {
	t.gen++
	in := t.gen
	for _, v := range set {
		t.mark[v] = in
		t.index[v] = 0
	}
	var out [][]int32
	next := int32(1)
	for _, s := range set {
		if t.index[s] != 0 {
			continue
		}
		t.push(s, &next)
		for len(t.calls) > 0 {
			f := &t.calls[len(t.calls)-1]
			v := f.v
			es := t.a.out(v)
			if int(f.i) < len(es) {
				e := es[f.i]
				ed := &t.g.edges[e]
				f.i++
				w := ed.to
				if ed.failure || dropped(t.drop, e, ed) || t.mark[w] != in {
					continue
				}
				if t.index[w] == 0 {
					t.push(w, &next)
				} else if t.on[w] {
					t.low[v] = min(t.low[v], t.index[w])
				}
				continue
			}
			t.calls = t.calls[:len(t.calls)-1]
			if len(t.calls) > 0 {
				p := t.calls[len(t.calls)-1].v
				t.low[p] = min(t.low[p], t.low[v])
			}
			if t.low[v] == t.index[v] {
				var c []int32
				for {
					w := t.stack[len(t.stack)-1]
					t.stack = t.stack[:len(t.stack)-1]
					t.on[w] = false
					c = append(c, w)
					if w == v {
						break
					}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

func (t *tarjan) push(v int32, next *int32) {
	t.index[v], t.low[v] = *next, *next
	*next++
	t.on[v] = true
	t.stack = append(t.stack, v)
	t.calls = append(t.calls, frame{v: v})
}

// cyclic reports whether component c holds a cycle: more than one state,
// or one with a transition to itself (that the refinement kept).
func (t *tarjan) cyclic(c []int32) bool {
	return len(c) > 1 || t.selfLoop(c[0])
}

func (t *tarjan) selfLoop(v int32) bool {
	for _, e := range t.a.out(v) {
		if ed := &t.g.edges[e]; !ed.failure && !dropped(t.drop, e, ed) && ed.to == v {
			return true
		}
	}
	return false
}

// lasso builds a lasso into the fair component c: the shortest stem from
// root to c's state nearest to it (reach holds the shortest paths from
// root; the stem may take any transition), and a cycle from there that
// runs every unit enabled in c and, for every node with a kept transition
// in c that waits, one of the node's transitions that let time pass (one
// transition of each, joined by shortest paths inside c over the
// transitions the refinement kept) and returns. Every node that waits on a
// kept transition of c lets time pass on another (refine), and the cycle
// lets time pass for each of them, so it is fair to time whichever of
// their waiting transitions it takes.
func (g *Graph) lasso(a *adjacency, reach *paths, root int32, c []int32) *Lasso {
	n := len(g.keys)
	in := make([]bool, n)
	for _, v := range c {
		in[v] = true
	}
	par := reach
	start := int32(-1)
	if in[root] {
		start = root
	} else {
		for _, v := range c {
			if par.reached(v) && (start < 0 || par.dist[v] < par.dist[start] || par.dist[v] == par.dist[start] && v < start) {
				start = v
			}
		}
	}
	l := &Lasso{SCC: len(c)}
	for _, s := range g.path(par, root, start) {
		l.Stem = append(l.Stem, s.Step)
	}
	// One transition of each unit enabled in c, in order of first need.
	need := map[int32]bool{}
	var units []int32
	for _, v := range c {
		for _, u := range g.enabled(v) {
			if !need[u] {
				need[u] = true
				units = append(units, u)
			}
		}
	}
	drop := g.scratch.drop
	// inside reports whether transition e runs inside c and was kept.
	inside := func(e int32) bool {
		ed := &g.edges[e]
		return !ed.failure && !dropped(drop, e, ed) && in[ed.to]
	}
	// The nodes that wait on a kept transition inside c, in order of
	// first need, and those the cycle let time pass for.
	waits := map[uint16]bool{}
	var waiting []uint16
	for _, v := range c {
		for _, e := range a.out(v) {
			if ed := &g.edges[e]; inside(e) && ed.time == TimeWaits && !waits[ed.node] {
				waits[ed.node] = true
				waiting = append(waiting, ed.node)
			}
		}
	}
	passed := map[uint16]bool{}
	inC := func(v int32) bool { return in[v] }
	cur := start
	take := func(e int32) {
		ed := &g.edges[e]
		l.Cycle = append(l.Cycle, Step{From: ed.from, To: ed.to, Choices: g.choices(ed)})
		need[ed.unit] = false
		if ed.time == TimePasses {
			passed[ed.node] = true
		}
		cur = ed.to
	}
	// takeNearest takes the nearest transition inside c, from cur, that
	// want accepts, and the path to it.
	takeNearest := func(want func(ed *edge) bool) {
		p := g.bfs(a, cur, inC, true)
		best, bestD := int32(-1), int32(0)
		for _, v := range c {
			if !p.reached(v) {
				continue
			}
			for _, e := range a.out(v) {
				if inside(e) && want(&g.edges[e]) && (best < 0 || p.dist[v] < bestD) {
					best, bestD = e, p.dist[v]
				}
			}
		}
		for _, s := range g.path(p, cur, g.edges[best].from) {
			take(s.edge)
		}
		take(best)
	}
	for _, u := range units {
		if !need[u] {
			continue // run on the way to an earlier one
		}
		takeNearest(func(ed *edge) bool { return ed.unit == u })
	}
	for _, n := range waiting {
		if !passed[n] {
			takeNearest(func(ed *edge) bool { return ed.time == TimePasses && ed.node == n })
		}
	}
	if len(l.Cycle) == 0 || cur != start {
		if len(l.Cycle) == 0 {
			// Units enabled nowhere in c: any transition inside it.
			for _, e := range a.out(start) {
				if inside(e) {
					take(e)
					break
				}
			}
		}
		p := g.bfs(a, cur, inC, true)
		for _, s := range g.path(p, cur, start) {
			take(s.edge)
		}
	}
	return l
}

// paths holds a breadth-first search's tree.
type paths struct {
	dist []int32 // -1: not reached
	via  []int32 // the edge into each state
}

func (p *paths) reached(v int32) bool { return p.dist[v] >= 0 }

// bfs searches from s over the transitions between states that keep
// accepts: every one, or with inside only those that are no failure and
// that the refinement kept (a component's).
func (g *Graph) bfs(a *adjacency, s int32, keep func(int32) bool, inside bool) *paths {
	n := len(g.keys)
	p := &paths{dist: make([]int32, n), via: make([]int32, n)}
	for i := range p.dist {
		p.dist[i] = -1
	}
	p.dist[s] = 0
	queue := []int32{s}
	drop := g.scratch.drop
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range a.out(v) {
			ed := &g.edges[e]
			if (inside && (ed.failure || dropped(drop, e, ed))) || p.dist[ed.to] >= 0 || !keep(ed.to) {
				continue
			}
			p.dist[ed.to] = p.dist[v] + 1
			p.via[ed.to] = e
			queue = append(queue, ed.to)
		}
	}
	return p
}

type pathStep struct {
	Step
	edge int32
}

// path returns the transitions of p's tree from its source to t.
func (g *Graph) path(p *paths, from, t int32) []pathStep {
	var rev []pathStep
	for v := t; v != from; {
		e := p.via[v]
		ed := &g.edges[e]
		rev = append(rev, pathStep{Step: Step{From: ed.from, To: ed.to, Choices: g.choices(ed)}, edge: e})
		v = ed.from
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
