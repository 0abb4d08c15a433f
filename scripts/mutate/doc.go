// Command mutate measures how well the tests catch bugs: it plants one
// small bug (a mutant) at a time in a copy of the repository, runs the
// tests of the package it is in, and counts the mutants the tests kill
// (fail on). It is slow (a build and a test run per mutant) and is not
// part of CI.
//
// Two sets of mutants:
//
//   - planted: the bugs issue 14 planted by hand, each of which survived
//     the tests then (dropping the driver position from the state hash,
//     the pruning's round check, ...). Every one must be killed.
//   - sampled: operator mutants (== and !=, < and <=, > and >=, && and
//     ||, + and -, ++ and --) at positions drawn with a fixed seed from the
//     non-test files of each package named; a mutant that does not compile
//     is not counted. The score is killed / counted.
//
// # Usage
//
// From the repository's root (it copies the committed tree, HEAD, with git
// archive into a temporary directory and mutates only the copy: commit
// what it should test):
//
//	go run ./scripts/mutate [--planted] [--sample N] [--seed S] [--timeout 3m] [PKG...]
//	go run ./scripts/mutate --planted
//	go run ./scripts/mutate --sample 5 search/explore
//
// PKG defaults to the core packages: sim sim/engine search search/explore
// critical walks walks/lasso mdb. --sample (default 20) is the sampled
// mutants per package, --seed (default 1) seeds the sample, --timeout
// (default 3m) bounds one test run (a mutant that hangs the tests is
// counted killed).
//
// With --planted it prints one line per planted bug, killed, SURVIVED
// (followed by the test output) or "does not apply (the code moved?)",
// then "planted: K of N killed", and exits 1 unless every one was killed.
// Otherwise it prints per package "K of N killed (P%)" with a "survived:"
// line (file:line and the operator swap) for each survivor, then the total
// as "all". Exit status 2 if the copy or a file cannot be read or written.
package main
