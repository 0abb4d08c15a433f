package transport

import (
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/sim"
)

// Data is a data packet: one application message with its sequence
// number. The first packet of a connection carries the SYN flag, which
// opens the connection at the receiver with that packet's number as the
// initial sequence number (there is no three-way handshake).
type Data struct {
	seq  uint32
	syn  bool
	conn uint64 // connection identifier (fixed variant only; 0 otherwise)
	msg  string
}

// Ack is a cumulative acknowledgment: every packet of the connection up to
// and including seq has arrived. It names the receiver's incarnation, so
// that the sender notices a receiver that reset and lost the connection.
type Ack struct {
	seq  uint32
	conn uint64
	inc  uint64 // the acknowledging node's incarnation
}

// Rst tells the sender that the receiver has no connection the data packet
// seq belongs to (it lost its state), so the sender must start over.
type Rst struct {
	seq  uint32
	conn uint64
}

const (
	// firstISN is the initial sequence number of a node's first
	// connection; later connections start isnSpacing higher, so the
	// sequence spaces of successive connections never overlap.
	firstISN   = 2001
	isnSpacing = 4000
	// window bounds the packets in flight on an established connection.
	window = 8
)

// outConn is the sending half of a connection to one peer.
type outConn struct {
	id          uint64   // connection identifier (fixed variant), 0 otherwise
	isn         uint32   // initial sequence number: the SYN packet's
	established bool     // the peer acknowledged the SYN
	next        uint32   // sequence number of the next new packet
	unacked     []Data   // sent, not yet acknowledged, in sequence order
	queue       []string // accepted from the application, not yet sent
	retries     int      // SYN retransmissions so far
	peer        uint64   // the receiver's incarnation, from its first ACK
}

// inConn is the receiving half of a connection from one peer.
type inConn struct {
	id      uint64            // connection identifier (fixed variant), 0 otherwise
	isn     uint32            // the SYN packet's sequence number
	next    uint32            // next sequence number to deliver
	pending map[uint32]string // arrived out of order, waiting for next
}

// Upcalls is what the transport tells the application above it.
type Upcalls interface {
	// Deliver hands up a message from peer, in order and exactly once per
	// connection.
	Deliver(ctx *sim.Context, from sim.NodeID, msg string)
	// Error reports that the connection to peer was closed before the
	// messages unsent were acknowledged; they may or may not have arrived.
	Error(ctx *sim.Context, peer sim.NodeID, unsent []string)
}

// Transport is MaceTransport: reliable, in-order, message-oriented
// delivery with retransmission and duplicate suppression over unreliable
// datagrams. Each packet has its own sequence number; a connection opens
// with a SYN on its first data packet, without a handshake. A SYN that is
// not acknowledged after MaxRetries retransmissions abandons the
// connection attempt and reports the unsent messages to the application;
// once the peer has acknowledged the SYN, data is retransmitted until it
// is acknowledged, the peer resets the connection (Rst), or an ACK shows
// that the peer restarted.
type Transport struct {
	// Fixed attaches a monotonically increasing connection identifier
	// (seed 003 §5, MonotoneTime) to every packet, so that a receiver can
	// tell a stale SYN from a new connection.
	Fixed bool `macemc:"-"`
	// MaxRetries is the number of SYN retransmissions before giving up.
	MaxRetries int `macemc:"-"`

	inc    uint64 // this incarnation of the node, from Context.Monotone
	opened int    // connections opened so far; picks the next ISN
	out    map[sim.NodeID]*outConn
	in     map[sim.NodeID]*inConn
}

// timerName is the retransmission timer of the connection to peer.
func timerName(peer sim.NodeID) string { return "retransmit/" + strconv.Itoa(int(peer)) }

// timerPeer is the peer of a retransmission timer, or -1.
func timerPeer(name string) sim.NodeID {
	rest, ok := strings.CutPrefix(name, "retransmit/")
	if !ok {
		return -1
	}
	p, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return sim.NodeID(p)
}

