package pastry

import (
	"cmp"
	"slices"

	"github.com/macemc/macemc/sim"
)

// Status is where a node is in its life: idle (booted, not in the
// overlay), joining (join requests under way) or joined.
type Status int

// The states of a node.
const (
	// Idle is the state of a node that booted, or rebooted after a reset,
	// and has not started joining. A node asked to join stays idle until
	// its first join attempt (timer join).
	Idle Status = iota
	// Joining is the state of a node whose join request is under way.
	Joining
	// Joined is the state of a node that is part of the overlay.
	Joined
)

var statusNames = [...]string{"idle", "joining", "joined"}

// String returns "idle", "joining" or "joined".
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status?"
}

// Timer names.
const (
	// TimerJoin drives join attempts: the first one and every retry.
	TimerJoin = "join"
	// TimerMaintain is the periodic leaf set maintenance.
	TimerMaintain = "maintain"
)

// Join is the application's request to join the overlay through
// Bootstrap. The node whose bootstrap is itself starts the overlay.
type Join struct{ Bootstrap sim.NodeID }

// JoinRequest asks to join the overlay on behalf of Joiner. Joined nodes
// route it toward the node numerically closest to the joiner's identifier,
// which answers with a JoinReply.
type JoinRequest struct{ Joiner Handle }

// JoinReply gives a joining node the leaf set of Root, the node
// numerically closest to it.
type JoinReply struct {
	Root    Handle
	Leafset []Handle
}

// Announce tells the receiver that the sender has joined and belongs in
// its leaf set.
type Announce struct{}

// Probe is leaf set maintenance: it carries the sender's leaf set and asks
// the receiver whether it is a member of the overlay.
type Probe struct{ Leafset []Handle }

// ProbeReply answers a Probe: whether the sender is a member of the
// overlay, and if so its leaf set.
type ProbeReply struct {
	Member  bool
	Leafset []Handle
}

// Pastry is one node of the overlay (see the package documentation).
//
// The leaf set is kept as in the MACE implementation: the left and right
// halves and the set of both (Leafset, sorted by identifier), which the
// safety property SizeMatch checks against each other.
type Pastry struct {
	sim.Base
	// Fixed applies the fix (see handleJoinRequest and handleProbe).
	Fixed bool `macemc:"-"`
	// Size is the leaf set size L: L/2 nodes on each side.
	Size int `macemc:"-"`

	Self      Handle
	Status    Status
	Bootstrap sim.NodeID
	// Left holds the counter-clockwise neighbours, closest first.
	Left []Handle
	// Right holds the clockwise neighbours, closest first.
	Right []Handle
	// Leafset holds the members of both halves, sorted by identifier.
	Leafset []Handle
}

// Start implements sim.Service: a booted node is idle with an empty leaf
// set.
func (p *Pastry) Start(ctx *sim.Context) {
	p.Self = HandleOf(ctx.Self())
	p.Status = Idle
	p.Left, p.Right, p.Leafset = nil, nil, nil
}

// Successor returns the node's right neighbour, or itself if it has none.
func (p *Pastry) Successor() sim.NodeID {
	if len(p.Right) > 0 {
		return p.Right[0].Addr
	}
	return p.Self.Addr
}

// HandleApp implements sim.Service: the driver asks the node to join. The
// first attempt is made by the join timer, like the retries.
func (p *Pastry) HandleApp(ctx *sim.Context, req any) {
	j, ok := req.(Join)
	if !ok || p.Status != Idle {
		return
	}
	p.Bootstrap = j.Bootstrap
	ctx.SetTimer(TimerJoin)
}

// HandleTimer implements sim.Service.
func (p *Pastry) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case TimerJoin:
		p.attemptJoin(ctx)
	case TimerMaintain:
		p.maintain(ctx)
	}
}

func (p *Pastry) attemptJoin(ctx *sim.Context) {
	if p.Status == Joined {
		return
	}
	if p.Bootstrap == p.Self.Addr {
		p.Status = Joined
		ctx.SetPeriodic(TimerMaintain)
		ctx.Log().Msg("started the overlay")
		return
	}
	p.Status = Joining
	ctx.Send(p.Bootstrap, JoinRequest{Joiner: p.Self})
	ctx.SetTimer(TimerJoin)
}

// maintain probes every leaf set member, and the bootstrap if it is not
// one: a bootstrap that restarted and started a new overlay on its own is
// merged back this way.
func (p *Pastry) maintain(ctx *sim.Context) {
	if p.Status != Joined {
		return
	}
	for _, h := range p.Leafset {
		ctx.Send(h.Addr, Probe{Leafset: slices.Clone(p.Leafset)})
	}
	if p.Bootstrap != p.Self.Addr && !contains(p.Leafset, p.Bootstrap) {
		ctx.Send(p.Bootstrap, Probe{Leafset: slices.Clone(p.Leafset)})
	}
}

// HandleMessage implements sim.Service.
func (p *Pastry) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	switch m := msg.(type) {
	case JoinRequest:
		p.handleJoinRequest(ctx, m)
	case JoinReply:
		p.handleJoinReply(ctx, m)
	case Announce:
		if p.Status == Joined {
			p.add(HandleOf(from))
		}
	case Probe:
		p.handleProbe(ctx, from, m)
	case ProbeReply:
		p.handleProbeReply(ctx, from, m)
	}
}

