// Package htmlreport makes the page a person reads a macemc finding from:
// one self-contained HTML file (inline CSS, script and SVG; nothing is
// fetched) beside report.json in a search's result directory.
//
// The page shows the headline (verdict, kind, system, parameters, seed,
// budgets, the replay and debugger commands, which name the directory's
// files where they are now and the binary that makes the page); a
// swim-lane sequence diagram of the error path with one lane per node,
// where messages are arrows labelled with their type and timers, resets,
// crashes, connection breaks, partitions and their healing, drops and
// duplications are marked (a message a break, a crash or a partition lost
// ends there, lost), the
// critical transition is highlighted and the steps the live alternative
// shares with it are barred; a state panel showing every
// node's state, every monitor's (hot or cold, its assertion failure, its
// fields: monitors are part of the global state, as in mdb's state) and the
// network at the selected step with their diff from the step before (or
// from the live path at the same step); the dead and live states at the
// critical step side by side with the differences marked, monitors
// included; a lasso's stem
// and cycle; a safety violation's or a handler panic's step and message;
// and tabs for the live alternative and, when min.trace is present, the
// minimized path (not compared with the live alternative, which is the
// error path's).
//
// The page replays the traces (trace.Trace.Replay's system must be
// registered in the binary) and stores each path compactly: events and
// messages as flat arrays of numbers, every distinct string once, and the
// state as the initial view of each node's state and of the network plus
// the changes of the views at each step (see Large states). The script
// draws the lanes lazily, a chunk of rows at a time as they scroll into
// view, and a dead path's repetitive tail (the steps after the last new
// kind of event, the critical step and the lasso's cycle) starts
// collapsed into a summary of its most frequent events; the live
// alternative is never collapsed (its last step is where it becomes
// live). Transport's 20,000-step dead path gives a page of 0.98 MB, made
// in 0.29-0.32 s (BenchmarkPage20000: each step's node text is made again
// only when the node's state changed, 7 times in 20,000 steps, and the
// replay's log entries are scanned, not decoded by encoding/json; it took
// 1.06 s before) and drawn 72-76 ms after it starts loading in headless
// Chromium (BenchmarkOpen20000 in ./browsertest; a shared 2-core machine
// at load average 1.1-1.6, 100-170 ms at 8-12).
//
// # Large states
//
// A view is the state's text as mdb's state shows it, with what would
// make the page grow with the state cut (Limits; the defaults here): a
// line over 300 bytes shows its first 225 bytes, its length and a digest;
// a list of more than 40 items (a slice's, a map's or a nested struct's,
// or the messages in flight on one connection; not a node's own fields)
// shows its first 20 and last 10 items and a marker, "… 99,970 more items
// (digest 5b0e21aa)"; a node's state or the network shows at most 400
// lines. A view depends on the text alone, and a marker's digest on what
// it stands for, so two paths' views compare as their states do and a
// change hidden in a cut still shows (as a marker that changed). What a
// step changed is shown in full however deep it lies: the lines it
// removed and added, with two lines of context, in place of the cut
// around them (a change of more than 8 lines shows its first and last 4;
// a long line, the bytes around the change). The comparison at the
// critical step diffs the two whole states and cuts the result the same
// way (a run of over 40 identical lines shows 10 either end). The page
// says when it cut something and gives the mdb commands that show it
// whole (j N; state, d, filediff N); event, message and log texts over
// 1,000 bytes are cut too, and the .log files have them whole.
//
// So a page's size is bounded whatever the states hold: about 50 bytes a
// step for the lanes (its event and the messages it sends), plus, for
// each path, at most Limits.StateBytes (16 MiB) of states, to which a
// step adds a few kilobytes at most (tens of bytes when it changes a few
// lines).
// Writing it replays each path once and makes the text of the node a step
// changed and of the network (sim/engine's text form, as mdb's state
// does); the page's own work is linear in that text, of which it reads at
// most Limits.TextBytes (128 MiB) per path. Past either limit a path's
// remaining states are not stored, and the page says so. For bigstate
// (two nodes of a 100,000-int list, a 10,000-entry map and a 100 KB
// string; a 6-step dead path and a 20-step live one) the page was 37.6 MB
// (200,000 rows a state; 2.3-3.0 s of CPU to write, 13-20 s to open in
// headless Chromium) and is 63 KB (1.3-1.5 s, under 0.25 s); with a
// 1,000,000-int list, 60 MB and 60 KB (its states now stored at every step
// of the dead path, which 16 MiB did not hold before: 5-6 s, four fifths
// of it the simulator making the states' text); fanout's 10,003-step path
// with 2,550 messages in flight, 21 MB and 1.9 MB (4.3-5.8 s, 3.0-4.9 s).
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
