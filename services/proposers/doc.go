// Package proposers is the Proposers benchmark of seed 000 (Appendix A.1):
// single-decree Paxos with one acceptor and proposers that out-bid each
// other forever, a livelock whose states never repeat exactly.
//
// A proposer sends Prepare with a ballot; the acceptor promises it
// (Promise) unless it promised a higher one (Nack). With the promise the
// proposer sends Accept; the acceptor accepts unless it promised a higher
// ballot in the meantime (Nack), and tells every proposer the value is
// Chosen. A proposer whose ballot is refused starts over at once with a
// higher ballot.
//
// # Usage
//
//	go run ./cmd/macemc search --system proposers
//	go run ./cmd/macemc search --system proposers --param fixed=true
//
// System "proposers": node 0 is the acceptor (*Acceptor), nodes 1..k the
// proposers (*Proposer); the driver asks proposer i to Propose value 100·i.
// No failures.
//
// Parameters:
//
//   - proposers (int, default 2): proposers, 2 to 4.
//   - fixed (bool, default false): a pre-empted proposer defers to a
//     higher-ranked one.
//
// Properties:
//
//   - ValueChosen (liveness): a value is chosen and every proposer knows it.
//   - Agreement (safety): every decision equals the acceptor's accepted
//     value, which some proposer proposed.
//
// The bug: proposer 1's Accept is on its way when proposer 2's Prepare,
// with a higher ballot, reaches the acceptor; proposer 1 is refused and
// prepares a still higher ballot, which pre-empts proposer 2's Accept, and
// so on (TestDuel: a fair cycle of 8 events in which no value is chosen).
// There is no dead state and no critical transition: from every state a
// random walk soon lets one Accept through, so walks rarely see the duel
// last (seed 000 Table II: the temperature method finds nothing).
//
// Ballot rounds grow on every turn, so the global state never repeats and
// full-state hashing (Sim.Hash) sees no lasso, as seed 000 Appendix C
// notes. Lasso detection needs a partial hash: the node types, each node's
// LassoKey and the types of the pending messages, without their payloads.
// Acceptor.LassoKey and Proposer.LassoKey (a method LassoKey() any)
// return each node's state without ballots: phase, values and whose
// ballot the acceptor promised and accepted. Under that projection the
// duel is a cycle of 8 steps: `macemc search --system proposers
// --partial-hash` finds it in the explored graph of partial states, and
// `--lasso --partial-hash` in walks.
//
// The fix (fixed=true), a distinguished proposer: a proposer refused
// because of a ballot of a higher-ranked proposer (higher node id) stops
// proposing (Deferring) and waits for Chosen; only lower-ranked ballots
// make it try again. The highest-ranked proposer then meets only finitely
// many refusals and gets its Accept through. (Random or exponential
// backoff would not do here: timers are logical, so the checker may fire
// them in the worst order and the duel would remain a fair cycle.)
package proposers
