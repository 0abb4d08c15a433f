package chord

import "github.com/macemc/macemc/sim"

// Status is where a node is in its life: down (booted, not in the ring),
// joining (looking up its successor) or joined.
type Status int

// The states of a node.
const (
	// Down is the state of a node that booted, or rebooted after a reset,
	// and has not joined the ring yet.
	Down Status = iota
	// Joining is the state of a node whose lookup of its own successor is
	// under way.
	Joining
	// Joined is the state of a node that is part of the ring.
	Joined
)

var statusNames = [...]string{"down", "joining", "joined"}

// String returns "down", "joining" or "joined".
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status?"
}

// Timer names.
const (
	// TimerJoin retries the join lookup until an answer arrives.
	TimerJoin = "join"
	// TimerStabilize is Chord's periodic stabilization.
	TimerStabilize = "stabilize"
)

// Join is the application's request to join the ring through Bootstrap.
// The node whose bootstrap is itself creates the ring.
type Join struct{ Bootstrap sim.NodeID }

// FindSucc asks for the successor of Key on behalf of Origin, a joining
// node. It travels along successor pointers until it reaches the node
// whose arc (self, successor] holds Key; that node answers Origin.
type FindSucc struct {
	Key    ID
	Origin Ref
}

// FindSuccReply answers a FindSucc: the key falls between Pred and Succ.
type FindSuccReply struct{ Pred, Succ Ref }

// GetPred is stabilization's probe: the sender believes the receiver is
// its successor and asks for the receiver's predecessor.
type GetPred struct{}

// PredReply answers GetPred with the sender's predecessor.
type PredReply struct{ Pred Ref }

// Notify tells the receiver that the sender believes it is the receiver's
// predecessor.
type Notify struct{}

// Chord is one node of the ring (see the package documentation). A ring
// of one node has Pred == Succ == Self.
type Chord struct {
	sim.Base
	// Fixed applies the fix: every message from a node updates both
	// neighbours (see learn).
	Fixed bool `macemc:"-"`

	Self      Ref
	Status    Status
	Bootstrap sim.NodeID
	Pred      Ref
	Succ      Ref
}

// Start implements sim.Service: a booted node is down and alone.
func (c *Chord) Start(ctx *sim.Context) {
	c.Self = RefOf(ctx.Self())
	c.Pred, c.Succ = c.Self, c.Self
	c.Status = Down
}

// HandleApp implements sim.Service: the driver asks the node to join.
func (c *Chord) HandleApp(ctx *sim.Context, req any) {
	j, ok := req.(Join)
	if !ok || c.Status != Down {
		return
	}
	c.Bootstrap = j.Bootstrap
	if j.Bootstrap == c.Self.Addr {
		c.Status = Joined
		c.Pred, c.Succ = c.Self, c.Self
		ctx.SetPeriodic(TimerStabilize)
		ctx.Log().Msg("created the ring")
		return
	}
	c.Status = Joining
	c.lookupSelf(ctx)
}

// lookupSelf sends the join lookup to the bootstrap and arms the retry.
func (c *Chord) lookupSelf(ctx *sim.Context) {
	ctx.Send(c.Bootstrap, FindSucc{Key: c.Self.ID, Origin: c.Self})
	ctx.SetTimer(TimerJoin)
}

// HandleTimer implements sim.Service.
func (c *Chord) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case TimerJoin:
		if c.Status == Joining {
			c.lookupSelf(ctx)
		}
	case TimerStabilize:
		c.stabilize(ctx)
	}
}

// stabilize asks the successor for its predecessor.
func (c *Chord) stabilize(ctx *sim.Context) {
	if c.Status != Joined || c.Succ == c.Self {
		// A one-node ring has no successor to ask.
		return
	}
	ctx.Send(c.Succ.Addr, GetPred{})
}

// HandleMessage implements sim.Service.
func (c *Chord) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	switch m := msg.(type) {
	case FindSucc:
		c.handleFindSucc(ctx, m)
	case FindSuccReply:
		c.handleFindSuccReply(ctx, m)
	case GetPred:
		c.handleGetPred(ctx, from)
	case PredReply:
		c.handlePredReply(ctx, from, m)
	case Notify:
		c.handleNotify(ctx, from)
	}
}

