// Command ds2 prints a table like seed 004's (DS2's) comparison of
// schedulers on its benchmark systems: for the register variants and the
// replicated map, per strategy, the schedules (paths) explored, the
// distinct histories their executions produced, how many of those are not
// linearizable, the path that found the first one, and the time. Every
// search explores to the same depth (deep enough for every execution to
// end), with DS2's cutoff of 50,000 schedules; it runs the pipeline of
// `macemc search` (package search) in process.
//
// Columns: "dfs (no hashing)" is the exhaustive stateless DFS (DS2's EX),
// "dfs" MaceMC's DFS with state hashing (a path that reaches a state seen
// before stops: most paths are those), "dpor" source-set DPOR with sleep
// sets; random, pct and delay (DS2's SR and DB).
//
// # Usage
//
// From the repository's root (scripts/ds2_table.sh runs it with a header
// line of the machine, Go version and date):
//
//	go run ./scripts/ds2 [--max-paths 50000] [--depth 60] [--seed 1]
//
// --max-paths is the cutoff per configuration and strategy, --depth the
// depth bound of every search (a single round), --seed the seed of every
// search. It prints two lines on the cell format and the settings, then a
// Markdown table: one row per configuration (register correct, buggy and
// noquorum with two readers and one writer, correct and buggy with two
// writers; kvmap buggy and fixed, and buggy with one reader and two
// writers on two keys), one column per strategy. A cell reads "schedules /
// distinct histories / non-linearizable histories / path of the first /
// time", with "-" for no first path and a "+" after the schedules when the
// cutoff was hit. Exit status 0; 1 if a search cannot run, 2 for a bad
// flag.
package main