// Start begins a new incarnation of the transport, at boot or after a
// reset, with no connections.
func (t *Transport) Start(ctx *sim.Context) { t.inc = ctx.Monotone() }

// InflightSize returns the number of messages the application handed to
// the transport that are not yet acknowledged (sent or waiting to be).
func (t *Transport) InflightSize() int {
	n := 0
	for _, c := range t.out {
		n += len(c.unacked) + len(c.queue)
	}
	return n
}

// Send queues msg for peer, opening a connection if there is none.
func (t *Transport) Send(ctx *sim.Context, to sim.NodeID, msg string) {
	if t.out == nil {
		t.out = map[sim.NodeID]*outConn{}
	}
	c := t.out[to]
	if c == nil {
		c = &outConn{isn: firstISN + uint32(isnSpacing*t.opened)}
		c.next = c.isn
		if t.Fixed {
			c.id = ctx.Monotone()
		}
		t.opened++
		t.out[to] = c
		ctx.Log().Uint32("isn", c.isn).Uint64("conn", c.id).Int("to", int(to)).Msg("open connection")
	}
	c.queue = append(c.queue, msg)
	t.pump(ctx, to, c)
}

// pump sends what the connection may send now: the SYN packet alone until
// the peer acknowledges it, then up to window packets.
func (t *Transport) pump(ctx *sim.Context, to sim.NodeID, c *outConn) {
	for len(c.queue) > 0 {
		if !c.established && c.next != c.isn {
			break // the SYN is out; wait for its ACK
		}
		if len(c.unacked) >= window {
			break
		}
		d := Data{seq: c.next, syn: c.next == c.isn, conn: c.id, msg: c.queue[0]}
		c.queue = c.queue[1:]
		c.next++
		c.unacked = append(c.unacked, d)
		ctx.SendDatagram(to, d)
	}
	if len(c.unacked) > 0 {
		ctx.SetTimer(timerName(to))
	}
}

// close drops the connection to peer and reports what was not
// acknowledged to the application.
func (t *Transport) close(ctx *sim.Context, peer sim.NodeID, c *outConn, up Upcalls) {
	delete(t.out, peer)
	ctx.CancelTimer(timerName(peer))
	unsent := make([]string, 0, len(c.unacked)+len(c.queue))
	for _, d := range c.unacked {
		unsent = append(unsent, d.msg)
	}
	unsent = append(unsent, c.queue...)
	up.Error(ctx, peer, unsent)
}

// HandleTimer runs the retransmission timer of one connection: resend the
// oldest unacknowledged packet, or abandon a connection whose SYN was
// retransmitted MaxRetries times without an answer.
func (t *Transport) HandleTimer(ctx *sim.Context, name string, up Upcalls) {
	peer := timerPeer(name)
	c := t.out[peer]
	if c == nil || len(c.unacked) == 0 {
		return
	}
	if !c.established {
		if c.retries >= t.MaxRetries {
			ctx.Log().Uint32("isn", c.isn).Msg("connection attempt timed out")
			t.close(ctx, peer, c, up)
			return
		}
		c.retries++
	}
	ctx.SendDatagram(peer, c.unacked[0])
	ctx.SetTimer(name)
}

// HandlePacket handles a datagram from peer; it reports whether it was a
// transport packet.
func (t *Transport) HandlePacket(ctx *sim.Context, from sim.NodeID, m sim.Message, up Upcalls) bool {
	switch p := m.(type) {
	case Data:
		t.recvData(ctx, from, p, up)
	case Ack:
		t.recvAck(ctx, from, p, up)
	case Rst:
		t.recvRst(ctx, from, p, up)
	default:
		return false
	}
	return true
}

