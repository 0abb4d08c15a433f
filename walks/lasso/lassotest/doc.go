// Package lassotest holds small systems that look like transient-state
// liveness violations and are not, for the tests of lasso detection and
// for the lasso table script. Importing it registers them (names start
// with "lasso-"):
//
//   - lasso-starve: two nodes play ping-pong forever while a third one's
//     request, which makes the system live, waits: a hot cycle that is
//     not fair, so no liveness violation.
//   - lasso-slow: a ball passed k times before the system is live: slow
//     but live, the temperature method's false alarm.
//   - lasso-alternating: two liveness properties that hold in turn
//     forever, never both at once: a lasso, since a state is live only
//     when every liveness property holds, though neither property alone
//     fails for good.
//   - lasso-coin: ping-pong until a coin (sim.Context.Rand) comes up
//     heads: a lasso for the search, which chooses the answers, that needs
//     tails every round (probability 0 for a fair coin).
//
// The systems with real transient-state violations are the example
// systems services/philosophers (a livelock) and services/proposers (a
// duel whose ballots grow, so only partial hashing sees it repeat).
//
// # Usage
//
//	import _ "github.com/macemc/macemc/walks/lasso/lassotest"
//
//	sys, _ := sim.Lookup("lasso-slow")
//	cfg, _, _ := sys.Config(map[string]string{"k": "400"})
package lassotest
