// Package searchtest checks systems from go test: Check runs the whole
// macemc pipeline (package search) on a system and fails the test with the
// finding, its critical transition and the command that replays it.
//
// # Usage
//
//	func TestPingPong(t *testing.T) {
//		searchtest.Check(t, pingpongSystem, search.Options{MaxPaths: 2000, Seed: 1})
//	}
//
// where pingpongSystem is the *sim.System under test (the README's
// example, "Writing a service, a system and its properties", defines it
// and registers it with sim.Register in an init).
//
// Unless opts.Out is set, the results go to a new directory under
// os.TempDir() named after the test (macemc-TestName-NNNN), its own for
// every run so that tests of one name in two packages keep their evidence
// apart; it is kept when the run found something, so that the replay
// command works, and removed when it did not. Register the system
// (sim.Register) in the binary that replays it.
// The report names the macemc command (Options.Command), which knows only
// the example systems: for a system of your own, Check says so under the
// report, and the commands run with a main package of your module that
// imports the system's package and calls cli.Main (or set Options.Command
// to its name).
//
// A run that stops before its budget fails the test too: at the memory
// limit (search.Options.MaxMemory bounds the heap of the whole test
// binary, so parallel tests count against each other's limit), or a
// margin before the test's deadline (go test -timeout), where a violation
// already found is reported with its files rather than lost to the
// timeout's panic. A run that passes logs what it searched and its
// warnings (go test -v shows them). The report's advice names command-line
// flags; a note before it says which Options field each is.
//
// Checks may run in parallel tests: search.Run is safe for concurrent use,
// and each report is the one its run gives alone. Each run takes
// Options.Workers goroutines (all cores by default: set 1 or 2 in
// parallel tests), and a run past its memory limit gives up only on its
// own handlers.
//
// A handler that does not return is reported as a finding, but Go cannot
// stop it: its goroutine runs on until the test binary exits, and one that
// spins keeps a core busy for the package's other tests
// (search.Options.HandlerTimeout).
package searchtest
