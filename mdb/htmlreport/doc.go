// Package htmlreport makes the page a person reads a macemc finding from:
// one self-contained HTML file (inline CSS, script and SVG; nothing is
// fetched) beside report.json in a search's result directory.
//
// The page shows the headline (verdict, kind, system, parameters, seed,
// budgets, the replay and debugger commands); a swim-lane sequence diagram
// of the error path with one lane per node, where messages are arrows
// labelled with their type and timers, resets, crashes, connection breaks,
// partitions and their healing, drops and duplications are marked (a
// message a break, a crash or a partition lost ends there, lost), the
// critical transition is highlighted and the steps the live alternative
// shares with it are barred; a state panel showing every
// node's state at the selected step with its diff from the step before (or
// from the live path at the same step); the dead and live states at the
// critical step side by side with the differences marked; a lasso's stem
// and cycle; a safety violation's or a handler panic's step and message;
// and tabs for the live alternative and, when min.trace is present, the
// minimized path.
//
// The page replays the traces (trace.Trace.Replay's system must be
// registered in the binary) and stores each path compactly: events and
// messages as flat arrays of numbers, every distinct string once, and the
// state as the initial text plus a line diff per step. The script draws the
// lanes lazily, a chunk of rows at a time as they scroll into view, and a
// dead path's repetitive tail (the steps after the last new kind of event,
// the critical step and the lasso's cycle) starts collapsed into a summary
// of its most frequent events; the live alternative is never collapsed
// (its last step is where it becomes live). Transport's 20,000-step dead path gives a
// page of 0.97 MB, made in 0.32 s (BenchmarkPage20000: each step's node
// text is made again only when the node's state changed, 7 times in 20,000
// steps, and the replay's log entries are scanned, not decoded by
// encoding/json; it took 1.06 s before) and drawn 72-76 ms after it starts
// loading in headless Chromium (BenchmarkOpen20000 in ./browsertest; a
// shared 2-core machine at load average 1.1-1.6).
//
// # Usage
//
//	// after macemc search --out dir:
//	if err := htmlreport.WriteDir("dir", htmlreport.Options{}); err != nil { ... } // dir/report.html
//
//	// from traces in hand:
//	in := htmlreport.Input{Error: errTrace, Live: liveTrace, Dir: "dir"}
//	err := htmlreport.Render(os.Stdout, in)
//
// Bad input (a missing or damaged report or trace, a system the binary
// does not know) is an error wrapping ErrInput; WriteDir and WriteFile
// leave an existing page as it was unless the new one is complete.
package htmlreport
