// Command macemc finds liveness and safety bugs in the example systems:
// bounded search, random walks, and the critical transition (seed 003).
// See the README and 'macemc --help'. It is package cmd/cli with every
// example system of services/all registered; a user checking their own
// systems builds the same command around cli.Main.
//
// # Usage
//
//	macemc list [--json]                      systems, strategies, parameters and properties
//	macemc search --system NAME [flags]       search + random walks + critical transition
//	macemc search ... --shard I/N --out DIR   run shard I of N of a search (on N machines)
//	macemc merge DIR... [--out DIR]           merge the N shards' directories into the search's report
//	macemc replay --trace FILE [--log FILE]   replay a trace with full logging
//	macemc critical --trace FILE [flags]      re-run the critical-transition search on a trace
//	macemc tune --system NAME [flags]         steps to the first live state; suggests --walk-depth
//	macemc mdb DIR [flags]                    the debugger on a search's results
//	macemc report DIR                         make the HTML page of a search's result directory
//	macemc version
//
// 'macemc COMMAND --help' lists a command's flags. The main flags of
// search: --param NAME=VALUE (repeatable), --property NAME (check only
// this one), --strategy NAME with its own --NAME-OPTION flags ('macemc
// list' shows them), --seed, the budgets --max-paths and --time, --depth
// and --depth-step for the bounded search, --walk-depth (d_max), --walks
// (k), --workers, --out DIR (default macemc-out) and --json. For example:
//
//	macemc search --system transport --max-paths 300 --walk-depth 2000
//
// prints what was searched (system, parameters, seed, strategy, faults)
// and how far ("searched: 1 rounds, depth bound 5 ..., 14 paths ...;
// stopped: violation"), then the first violation ("LIVENESS VIOLATION of
// AllAcked (dead state ...)"; or SAFETY, LINEARIZABILITY VIOLATION,
// NONDETERMINISTIC SERVICE), for a dead state its critical transition
// with the evidence for it, the live alternative and the minimized doomed
// path, the files written to --out (error.trace, error.log, live.trace,
// min.trace, report.json, report.html, ...; they replace a previous run's
// there), and ends with the commands that open the finding in the debugger
// and replay it, naming the binary as it was run (bin/macemc when run as
// bin/macemc; macemc on PATH, with cmd/mdb, as here):
//
//	debug:  mdb macemc-out
//	replay: macemc replay --trace macemc-out/error.trace --log macemc-out/error.log
//
// Without a violation it says "nothing found within this budget". With
// --json the report is one JSON object on stdout instead.
//
// Exit status (every command): 0 nothing found within the budget (or the
// command succeeded), 1 a violation found or replayed (for tune: a
// sampling walk broke a safety property), 2 a usage or input error (bad
// flags, an unknown system or parameter, unreadable input, results that
// could not be written, a --time spent before the search ran a single
// path: "NOTHING SEARCHED"; for mdb: a command of its script failed).
// Under go run every nonzero status becomes go run's own 1 (it prints
// "exit status 2"): build the binary (go build -o bin/macemc ./cmd/macemc)
// where the status matters.
package main