func (t *Transport) recvAck(ctx *sim.Context, from sim.NodeID, a Ack, up Upcalls) {
	c := t.out[from]
	if c == nil || len(c.unacked) == 0 {
		return
	}
	switch {
	case c.peer != 0 && a.inc > c.peer:
		// The receiver reset since it acknowledged our SYN: whatever it
		// acknowledges now, it has lost what it acknowledged before.
		ctx.Log().Uint32("isn", c.isn).Msg("receiver restarted")
		t.close(ctx, from, c, up)
		return
	case a.inc < c.peer:
		return // from an incarnation of the receiver that is gone
	}
	if t.Fixed && a.conn != c.id {
		return // for another connection
	}
	if a.seq < c.unacked[0].seq || a.seq >= c.next {
		return // old, duplicate, or not of this connection's sequence space
	}
	n := 0
	for n < len(c.unacked) && c.unacked[n].seq <= a.seq {
		n++
	}
	if !c.established {
		c.established, c.peer = true, a.inc
		ctx.Log().Uint32("isn", c.isn).Msg("connection established")
	}
	c.unacked = slices.Delete(c.unacked, 0, n)
	ctx.CancelTimer(timerName(from))
	t.pump(ctx, from, c)
}

func (t *Transport) recvRst(ctx *sim.Context, from sim.NodeID, r Rst, up Upcalls) {
	c := t.out[from]
	if c == nil || len(c.unacked) == 0 {
		return
	}
	if t.Fixed && r.conn != c.id {
		return
	}
	if r.seq < c.unacked[0].seq || r.seq >= c.next {
		return
	}
	ctx.Log().Uint32("isn", c.isn).Msg("connection reset by peer")
	t.close(ctx, from, c, up)
}

func (t *Transport) recvData(ctx *sim.Context, from sim.NodeID, d Data, up Upcalls) {
	if t.in == nil {
		t.in = map[sim.NodeID]*inConn{}
	}
	c := t.in[from]
	if d.syn {
		switch {
		case c == nil:
			c = t.accept(ctx, from, d)
		case t.Fixed && d.conn < c.id:
			// A SYN of a connection the sender has since given up on.
			ctx.Log().Uint32("seq", d.seq).Uint64("conn", d.conn).Msg("stale SYN ignored")
			return
		case t.Fixed && d.conn > c.id, !t.Fixed && d.seq != c.isn:
			// The sender opened a new connection: the old one is gone.
			// Without connection identifiers a SYN delivered out of order
			// looks just like a new connection (seed 003 §5).
			c = t.accept(ctx, from, d)
		}
	} else {
		if c == nil || (t.Fixed && d.conn > c.id) {
			// Data of a connection this node has no state for.
			ctx.SendDatagram(from, Rst{seq: d.seq, conn: d.conn})
			return
		}
		if t.Fixed && d.conn < c.id {
			return // data of a connection the sender has since replaced
		}
	}
	switch {
	case d.seq == c.next:
		up.Deliver(ctx, from, d.msg)
		c.next++
		for {
			msg, ok := c.pending[c.next]
			if !ok {
				break
			}
			delete(c.pending, c.next)
			up.Deliver(ctx, from, msg)
			c.next++
		}
	case d.seq > c.next && d.seq < c.next+window:
		if c.pending == nil {
			c.pending = map[uint32]string{}
		}
		c.pending[d.seq] = d.msg
	default:
		// A duplicate, or outside the window: acknowledge what we have.
	}
	ctx.SendDatagram(from, Ack{seq: c.next - 1, conn: c.id, inc: t.inc})
}

// accept opens the receiving half of a connection at a SYN packet.
func (t *Transport) accept(ctx *sim.Context, from sim.NodeID, d Data) *inConn {
	ctx.Log().Uint32("isn", d.seq).Uint64("conn", d.conn).Int("from", int(from)).Msg("accept connection")
	c := &inConn{id: d.conn, isn: d.seq, next: d.seq}
	t.in[from] = c
	return c
}
