// Package transport is MaceTransport (seed 003 §5): a reliable, in-order,
// message-oriented transport with retransmission and duplicate
// suppression over unreliable datagrams, and the liveness bug MaceMC found
// in it.
//
// Each packet carries its own sequence number (not a byte offset). To
// save a round trip there is no three-way handshake: the first data packet
// of a connection carries the SYN flag and its sequence number is the
// connection's initial sequence number (2001 for a node's first
// connection, 6001 for its second, and so on). The sender holds back
// further packets until the SYN is acknowledged, then keeps up to a window
// of packets in flight. The receiver delivers in order, buffers packets
// that arrive early, suppresses duplicates, acknowledges cumulatively, and
// answers data of a connection it does not know with Rst. Acknowledgments
// name the receiver's incarnation (Context.Monotone at Start), so a sender
// whose receiver reset closes the connection instead of waiting for
// acknowledgments of packets the receiver no longer knows. A per-connection
// retransmission timer resends the oldest unacknowledged packet; a SYN
// still unanswered after MaxRetries retransmissions abandons the
// connection attempt and reports the unsent messages to the application,
// which sends them again on a new connection. An established connection
// retransmits until it is acknowledged or reset.
//
// # Usage
//
// The package registers the system "transport" in init; import it for the
// side effect and look the system up by name:
//
//	import _ "github.com/macemc/macemc/services/transport"
//
//	sys, err := sim.Lookup("transport")
//	cfg, params, err := sys.Config(map[string]string{"fixed": "true"})
//	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed)})
//
// Node 0's test application sends messages to every other node, each
// message a driver request (SendRequest).
//
// Parameters:
//
//   - nodes (int, 2): number of nodes; node 0 sends to nodes 1..nodes-1.
//   - messages (int, 2): messages sent to each receiver.
//   - retries (int, 1): SYN retransmissions before a connection attempt is
//     abandoned.
//   - drops (int, 1): datagram drops per execution. Datagrams are always
//     reordered (Failures.Reorder).
//   - resets (int, 0): node resets per execution.
//   - fixed (bool, false): apply the fix below.
//
// Properties:
//
//   - AllAcked (liveness, seed 003 Table 1): eventually no node has
//     messages in flight (Node.InflightSize is 0 everywhere) and the test
//     application has sent everything the driver asked for, so the initial
//     state does not count as live.
//
// There is no safety property, as in the paper.
//
// # The bug
//
// With fixed=false: the sender sends SYN 2001; its retransmission timer
// resends it and then gives up, and the application's new attempt opens a
// connection with SYN 6001 while copies of SYN 2001 are still in flight.
// The receiver gets SYN 6001 and acknowledges it; then a stale SYN 2001
// arrives out of order, and the receiver, which cannot tell it from a new
// connection, switches to a connection starting at 2001. The critical
// transition is the sender handling ACK 6001: until then it could still
// retransmit SYN 6001 and resynchronise the receiver; after it, it
// believes connection 6001 established and sends DATA 6002, which the
// receiver ignores forever while acknowledging 2001, which the sender
// ignores. AllAcked never holds again. In the other order, the sender
// takes ACK 6001 before the stale SYN 2001 arrives, and the critical
// transition is the receiver taking SYN 2001 (macemc search --system
// transport --seed 3 finds that one).
//
// # The fix
//
// With fixed=true every packet carries a connection identifier taken from
// Context.Monotone (the paper's MonotoneTime): the receiver ignores a SYN
// older than its current connection and resets data of a newer connection
// it has not seen, so the stale SYN 2001 is recognised and DATA 6002 is
// acknowledged.
package transport
