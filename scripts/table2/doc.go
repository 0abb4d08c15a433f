// Command table2 prints a table like seed 003's Table 2 for macemc's
// example systems: for each system and variant (buggy, fixed), the verdict,
// the property, the critical step and event, paths, transitions, the time
// to find the violation and the time of the critical-transition search.
// It runs the pipeline of `macemc search` (package search) in process.
//
// # Usage
//
// From the repository's root (scripts/table2.sh runs it with a header line
// of the machine, Go version and date):
//
//	go run ./scripts/table2 [--time 60s] [--max-paths N] [--walk-depth N] [--seed S] [SYSTEM...]
//	go run ./scripts/table2 --max-paths 300 --walk-depth 2000 transport
//
// SYSTEM defaults to seed 003's four: transport, randtree, chord and
// pastry; a system without a parameter "fixed" gets an error in its third
// row. Every search has the budgets --time (default 1m) and --max-paths
// (default 20,000), the seed --seed (default 1) and d_max --walk-depth (0:
// the default, 20,000), and writes no files.
//
// It prints one table, three rows per system: the buggy variant checked
// for its liveness properties only (the paper's liveness search), the
// buggy variant with every property (which property catches the bug
// first), and the fixed variant with every property. For example:
//
//	system     variant  properties  verdict   property  critical  event                                                         paths  transitions  find (s)  critical (s)
//	transport  buggy    liveness    liveness  AllAcked  7 (C1)    node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} ...  14     2096         0.00      0.09
//	transport  buggy    all         liveness  AllAcked  7 (C1)    node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} ...  14     2096         0.00      0.10
//	transport  fixed    all         none      -         -         -                                                             300    2660         0.00      -
//
// Exit status 0; 2 for an unknown system, or if a search could not run
// (its row says why).
package main
