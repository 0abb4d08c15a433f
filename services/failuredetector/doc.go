// Package failuredetector is the FailureDetector benchmark of seed 000
// (Appendix A.3): a ping-based failure detector that loses a failure when
// the failure is declared before the client registers.
//
// Every round (periodic timer "round") the FailureDetector pings the
// daemons it monitors; a daemon that has left Attempts rounds unanswered
// is declared failed, dropped from monitoring and reported (NodesDown) to
// every registered client. The client registers (RegisterClient) and, as
// the test driver, halts daemons (Halt).
//
// # Usage
//
//	go run ./cmd/macemc search --system failuredetector
//	go run ./cmd/macemc search --system failuredetector --param fixed=true
//
// System "failuredetector": node 0 is the detector (*FailureDetector),
// node 1 the client (*Client), nodes 2..nodes+1 the daemons (*Daemon). The
// driver asks the client to Register, then to Kill failures daemons, each
// chosen with Context.Rand. The simulator's own failures are off.
//
// Parameters:
//
//   - nodes (int, default 2): monitored daemons.
//   - failures (int, default 1): daemons the client halts.
//   - attempts (int, default 1): unanswered rounds before a daemon is
//     declared failed.
//   - fixed (bool, default false): send a new client the failures
//     declared before it registered.
//
// Properties:
//
//   - FailuresReported (liveness): the client has halted its daemons and
//     was told that each of them failed.
//
// There is no safety property: timers are logical, so a round may fire
// before a live daemon's Pong is back and the detector may declare a live
// daemon failed; that is the nature of a timeout-based detector, not the
// bug.
//
// The bug (a race in message delivery order): the client's RegisterClient
// is still in flight when the halted daemon misses its round and is
// declared failed; the detector has no client to tell, drops the daemon
// from monitoring and forgets it. The registration then arrives, and the
// client never learns of the failure. Afterwards the detector pings the
// remaining daemons forever: the global state repeats exactly (a hot,
// fair lasso of 3 steps: round, Ping, Pong), or, if it also declares the
// last live daemon failed, it stops its timer and the system falls
// quiescent.
//
// Critical transition: the detector's "round" timer (node 0) that
// declares the halted daemon failed while no client is registered.
// Before it, walks in which the registration arrives first are live; after
// it, none is. About 1.4% of plain random walks run into the bug.
//
// The fix (fixed=true): the detector remembers the daemons it declared
// failed and sends the whole list (NodesDown) to a client when it
// registers.
package failuredetector
