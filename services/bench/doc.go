// Package bench measures the whole macemc pipeline on every example system
// (issue 8). It has no code of its own, only benchmarks; scripts/bench.sh
// runs them and prints one table.
//
// Per system (services/all, default parameters unless noted):
//
//   - BenchmarkOverhead/SYSTEM/walk: the random walks of a search (Reset,
//     failures on for the first 10 steps, weighted walk to d_max = 5,000
//     with the system's safety properties after every step and its
//     liveness properties beyond step 10), one walk per iteration over a
//     fixed set of seeds: transitions per CPU second (cpu-transitions/s,
//     steadier than wall time on a shared machine) and per wall second.
//   - BenchmarkOverhead/SYSTEM/replay: the same walks replayed from their
//     recorded choices on the simulator, without properties, walk loop or
//     random chooser: what the simulator itself costs.
//   - BenchmarkOverhead/SYSTEM/bare: the same handlers called in the same
//     order with the same inputs straight from a loop (engine.Bare on a
//     engine.Recording of each walk), no checker around them. The ratio
//     walk/bare is the checker's overhead. TestBareMatchesWalk checks that
//     the bare run leaves every node in the state the checked walk left
//     it, so both did the same handler work.
//   - BenchmarkWalkWorkers: the same walks spread over 1 and 2 goroutines
//     (as critical's probes spread them): transitions/s, wall and CPU.
//   - BenchmarkPaths: a bounded search (search.Run) of the fixed variant,
//     which finds nothing and so runs its whole budget of paths, on 1 and
//     2 workers: paths/s, distinct states/s and the peak heap in use.
//   - BenchmarkFind: `macemc search` run in process (as scripts/table2
//     does) on the buggy variant with the budget of the end-to-end tests:
//     the time to the first violation, the time of the critical-transition
//     search, the whole command's wall time and the critical step.
//
// # What makes walk/bare honest
//
// Both sides do the same handler work: the same fresh structs from
// Config.Service and the same Start at every walk's boot and at every
// reset, the same messages (the recorded values), timer names and driver
// requests in the same order, the same answers to Rand and Elapsed, the
// same Monotone and Step. What the bare side leaves out is exactly the
// checker: building the ready list and choosing from it, queueing sends,
// the choice log, safety and liveness checks after every step, the walk's
// loop. Messages a handler builds are built on both sides (the bare Send
// drops them after the handler made them). The bare side does track
// which timers are armed, so that a handler asking TimerScheduled gets the
// same answer; it is a few string compares per timer call. The recording
// is made outside the timed loop, both sides cycle over the same set of
// walks, and both run with the recordings in memory, so that the garbage
// collector sees the same live heap. The driver's requests (Config.App,
// called at every reset) and the properties are the checker's side: a
// property is code of the system's author, but it is the checker that
// calls it after every step; the replay figure separates the simulator
// from the properties and the walk loop.
//
// # Usage
//
//	bash scripts/bench.sh                                   # every benchmark, one table
//	go test ./services/bench -run X -bench 'Overhead/randtree' -benchtime 2s
//	go test ./services/bench -run X -bench Hash -cpuprofile cpu.out
package bench
