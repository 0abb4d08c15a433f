// Command nondet measures how often macemc's pipeline (package search)
// catches each kind of nondeterminism a hosted service may have: for every
// kind, a two-node system whose one nondeterministic act happens once per
// execution (the hard case: a service that misbehaves at every step is
// caught at once), searched RUNS times with seeds 1..RUNS; it prints the
// share of runs that ended in a nondeterminism finding (or an escape),
// with the default replays and with --replays, and how many of the
// findings with the default replays named the node that misbehaved
// (node 0), as the report must.
//
// # Usage
//
// From the repository's root:
//
//	go run ./scripts/nondet [--runs 100] [--replays 2] [KIND...]
//	go run ./scripts/nondet --runs 20 map-8 time-now
//
// KIND defaults to every kind: map-2, map-8, map-64 (acting on the first
// key of a map of 2, 8 or 64 entries), map-order-send (sending in a map's
// order), math-rand, crypto-rand, time-now, goroutine-write,
// goroutine-send and background-write (a goroutine that writes the state
// or sends), message-changed and shared-state (memory a message or two
// nodes share), file-at-start and global-at-start (state kept across
// executions: a file or a package variable a handler writes and Start
// reads back). Every search is seeded 1..RUNS, with 20 paths, d_max 200, one
// worker and no critical-transition search.
//
// It prints a table, one row per kind: "caught (default replays)" and
// "caught (N replays)" as caught/RUNS, "named node 0" as named/caught,
// and the first finding's error text (cut at 200 characters). Exit status
// 0, or 2 if a search cannot run.
package main