// alone reports whether the node is a one-node ring. The buggy code tests
// only the predecessor; SuccPred is the invariant that makes that enough.
func (c *Chord) alone() bool { return c.Pred == c.Self }

func (c *Chord) handleFindSucc(ctx *sim.Context, m FindSucc) {
	if c.Status != Joined {
		// Not in the ring: we cannot route. The joiner retries.
		ctx.Log().Int("origin", int(m.Origin.Addr)).Msg("not joined: dropping lookup")
		return
	}
	if betweenIncl(m.Key, c.Self.ID, c.Succ.ID) {
		ctx.Send(m.Origin.Addr, FindSuccReply{Pred: c.Self, Succ: c.Succ})
		if c.alone() {
			// A one-node ring does not stabilize (it has no successor to
			// ask), so it takes its first joiner as both neighbours now.
			c.Pred, c.Succ = m.Origin, m.Origin
		}
	} else {
		ctx.Send(c.Succ.Addr, m)
	}
	if c.Fixed {
		c.learn(m.Origin)
	}
}

func (c *Chord) handleFindSuccReply(ctx *sim.Context, m FindSuccReply) {
	if c.Status != Joining {
		return // the answer to an earlier attempt
	}
	c.Pred, c.Succ = m.Pred, m.Succ
	if c.Succ == c.Self {
		// The answering node still points at our previous incarnation:
		// it is our successor until stabilization finds a better one.
		c.Succ = m.Pred
	}
	c.Status = Joined
	ctx.CancelTimer(TimerJoin)
	ctx.SetPeriodic(TimerStabilize)
	// Insert ourselves: tell the successor we are its predecessor.
	ctx.Send(c.Succ.Addr, Notify{})
}

func (c *Chord) handleGetPred(ctx *sim.Context, from sim.NodeID) {
	if c.Status != Joined {
		return
	}
	if c.Fixed {
		c.learn(RefOf(from))
	}
	ctx.Send(from, PredReply{Pred: c.Pred})
}

func (c *Chord) handlePredReply(ctx *sim.Context, from sim.NodeID, m PredReply) {
	if c.Status != Joined || from != c.Succ.Addr {
		return // stale: not our successor any more
	}
	if c.Fixed {
		c.learn(RefOf(from))
	}
	if x := m.Pred; x != c.Self && between(x.ID, c.Self.ID, c.Succ.ID) {
		c.Succ = x
	}
	ctx.Send(c.Succ.Addr, Notify{})
}

func (c *Chord) handleNotify(ctx *sim.Context, from sim.NodeID) {
	if c.Status != Joined {
		return
	}
	n := RefOf(from)
	if c.Fixed {
		c.learn(n)
		return
	}
	// BUG (seed 003 §6): the revised protocol dropped the joiner's
	// notification of its predecessor and asks instead that all routing
	// state be updated on learning of a new node. This handler only
	// updates the predecessor. On a one-node ring the node now has a
	// predecessor but itself as successor; it never stabilizes (no
	// successor to ask) and no longer counts as alone, so nothing ever
	// sets its successor again.
	if c.Pred == c.Self || between(n.ID, c.Pred.ID, c.Self.ID) {
		c.Pred = n
	}
}

// learn updates the routing state on hearing from node n, as the revised
// protocol requires of every new node learnt: n becomes the successor if
// it lies between us and our successor (or we have none), and the
// predecessor if it lies between our predecessor and us (or we have none).
// Both pointers leave Self together, so SuccPred holds.
func (c *Chord) learn(n Ref) {
	if n == c.Self {
		return
	}
	if c.Succ == c.Self || between(n.ID, c.Self.ID, c.Succ.ID) {
		c.Succ = n
	}
	if c.Pred == c.Self || between(n.ID, c.Pred.ID, c.Self.ID) {
		c.Pred = n
	}
}

// HandleConnError implements sim.Service. Lost lookups are retried by the
// join timer and lost probes by the next stabilization round.
func (c *Chord) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	ctx.Log().Int("peer", int(peer)).Msg("connection broke")
}
