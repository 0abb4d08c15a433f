// Package search checks a system the way `macemc search` does, as a
// library: one call runs the whole pipeline of MaceMC (seed 003) and
// returns a typed Report.
//
//  1. The search (package search/explore with a strategy: search/dfs,
//     the bounded depth-first search of Algorithm 1, by default; or
//     search/walk, search/random, search/pct, search/delay, search/dpor;
//     Options.Strategy) runs paths in
//     a fixed order, checks safety after every step and continues every
//     path with a random walk of up to d_max steps (Algorithm 2): a walk
//     that never reaches a live state is a suspected liveness violation.
//     Meanwhile it records the explored state graph and looks in it for a
//     fair cycle of hot states after every round (package walks/fair,
//     seed 002; Options.Graph): a lasso, confirmed by replaying it.
//  2. The first violation is replayed in lockstep many times (64 for a
//     path of up to 1,562 steps; a longer one whole a few times and its
//     first 1,562 steps 64 times): a service whose replays diverge is
//     reported as nondeterministic (nothing else about it can be trusted).
//  3. A liveness violation gets its critical transition (package critical,
//     Algorithm 3) and the live alternative that shares the longest prefix
//     with it; a lasso behind it is looked for when there is no dead state
//     (package walks/lasso, seed 000).
//  4. The evidence goes to Options.Out, replacing the result files a
//     previous run left there (ResultFiles): error.trace and error.log
//     (the violation), live.trace and live.log (the live alternative),
//     min.trace and min.log (the minimized doomed path, with
//     Options.Minimize), prefix.trace (the live prefix of
//     Options.PrefixSteps), report.json (the Report) and report.html (the
//     report page, package mdb/htmlreport), and for a linearizability
//     finding history.html and history-full.html (below); Report.Files
//     names those written. A run that finds nothing writes report.json
//     (and prefix.trace) alone.
//
// A system with a sequential model (sim.Config.Model) has the history of
// its clients checked for linearizability (package search/lin) wherever an
// execution ends; a violation is a finding of kind linearizability
// (KindLinearizability) with the history and a minimal non-linearizable
// part of it (Finding.History), and porcupine's visualizations of both,
// history.html and history-full.html; Report.Lin counts the histories
// checked, distinct, not linearizable and unknown (a check that timed
// out, Options.LinTimeout, never counted as linearizable).
//
// The report depends only on the system, the options and the seed, not on
// Workers or on how goroutines are scheduled; a Time budget makes where the
// search stops depend on the machine (a MaxPaths or Depth budget does not).
//
// # Usage
//
//	rep, err := search.Run(ctx, system, search.Options{Seed: 1, MaxPaths: 20000, Out: "macemc-out"})
//	if err != nil {
//		// bad options (*search.OptionError), a system that does not build,
//		// results that could not be written
//	}
//	if f := rep.First(); f != nil {
//		fmt.Println(f.Kind, f.Property) // e.g. dead AllAcked
//		if f.Critical != nil {          // liveness violations only
//			fmt.Println(f.Critical.Step) // e.g. 9
//		}
//		fmt.Println(rep.Replay) // the command that replays it
//	}
//
// A context cancelled before or during the run is no error: the report
// says what was covered (Report.Incomplete, Stats.Stop).
//
// Report.WriteText prints the report as `macemc search` does;
// Report.WriteSummary prints the same without times, directories and
// commands, for golden files (testdata/scenarios/*.txt, run by TestScenarios, holds
// such reports of the example systems; go test -rewrite regenerates them).
//
// Package search/searchtest wraps Run for go test. Cancelling ctx stops the
// run within about a second, in any phase; the report then carries what was
// found so far (Report.Incomplete), the trace of a violation found before
// is written (the logs are left out: Report.LogsSkipped), and an
// interrupted critical-transition search gives the bounds it had narrowed
// to (Critical.Recovered and Dead).
//
// A search too big for one machine runs as shards: RunShard runs shard i of
// n (the bounded search's subtrees numbered i modulo n, and their walks)
// and writes its records (ShardFile) to Options.Out; Merge reads the n
// result directories and gives the report Run gives, following the
// records and running what they do not cover:
//
//	for i := range n { // on n machines
//		search.RunShard(ctx, system, search.Options{Seed: 1, MaxPaths: 1e6, Out: dirs[i]}, i, n)
//	}
//	rep, err := search.Merge(ctx, dirs, search.MergeOptions{Out: "macemc-out"})
//
// Before it starts, Run checks that Options.Out can be written (CheckOut)
// and estimates the run's memory (EstimateMemory), refusing one over
// Options.MaxMemory with a *MemoryError; while it runs, it watches its
// heap and stops, as an interrupted run does, once that has grown past
// what the limit allows (Report.MemoryLimited, ErrMemoryLimit). ReadReport reads a report.json
// back, checking what it says: it is untrusted input.
package search
