package transport

import (
	"strconv"

	"github.com/macemc/macemc/sim"
)

// SendRequest is the test driver's request to the application on a node:
// send Msg to node To.
type SendRequest struct {
	To  sim.NodeID
	Msg string
}

// testApp is the test application above the transport (seed 003 §4.1): it
// sends what the driver asks it to and, when the transport reports that a
// connection closed, sends the unacknowledged messages again.
type testApp struct {
	expected  int      // send requests the driver will make
	requested int      // send requests handed to the transport so far
	failures  int      // connection errors the transport reported
	delivered []string // "from:msg" of every message received, in order
}

// Node is one host: MaceTransport with the test application on top. It is
// the transport's Upcalls.
type Node struct {
	sim.Base
	tr  Transport
	app testApp
}

// Start starts the transport.
func (n *Node) Start(ctx *sim.Context) { n.tr.Start(ctx) }

// HandleApp passes the driver's send request to the transport.
func (n *Node) HandleApp(ctx *sim.Context, req any) {
	r, ok := req.(SendRequest)
	if !ok {
		return
	}
	n.app.requested++
	n.tr.Send(ctx, r.To, r.Msg)
}

// HandleMessage hands a datagram to the transport.
func (n *Node) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	n.tr.HandlePacket(ctx, from, m, n)
}

// HandleTimer runs the transport's retransmission timers.
func (n *Node) HandleTimer(ctx *sim.Context, name string) {
	n.tr.HandleTimer(ctx, name, n)
}

// Deliver implements Upcalls: the application records the message.
func (n *Node) Deliver(_ *sim.Context, from sim.NodeID, msg string) {
	n.app.delivered = append(n.app.delivered, strconv.Itoa(int(from))+":"+msg)
}

// Error implements Upcalls: the application sends the unacknowledged
// messages again, which opens a new connection.
func (n *Node) Error(ctx *sim.Context, peer sim.NodeID, unsent []string) {
	n.app.failures++
	ctx.Log().Int("peer", int(peer)).Int("unsent", len(unsent)).Msg("app: connection error, sending again")
	for _, m := range unsent {
		n.tr.Send(ctx, peer, m)
	}
}

// InflightSize returns the number of the node's messages not yet
// acknowledged (the paper's n.inflightSize()).
func (n *Node) InflightSize() int { return n.tr.InflightSize() }

// Done reports whether the application has handed the transport every
// message the driver asked for.
func (n *Node) Done() bool { return n.app.requested >= n.app.expected }
