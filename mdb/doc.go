// Package mdb is macemc's debugger (seed 003 §5, MDB): it replays the
// error path a search found and the live path that shares the longest
// prefix with it, and answers the questions a person asks of a liveness
// bug: what happened at the critical step, what differs on the live path,
// what each node did, what could have happened instead.
//
// A Session holds the paths and a current position. Step N is the state
// after N events (step 0 is the initial state), so the critical step of a
// trace (trace.Trace.Critical, the first dead state) is the state the
// critical transition leads to, and `j crit` shows it. A trace of a live
// path (kind live or prefix) opened as the error path has no critical
// step, whatever its critical fields say. Every command prints to
// Options.Out and returns an error for bad input; nothing a user types
// ends the session but quit. Warnings about the files opened (a
// directory's live.trace that cannot be read or replayed, a live trace
// that records no live path) go to Options.Warn.
//
// The commands, with the short names of the original mdb:
//
//	n, p [COUNT]           step forward, backward (only the selected node's events after w)
//	j STEP, home, end      jump: N, +N, -N, crit, cycle, home, end
//	w [NODE|all]           select a node, or deselect
//	a                      the events that could run next
//	B I [SEED]             run ready event I as the next step, on a new branch path
//	random N [SEED]        run N random steps, on a branch
//	R [CAP] [SEED]         run random steps until the system is live
//	events FILTER...       the steps where an event occurred: kind, message type, timer, node=N
//	x RE, s RE, log        filter the path's log, search it, a step's log lines
//	d [A [B]]              diff the global state of two steps (d A: from step A to here)
//	m, filediff [STEP]     diff a step on the error path (-) and the live path (+)
//	state [NODE|net], props, info, paths, path NAME
//	history [all]          the clients' history up to this step, and whether it is linearizable
//	g [FROM TO] [--svg F]  the event graph, as text and as SVG (g cycle: a lasso's cycle);
//	  g --html F           the report page of the paths (package htmlreport)
//
// # Lassos
//
// A lasso trace (macemc search --lasso; trace.Trace.CycleStart and
// CycleLen) ends with a cycle: state CycleStart is where it starts and
// transitions CycleStart+1 .. CycleStart+CycleLen bring the execution back
// to that state. `j cycle` jumps to its first state; on the error path the
// steps from there to the end are tagged "cycle i/L" as n, p and events
// show them; Intro and info give the stem and the cycle's length (info
// also the trace's note); the event graph brackets the cycle's rows
// (┌│└ in text, a band, a bracket and a "cycle" label in SVG), and
// `g cycle` draws exactly the cycle.
//
// # Speed
//
// Opening a path replays it once and keeps a snapshot (engine.Sim.Clone)
// every Options.SnapshotEvery steps (further apart on a long path: each
// snapshot copies the history up to its step, and their copies are kept
// within 64 MiB); moving anywhere clones the nearest
// snapshot below and replays at most that many steps, and moving forward
// steps the current simulator on. The log that x, s and log read is made
// on demand by one replay with engine.NewLogger and kept.
//
// # Usage
//
//	s, err := mdb.Open("macemc-out", "", mdb.Options{Out: os.Stdout})
//	if err != nil { ... } // missing, truncated, corrupt, unknown system: wraps ErrInput
//	s.Intro()
//	s.Do("j crit")
//	s.Do("filediff")
//	s.Do("g --svg graph.svg")
//	err = s.RunScript(os.Stdin, true) // or read lines yourself and call Do
//
// mdbtest provides a small system with a liveness bug and its traces for
// tests and demonstrations.
package mdb
