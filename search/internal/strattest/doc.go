// Package strattest holds what the tests of the exploration strategies
// share: a system whose schedules can be counted by hand, and a driver
// that runs an explorer's paths by themselves (no pruning, no walks) and
// records each path's schedule.
//
// # Usage
//
//	got, st := strattest.Rounds(t, pct.Strategy{}, explore.Setup{Seed: 1}, strattest.Pair(), 1000)
//	// got[0] lists the schedules of round 1 in path order, e.g. "abba".
package strattest
