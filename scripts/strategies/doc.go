// Command strategies prints a comparison of the exploration strategies on
// macemc's example systems, after seed 002's Table 2 (states explored
// before the bug, per scheduler) and seed 001's Table 4.4 (schedules until
// the bug, per scheduler): for every buggy system and every strategy, how
// many of the seeds found the bug within the budget, and over the seeds
// that did, the median number of schedules (paths) and of distinct states
// of the bounded parts (the explored state graph's) until the first
// violation, and the median time to it. It runs the pipeline of `macemc
// search` (package search) in process, without the critical-transition
// search (the time is the search's).
//
// The counts are exact (the same on any machine) as long as every search
// ends by finding the bug or by spending the path budget; a search that
// hits the time budget first is counted in "found" as timed out, since on
// a faster machine it would have gone further.
//
// # Usage
//
// From the repository's root (scripts/strategies.sh runs it with a header
// line of the machine, Go version and date; the README's table is
// scripts/strategies.sh --markdown):
//
//	go run ./scripts/strategies [--seeds 20] [--time 30s] [--max-paths 20000] [--walk-depth N] [--markdown] [--strategy NAME]... [SYSTEM...]
//	go run ./scripts/strategies --seeds 5 --time 10s --strategy pct --strategy "delay rtc" transport storage
//
// SYSTEM defaults to the buggy example systems: transport, randtree,
// chord, pastry, storage, failuredetector, scheduler, philosophers and
// proposers (proposers with partial state hashing). The columns are dfs,
// walk, random, "pct d=3", "delay rr", "delay rr-event" and "delay rtc";
// --strategy keeps only those it names (a strategy, e.g. delay, or a
// column, e.g. "delay rtc"). Every search runs seeds 1..--seeds with the
// budgets --time and --max-paths and d_max --walk-depth (0: the default).
//
// It prints a table (Markdown with --markdown), one row per system and
// strategy: found (seeds that found the bug of --seeds, with how many timed
// out), the medians of schedules, states and seconds, and the kinds of the
// findings; and a line "SYSTEM done" on stderr as each system ends. Exit
// status 0, or 2 for an unknown system, a --strategy that matches no
// column or a search that cannot run.
package main
