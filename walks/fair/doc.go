// Package fair finds liveness violations in an explored state graph (seed
// 002, Desai et al., Iterative Cycle Detection via Delaying Explorers): a
// reachable cycle of hot states (no state live) that is fair (every unit,
// an event source or a node, with an enabled event in one of its states
// runs an event in it, and every node that waits for time in it is told
// that time passed in it too), which a fairly scheduled execution can
// repeat forever without becoming live.
//
// A Graph records states by key (the state's hash), whether each is hot,
// the units enabled in it, and the transitions between them with the
// choices that made each, the node whose handler ran the step and its time
// class (TimeOf the step's choices: whether it asked sim.Context.Elapsed,
// and whether it was told "not yet" at every ask or "elapsed" at one); the
// search executor (search/explore, Config.Graph) fills one from the bounded
// parts of its paths. FairCycle finds a fair cycle of hot states and a
// shortest stem to it, by strongly connected components with the Streett
// refinement: a component that runs every unit enabled in it, and in which
// every node that waits on a transition lets time pass on another, holds a
// fair cycle; otherwise the states that enable a unit it never runs cannot
// be on one, nor can the waiting transitions of a node that never lets time
// pass in it, and the rest is split again. Fairness to time is the lasso
// detector's (walks/lasso), per node: a cycle in which a node asks the
// clock and is told "not yet" at every ask is none a real system repeats if
// the node's deadline is fixed, since time does pass, so the graph offers
// none: the cycles it offers are fair to time as those the detector
// confirms are. A deadline that keeps moving looks the same (Time), so
// FairIgnoringTime counts the components whose fair cycles fairness to time
// set aside, for a caller that would otherwise call their absence a proof. Seed 002 finds accepting cycles with
// nested DFS or maximal accepting predecessors, which know nothing of
// fairness; in the simulator every livelock has unfair neighbours (a retry
// loop while another message waits), so an unfair cycle is no evidence at
// all. The search is linear in the graph per refinement and is run again on
// the grown graph after every round of the search, as seed 002 iterates its
// search with the bound: a cycle in the explored part is a cycle of the
// system, so it is found as soon as the rounds reach it. A search after one
// that found nothing first looks only at the states reachable from what was
// added since (a new fair cycle runs through a new transition or a newly
// reachable state) and answers without a search of the whole graph when
// they hold none: the same answer, at the cost of the part that changed.
//
// Execution turns a lasso of the graph back into an execution of the
// system (the choices of its stem and of its cycle), checking every state
// it passes against the graph.
//
// # Usage
//
//	g := fair.New(0)
//	a, _ := g.AddState(hashA, true, []uint64{srcX, srcY}) // hot, X and Y enabled
//	b, _ := g.AddState(hashB, true, []uint64{srcX})
//	g.AddEdge(a, b, srcX, 0, false, fair.TimeOf(stepChoices), choices)
//	...
//	if l := g.FairCycle(root); l != nil {
//		stem, cycle, err := g.Execution(simAtRoot, l, nil)
//	}
package fair
