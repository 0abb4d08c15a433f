package randtree

import (
	"slices"

	"github.com/macemc/macemc/sim"
)

// JoinOverlay is the application's request that the node join the tree.
// The test driver injects it at every node, again after a reset.
type JoinOverlay struct{}

// Join asks for a place in the tree for source. It goes to the bootstrap
// node, up to the root, and then down the tree at random until it reaches
// a node with room for another child.
type Join struct {
	source sim.NodeID
	id     attempt // echoed in the JoinReply
	down   bool    // the root has seen it: it is on its way down
}

// attempt identifies one join attempt of one incarnation of a node.
type attempt struct {
	inc uint64 // the joining node's incarnation
	n   int    // attempts of that incarnation so far
}

// JoinReply tells the joining node that the sender took it as a child.
type JoinReply struct {
	id   attempt // the join attempt accepted
	root sim.NodeID
}

// Remove asks the receiver to drop the sender from its children.
type Remove struct{}

// Rejoin tells a child that it is no longer part of the tree: its parent
// lost its own place (a subtree never joins itself, so following parent
// pointers cannot loop), or does not have it as a child.
type Rejoin struct{}

// Child refreshes a child's membership with its parent; a node that does
// not have the sender as a child answers Rejoin.
type Child struct{}

// state is a node's membership state.
type state uint8

const (
	stateInit    state = iota // not asked to join yet
	stateJoining              // Join sent, waiting for a JoinReply
	stateJoined               // part of the tree
)

// String returns "init", "joining" or "joined".
func (s state) String() string {
	switch s {
	case stateInit:
		return "init"
	case stateJoining:
		return "joining"
	default:
		return "joined"
	}
}

// recovery is the name of the periodic recovery timer.
const recovery = "recovery"

// none is the parent of a node without one.
const none sim.NodeID = -1

// Node is one RandTree node (seed 003 §6): a member of a random overlay
// tree whose nodes have at most MaxKids children each.
type Node struct {
	sim.Base
	// Fixed makes a node in init mode answer a JoinReply with Remove, so
	// that the sender drops it from its children (the fix of seed 003 §6).
	// The original ignored it.
	Fixed bool `macemc:"-"`
	// MaxKids is the maximum degree: children per node.
	MaxKids int `macemc:"-"`
	// Bootstrap is the node a joining node sends its Join to; the
	// bootstrap itself becomes the root.
	Bootstrap sim.NodeID `macemc:"-"`

	sess   session
	state  state
	isRoot bool
	root   sim.NodeID   // the root, as last heard
	parent sim.NodeID   // none for the root and for nodes not joined
	kids   []sim.NodeID // sorted
	joinID attempt      // current join attempt
}

// newNode returns a fresh node with the given configuration.
func newNode(fixed bool, maxKids int, bootstrap sim.NodeID) *Node {
	return &Node{Fixed: fixed, MaxKids: maxKids, Bootstrap: bootstrap, root: none, parent: none}
}

// Start opens a new incarnation of the node's connections.
func (n *Node) Start(ctx *sim.Context) { n.sess.start(ctx) }

// HandleApp joins the tree when the application asks.
func (n *Node) HandleApp(ctx *sim.Context, req any) {
	if _, ok := req.(JoinOverlay); !ok || n.state != stateInit {
		return
	}
	ctx.SetPeriodic(recovery)
	if ctx.Self() == n.Bootstrap {
		n.state, n.isRoot, n.root = stateJoined, true, ctx.Self()
		ctx.Log().Msg("root of a new tree")
		return
	}
	n.join(ctx)
}

// join starts a new join attempt.
func (n *Node) join(ctx *sim.Context) {
	n.state, n.parent = stateJoining, none
	n.joinID = attempt{inc: n.sess.inc, n: n.joinID.n + 1}
	n.sess.send(ctx, n.Bootstrap, Join{source: ctx.Self(), id: n.joinID})
}

// HandleMessage runs a frame through the node's session and hands what it
// carries to the protocol.
func (n *Node) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	f, ok := m.(Frame)
	if !ok {
		return
	}
	body, broke := n.sess.receive(ctx, from, f)
	if broke {
		n.peerFailed(ctx, from)
	}
	switch msg := body.(type) {
	case Join:
		n.handleJoin(ctx, msg)
	case JoinReply:
		n.handleJoinReply(ctx, from, msg)
	case Remove:
		if n.dropKid(from) {
			ctx.Log().Int("child", int(from)).Msg("child asked to be removed")
		}
	case Rejoin:
		if n.state == stateJoined && from == n.parent {
			ctx.Log().Int("parent", int(from)).Msg("parent says rejoin")
			n.rejoin(ctx)
		}
	case Child:
		if _, ok := slices.BinarySearch(n.kids, from); !ok {
			n.sess.send(ctx, from, Rejoin{})
		}
	}
}

