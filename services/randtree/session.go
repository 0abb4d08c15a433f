package randtree

import "github.com/macemc/macemc/sim"

// Frame is what travels on a connection: a message with the incarnations
// of its two ends. It stands in for the TCP connection state of the real
// RandTree (seed 003 §6): a node that resets comes back as a new
// incarnation, and frames sent on a connection to its previous incarnation
// are answered with Rst, as a rebooted host answers segments of a
// connection it no longer knows with an RST. A frame with dst 0 opens a
// connection to whichever incarnation of the peer receives it.
type Frame struct {
	src  uint64      // the sender's incarnation
	dst  uint64      // the receiver's incarnation as the sender knows it; 0 opens a connection
	body sim.Message // the tree message, or Hello, Keepalive or Rst
}

// MessageName names a frame after the message it carries, so that weights,
// logs and event searches see "JoinReply" rather than "Frame".
func (f Frame) MessageName() string { return sim.MessageName(f.body) }

// Hello answers a frame that opened a connection: it tells the opener
// which incarnation accepted it.
type Hello struct{}

// Keepalive exercises a connection; the receiving session consumes it.
type Keepalive struct{}

// Rst says the frame it answers was sent on a connection to a previous
// incarnation of the sender of the Rst: that connection is gone.
type Rst struct{}

// session is a node's connection table.
type session struct {
	inc   uint64   // this incarnation, from Context.Monotone at Start
	peers []uint64 // incarnation of each peer our connection to it is bound to; 0: none
}

func (s *session) start(ctx *sim.Context) {
	s.inc = ctx.Monotone()
	s.peers = make([]uint64, ctx.Nodes())
}

// send queues body on the connection to peer.
func (s *session) send(ctx *sim.Context, to sim.NodeID, body sim.Message) {
	ctx.Send(to, Frame{src: s.inc, dst: s.peers[to], body: body})
}

// receive processes a frame from peer. It returns the message to hand to
// the tree (nil if the session consumed the frame) and whether the
// connection to peer broke first (the tree must treat the peer as failed
// before it looks at the message).
func (s *session) receive(ctx *sim.Context, from sim.NodeID, f Frame) (body sim.Message, broke bool) {
	if _, ok := f.body.(Rst); ok {
		if f.dst == s.inc && s.peers[from] != 0 && s.peers[from] < f.src {
			// Our connection was to an incarnation that no longer exists.
			s.peers[from] = 0
			return nil, true
		}
		return nil, false
	}
	if f.dst != 0 && f.dst != s.inc {
		// Sent on a connection to a previous incarnation of this node.
		ctx.Send(from, Frame{src: s.inc, dst: f.src, body: Rst{}})
		return nil, false
	}
	switch cur := s.peers[from]; {
	case cur != 0 && f.src < cur:
		return nil, false // sent by an incarnation of the peer that is gone
	case cur != 0 && f.src > cur:
		broke = true // the peer restarted: the old connection is dead
	}
	s.peers[from] = f.src
	if f.dst == 0 {
		s.send(ctx, from, Hello{})
	}
	switch f.body.(type) {
	case Hello, Keepalive:
		return nil, broke
	}
	return f.body, broke
}

// broken forgets the connection to peer after the network broke it.
func (s *session) broken(peer sim.NodeID) { s.peers[peer] = 0 }