func (p *Pastry) handleJoinRequest(ctx *sim.Context, m JoinRequest) {
	if p.Status != Joined {
		// Only members route: we have no overlay state. The joiner retries.
		ctx.Log().Int("joiner", int(m.Joiner.Addr)).Msg("not joined: dropping join request")
		return
	}
	if p.Fixed && contains(p.Leafset, m.Joiner.Addr) {
		// FIX, first half. A join request for a node says that node is
		// not in the overlay: a member does not join. So an entry with the
		// joiner's identifier is its previous incarnation, whose state was
		// lost when it restarted (the identifier is a hash of the address,
		// so it comes back the same). Drop it before routing: otherwise
		// the request goes to the node closest to the joiner's identifier,
		// the joiner itself, which is not joined and cannot route it.
		// Every node on the route drops its entry the same way, so the
		// first attempt reaches a joined node.
		p.remove(m.Joiner.Addr)
	}
	next := p.route(m.Joiner.ID)
	if next == p.Self {
		ctx.Send(m.Joiner.Addr, JoinReply{Root: p.Self, Leafset: slices.Clone(p.Leafset)})
		return
	}
	// BUG (seed 003 §1), when not fixed: next may be a stale entry for the
	// joiner's previous incarnation, that is, the joiner itself, not
	// joined; it drops the request, and so does every retry.
	ctx.Send(next.Addr, m)
}

// route returns the node numerically closest to key among this node and
// its leaf set (ties go to the smaller identifier).
func (p *Pastry) route(key ID) Handle {
	best := p.Self
	for _, h := range p.Leafset {
		if d := cmp.Compare(dist(h.ID, key), dist(best.ID, key)); d < 0 || d == 0 && h.ID < best.ID {
			best = h
		}
	}
	return best
}

func (p *Pastry) handleJoinReply(ctx *sim.Context, m JoinReply) {
	if p.Status != Joining {
		return // the answer to an earlier attempt
	}
	p.rebuild(append(slices.Clone(m.Leafset), m.Root))
	p.Status = Joined
	ctx.CancelTimer(TimerJoin)
	ctx.SetPeriodic(TimerMaintain)
	for _, h := range p.Leafset {
		ctx.Send(h.Addr, Announce{})
	}
}

func (p *Pastry) handleProbe(ctx *sim.Context, from sim.NodeID, m Probe) {
	switch {
	case p.Status == Joined:
		p.add(HandleOf(from))
		p.verify(ctx, m.Leafset)
		ctx.Send(from, ProbeReply{Member: true, Leafset: slices.Clone(p.Leafset)})
	case p.Status == Joining && !p.Fixed:
		// BUG (seed 003 §1): a joining node answers as a member, meant to
		// keep its place in its neighbours' leaf sets while its join
		// completes. But a joining node has no place in any leaf set yet
		// (nodes insert it when it announces itself, after it joined): an
		// entry for it there is its previous incarnation, and answering
		// keeps that entry alive for ever, so joins for its identifier
		// keep being routed to it.
		//
		// FIX, second half: only a joined node is a member. A node that
		// is not joined answers "not a member" and is dropped, so leaf
		// sets hold joined nodes only and joins are routed through joined
		// nodes only. Either half alone lets a rapid rejoin succeed; the
		// first makes it succeed at the first attempt, the second cleans
		// the leaf sets the join does not pass through.
		ctx.Send(from, ProbeReply{Member: true})
	default:
		ctx.Send(from, ProbeReply{Member: false})
	}
}

func (p *Pastry) handleProbeReply(ctx *sim.Context, from sim.NodeID, m ProbeReply) {
	if p.Status != Joined {
		return
	}
	if !m.Member {
		p.remove(from)
		return
	}
	p.add(HandleOf(from))
	p.verify(ctx, m.Leafset)
}

// verify probes the nodes of a leaf set learnt from another node that are
// not in ours but would belong there; they are inserted when they answer
// as members.
func (p *Pastry) verify(ctx *sim.Context, hs []Handle) {
	for _, h := range hs {
		if h.Addr == p.Self.Addr || contains(p.Leafset, h.Addr) {
			continue
		}
		left, right := selectLeafset(p.Self, append(slices.Clone(p.Leafset), h), p.Size)
		if contains(left, h.Addr) || contains(right, h.Addr) {
			ctx.Send(h.Addr, Probe{Leafset: slices.Clone(p.Leafset)})
		}
	}
}

// add inserts h into the leaf set if it belongs there.
func (p *Pastry) add(h Handle) {
	if h.Addr == p.Self.Addr || contains(p.Leafset, h.Addr) {
		return
	}
	p.rebuild(append(slices.Clone(p.Leafset), h))
}

// remove drops the node at addr from the leaf set.
func (p *Pastry) remove(addr sim.NodeID) {
	if !contains(p.Leafset, addr) {
		return
	}
	p.rebuild(slices.DeleteFunc(slices.Clone(p.Leafset), func(h Handle) bool { return h.Addr == addr }))
}

// rebuild recomputes both halves and the set from candidate nodes.
func (p *Pastry) rebuild(cands []Handle) {
	p.Left, p.Right = selectLeafset(p.Self, cands, p.Size)
	p.Leafset = slices.Concat(p.Left, p.Right)
	slices.SortFunc(p.Leafset, func(a, b Handle) int { return cmp.Compare(a.ID, b.ID) })
}

// HandleConnError implements sim.Service. Lost join requests are retried
// by the join timer; lost probes by the next maintenance round.
func (p *Pastry) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	ctx.Log().Int("peer", int(peer)).Msg("connection broke")
}