// HandleConnError handles a broken connection: a child on it is dropped
// (if it is still there it will be told to rejoin when it next checks in),
// and the parent is asked over a new connection whether this node is
// still its child. The error may be about a connection older than
// messages already exchanged with the peer, so it is not taken as proof
// that the parent is gone.
func (n *Node) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	n.sess.broken(peer)
	if n.dropKid(peer) {
		ctx.Log().Int("child", int(peer)).Msg("connection to child broke")
	}
	if n.state == stateJoined && peer == n.parent {
		n.sess.send(ctx, peer, Child{})
	}
}

// peerFailed handles a peer that lost its state (it reset): drop it if it
// was a child, rejoin if it was the parent.
func (n *Node) peerFailed(ctx *sim.Context, peer sim.NodeID) {
	if n.dropKid(peer) {
		ctx.Log().Int("child", int(peer)).Msg("child failed")
	}
	if n.state == stateJoined && peer == n.parent {
		ctx.Log().Int("parent", int(peer)).Msg("parent failed, rejoining")
		n.rejoin(ctx)
	}
}

// rejoin leaves the tree with the whole subtree and joins again.
func (n *Node) rejoin(ctx *sim.Context) {
	for _, k := range n.kids {
		n.sess.send(ctx, k, Rejoin{})
	}
	n.kids = nil
	n.join(ctx)
}

func (n *Node) handleJoin(ctx *sim.Context, j Join) {
	self := ctx.Self()
	if n.state != stateJoined || j.source == self {
		return // not in the tree (yet): the joining node will try again
	}
	if !n.isRoot && !j.down {
		n.sess.send(ctx, n.root, j) // up to the root first
		return
	}
	j.down = true
	if _, ok := slices.BinarySearch(n.kids, j.source); ok {
		// Already our child: the JoinReply is on its way or has arrived,
		// since the connection to it has not broken.
		return
	}
	if len(n.kids) < n.MaxKids {
		n.addKid(j.source)
		ctx.Log().Int("child", int(j.source)).Msg("accept child")
		n.sess.send(ctx, j.source, JoinReply{id: j.id, root: n.root})
		return
	}
	var next []sim.NodeID
	for _, k := range n.kids {
		if k != j.source {
			next = append(next, k)
		}
	}
	if len(next) == 0 {
		return
	}
	n.sess.send(ctx, next[ctx.Rand(len(next))], j)
}

func (n *Node) handleJoinReply(ctx *sim.Context, from sim.NodeID, r JoinReply) {
	switch n.state {
	case stateInit:
		// A reply to a Join of this node's previous incarnation.
		if n.Fixed {
			n.sess.send(ctx, from, Remove{})
		}
	case stateJoining:
		if r.id != n.joinID {
			n.sess.send(ctx, from, Remove{}) // accepts a Join we no longer make
			return
		}
		n.state, n.parent, n.root = stateJoined, from, r.root
		ctx.Log().Int("parent", int(from)).Msg("joined")
	case stateJoined:
		if from != n.parent {
			n.sess.send(ctx, from, Remove{}) // a second parent accepted a retry
		}
	}
}

// HandleTimer runs the periodic recovery: a joining node retries its
// Join; a joined one refreshes its membership with its parent and keeps
// its connections to its children alive, which is how it learns that one
// of them reset.
func (n *Node) HandleTimer(ctx *sim.Context, name string) {
	if name != recovery {
		return
	}
	switch n.state {
	case stateJoining:
		n.sess.send(ctx, n.Bootstrap, Join{source: ctx.Self(), id: n.joinID})
	case stateJoined:
		if n.parent != none {
			n.sess.send(ctx, n.parent, Child{})
		}
		for _, k := range n.kids {
			n.sess.send(ctx, k, Keepalive{})
		}
	}
}

func (n *Node) addKid(k sim.NodeID) {
	if i, ok := slices.BinarySearch(n.kids, k); !ok {
		n.kids = slices.Insert(n.kids, i, k)
	}
}

func (n *Node) dropKid(k sim.NodeID) bool {
	i, ok := slices.BinarySearch(n.kids, k)
	if ok {
		n.kids = slices.Delete(n.kids, i, i+1)
	}
	return ok
}
