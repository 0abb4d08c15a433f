package fair_test

import (
	"fmt"

	"github.com/macemc/macemc/walks/fair"
)

// Two hot states that hand a token back and forth by source 1 while
// source 2 waits in state a: unfair until source 2 also runs inside the
// cycle.
func ExampleGraph_FairCycle() {
	g := fair.New(0)
	root, _ := g.AddState(100, false, []uint64{1})
	a, _ := g.AddState(101, true, []uint64{1, 2})
	b, _ := g.AddState(102, true, []uint64{1})
	g.AddEdge(root, a, 1, 0, false, fair.TimeNone, []int32{0})
	g.AddEdge(a, b, 1, 0, false, fair.TimeNone, []int32{0})
	g.AddEdge(b, a, 1, 0, false, fair.TimeNone, []int32{0})
	fmt.Println("fair cycle:", g.FairCycle(root) != nil)

	g.AddEdge(a, a, 2, 0, false, fair.TimeNone, []int32{1}) // source 2 runs, and stays in a
	l := g.FairCycle(root)
	fmt.Printf("fair cycle: %v, stem %d steps, cycle %d steps in a component of %d states\n", l != nil, len(l.Stem), len(l.Cycle), l.SCC)
	// Output:
	// fair cycle: false
	// fair cycle: true, stem 1 steps, cycle 3 steps in a component of 2 states
}

// A lease timer in a hot state: it fires, asks the clock (Elapsed), is
// told "not yet" and is set again. Repeated forever, time never passes:
// the cycle is unfair to time, as the lasso detector has it. A transition
// where the clock says "elapsed" and the state stays hot makes a fair
// cycle, which takes it.
func ExampleGraph_FairCycle_time() {
	g := fair.New(0)
	a, _ := g.AddState(100, true, []uint64{1})
	g.AddEdge(a, a, 1, 0, false, fair.TimeWaits, []int32{0, 0}) // the timer's event, then the clock's "not yet"
	fmt.Println("fair cycle:", g.FairCycle(a) != nil)

	g.AddEdge(a, a, 1, 0, false, fair.TimePasses, []int32{0, 1}) // "elapsed", and still hot
	l := g.FairCycle(a)
	fmt.Println("fair cycle:", l != nil, "choices", l.Cycle[0].Choices)
	// Output:
	// fair cycle: false
	// fair cycle: true choices [0 1]
}
