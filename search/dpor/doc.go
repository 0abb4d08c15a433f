// Package dpor is the bounded search with dynamic partial-order reduction
// (seed 004's DPOR scheduler): source-set DPOR with sleep sets (Abdulla,
// Aronis, Jonsson and Sagonas, POPL 2014, Algorithm 1; Flanagan and
// Godefroid, POPL 2005, for the persistent-set original) over the events
// of the simulator. Two executions that differ only in the order of
// independent events reach the same state; DPOR runs one of them, and
// adds an alternative at a state only when the execution it just ran shows
// two dependent events whose order could be reversed (a race).
//
// # Usage
//
// It registers itself as "dpor":
//
//	macemc search --system register --param variant=buggy --strategy dpor
//	macemc search --system kvmap --strategy dpor --dpor-sleep=false
//
// and from Go, through package search:
//
//	rep, err := search.Run(ctx, sys, search.Options{Strategy: "dpor",
//		StrategyParams: map[string]string{"sleep": "false"}})
//
// Its rounds deepen like dfs's (DepthStep, MaxDepth); each round is a new
// DPOR exploration to its bound, and the search ends when a round's paths
// all end before the bound (exhausted).
//
// # Independence
//
// Events are the simulator's ready events with their labels
// (engine.Event): two events are dependent when
//
//   - they happen at the same node (deliveries of messages and datagrams,
//     timers, driver requests, connection errors, resets; a connection
//     break happens at both its ends, and a datagram's drop and
//     duplication at its receiver), since a node's handlers see each
//     other's effects;
//   - one is a datagram's duplication and the other happens at the
//     datagram's sender: the copy joins the datagrams in flight as if
//     sent at the duplication (sim.Failures.Duplicates), so whether it is
//     made before or after the sender's next datagram on the path decides
//     which arrives first;
//   - they are failures of the same kind (they draw on one budget);
//   - one is a partition or its healing: it decides the fate of whatever
//     crosses the split, sent at any node;
//   - one is a crash and the other anything but a datagram's drop or
//     duplication: what the crash loses and which peers learn of a broken
//     connection depend on what every other node sent to the crashed node
//     or received from it before (any handler, a reset's Start), and on
//     the connection errors breaks queued and resets cleared at its peers;
//     which handler sends where is not known to the reduction;
//   - both used state every node shares (engine.Sim.Shared):
//     Context.Monotone's counter, or the monitors (Context.Notify: a
//     monitor sees notifications in the order they come);
//   - one is a driver request held back by a condition (sim.Request.When,
//     engine.Sim.Global): the condition may read any node, so any event
//     may enable or disable the request;
//   - one recorded a response and the other an invocation in the clients'
//     history, which is part of the state: the history's canonical form
//     (see package sim/engine) orders exactly those pairs, so two
//     invocations, or two responses, at different nodes still commute.
//
// Everything else commutes: deliveries to different nodes, timers and
// driver requests at different nodes, and a reset, a connection break or a
// datagram's drop with what happens at the nodes they do not touch (a
// reset keeps what is in flight to and from its node; a drop removes one
// datagram, wherever the others on its path are). An event's identity across
// executions is its source (a connection, a timer, a node's driver, a
// datagram's pair and content) and how many events of that source ran
// before it. An event cannot run before the step that made it pending
// (engine.Event.Cause): races are only between events that no chain of
// dependences and causes orders. A handler's Rand and Elapsed are choice
// points within a step: every answer is explored.
//
// An event that another disables (a datagram's drop by its delivery, the
// other resets once the budget is spent, a timer a handler cancels) never
// runs after it, so no execution shows their race: the step that disabled
// it counts as racing with it, and the disabled event is tried before the
// step (as Flanagan and Godefroid try the next transition of every
// process, run or not). Failures' causes are not tracked (Cause -1): the
// reduction then tries reversals an execution cannot have, and skips them
// when the event is not ready; that costs paths, never states.
//
// Sleep sets (the sleep parameter, on by default) end a path in a state
// whose every ready event is asleep: every way on is explored by other
// paths (explore.EndBlocked, counted as blocked). Without them source-DPOR
// is still complete but explores far more paths (tests: ten times the
// paths on a small system).
//
// # What it preserves, and state hashing
//
// DPOR explores every order of the dependent events, so it reaches every
// end state the plain search reaches (quiescent states, and so every
// verdict on an execution's history: tests compare both on the example
// systems and on a system with every kind of event and failure). It does
// not visit every intermediate state: a safety property that fails only
// in a transient state reachable by some interleaving of independent
// events may be missed (partial-order reduction preserves properties of
// end states and properties that, once violated, stay violated, such as a
// non-linearizable history; check transient global invariants with dfs).
// With a depth bound that cuts executions short, the reduction is relative
// to the cut executions: a state at the bound may be missed (the last
// round, in which no path reaches its bound, is exact).
//
// State hashing: DPOR does not prune a path at a state another path
// reached (Path.Prune is off). That would be unsound: the races between
// this path's steps and the steps beyond that state were analysed on the
// other path, against its own steps, so the reversals this path needs
// would never be added. Yang et al. (SPIN 2008) keep a summary of every
// visited state's subtree to make it sound; this package does not. What it
// keeps of hashing is the executor's cut of a path that returns to a state
// of its own (a cycle, after which the path walks). That cut hides the
// races between the path and what would follow it: an event that every
// state of the cycle postpones would never run (a periodic timer that
// does nothing leads back to the state it fired in, and can end every
// path before the events that race). So the state before the cut is fully
// expanded: every event ready there is explored from it (the cycle
// proviso of partial-order reduction, Godefroid 1996, condition C3: a
// state of every cycle is fully expanded). The clients' history is part of
// the hashed state.
//
// The order of exploration depends only on the system and the setup, so
// a search is as reproducible as with dfs.
package dpor
