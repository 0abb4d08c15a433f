// Package engine is macemc's deterministic network simulator: it runs the
// nodes of a sim.Config, owns every source of nondeterminism and records
// an execution as the sequence of its choices. The checker (packages
// search, walks, critical) and the debugger (mdb) drive it; a service
// author only needs package sim.
//
// Every source of nondeterminism — which pending event runs next, message
// and datagram order, drops, connection breaks, node resets, timers,
// random numbers and time comparisons — is a choice point answered by a
// Chooser. An execution is therefore the sequence of its choices, and
// replaying that sequence reproduces it bit for bit (seed 003 §2, §4.1).
// A Chooser that implements EventChooser sees the ready events (node,
// kind, peer, message, source) it picks among.
//
// # Usage
//
//	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
//	if err != nil { ... }
//	for {
//		ok, err := s.Step() // one chosen event
//		if err != nil || !ok { break }
//		if i, _ := s.FirstViolated(cfg.Safety); i >= 0 { ... }
//	}
//	replay, err := engine.Replay(cfg, s.ChoiceValues(), -1, engine.Options{})
//
// New builds the initial state (NewGuarded under the watchdog), Step runs
// one chosen event, Hash returns the global state's hash, Clone snapshots
// it, Reset goes back to the initial state, and FirstViolated checks
// properties.
//
// # Failures
//
// Failure events are choice points within the budgets and filters of
// sim.Failures: resets (with durable state, sim.Durable), crash-stops,
// connection breaks, datagram drops and duplicates, and partitions, which
// EvHeal ends at any later step.
//
// # State
//
// The global state is every node's struct (unexported fields included,
// maps in key order, pointers followed) plus all pending events. A field
// tagged `macemc:"-"` is left out, and so are the sync types whose value
// is what goroutines are doing (Pool, Mutex, RWMutex, WaitGroup, Cond); a
// type implementing sim.Canonicalizer, registered with
// sim.RegisterCanonical, or whose pointer implements an interface
// registered with sim.RegisterCanonicalFor, gives its own canonical form.
// A func is its function's name and a channel the elements it buffers
// (chanlayout.go); what a closure captured cannot be read, so the Hash of
// a state that holds one is mixed with the path's choices and no search
// takes it for another state (Sim.HiddenState). FormatState and Sim.NodeText give the stable text form the debugger
// diffs. A node or message past Options.MaxStateBytes stops hashing with an
// *EncodingError (HashErr). Hash is kept up to date incrementally: after a
// step only the nodes and queues it touched are hashed again (hash.go), and
// a struct or message of numbers, strings, slices, maps and pointers of
// them is hashed straight from memory (prog.go; a map as the sum of its
// entries' hashes, without sorting them); what hashing every state costs a
// walk is the "hash" column of scripts/bench.sh. Clone copies the state
// deeply, or by replaying its choices when a deep copy cannot
// (CopyProblem); CloneInto copies it into a simulator used before, at a
// cost in proportion to what the state holds rather than to the n*n
// connections a new simulator allocates; CheckCopy checks a copy.
// The clients' history (sim.Context.Invoke, Return; Sim.History) is part
// of the state too, in the canonical form linearizability depends on
// (history.go).
//
// For partial-order reduction, every pending event says which step made it
// pending (Event.Cause), and Sim.Shared which steps used state beyond their
// node (Monotone's counter).
//
// # Guards
//
// A handler that panics ends the execution with a *HandlerPanicError (a
// *MisuseError inside for an invalid use of the Context), with the
// service's own stack frames; Guard reports a handler that does not return;
// CheckDeterminism replays a path many times in lockstep and names the
// first state, node and field where a nondeterministic service differed
// (CheckDeterminismOrder also names, as an *OrderDifference, a handler
// that did the same things in another order, which the state does not
// show but the logs do); an *EscapeError reports code that acted outside
// its handlers.
package engine
