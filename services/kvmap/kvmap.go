package kvmap

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Put and Get are the map's operations, as clients invoke them
// (sim.Context.Invoke) and the driver hands them to clients. Put returns
// "ok", Get the key's value (0 for a key never written).
type (
	Put struct {
		Key   string
		Value int
	}
	Get struct{ Key string }
)

// Cmd is a client's operation as the replicas handle it: Seq numbers the
// client's operations.
type Cmd struct {
	Client int
	Seq    int
	Op     any
}

// Messages between clients and replicas.
type (
	// Request carries a client's operation to its home replica.
	Request struct{ Cmd Cmd }
	// Reply carries the result back to the client.
	Reply struct {
		Seq    int
		Result any
	}
	// Forward carries a write (or, in the buggy variant, nothing else)
	// from a follower to the leader; the leader replies to the client.
	Forward struct {
		Cmd  Cmd
		Node sim.NodeID // the client's node
	}
)

// Paxos messages (phase 1 once, when the leader starts; phase 2 for
// every log slot), the commit notices, and the read-index exchange of the
// fixed variant.
type (
	Prepare struct{ Ballot int }
	Promise struct {
		Ballot   int
		Accepted []Entry // the slots the acceptor accepted, with their ballots
	}
	Accept struct {
		Ballot int
		Slot   int
		Cmd    Cmd
	}
	Accepted struct {
		Ballot int
		Slot   int
	}
	Commit struct {
		Slot int
		Cmd  Cmd
	}
	ReadIndex struct {
		Cmd  Cmd
		Node sim.NodeID // the client's node
	}
	ReadIndexAck struct {
		Cmd   Cmd
		Node  sim.NodeID
		Index int // the leader's commit index: slots below it are chosen
	}
)

// Entry is an accepted log slot.
type Entry struct {
	Slot   int
	Ballot int
	Cmd    Cmd
}

// Leader is the replica that leads (a stable leader: no elections).
const Leader sim.NodeID = 0

// Replica is one replica of the map: an acceptor and a learner, and at
// node Leader the proposer too. It applies chosen commands in slot order
// to its copy of the map.
type Replica struct {
	sim.Base
	// Fixed serves reads through the read index instead of from the
	// local copy at once. Replicas is the number of replicas.
	Fixed    bool
	Replicas int

	// Acceptor: the ballot promised and the slots accepted.
	Promised    int
	AcceptedLog map[int]Entry

	// Learner: the chosen commands by slot, how many are applied (slots
	// 0..Applied-1), the map, and the clients' results to send when the
	// replica applies a slot (leader) or reads waiting for an index
	// (fixed followers).
	Chosen  map[int]Cmd
	Applied int
	KV      map[string]int
	Waiting []Waiting

	// Proposer (leader only): the ballot, whether phase 1 is done and the
	// promises counted, commands waiting for it, the next free slot, the
	// acceptances per slot, and where to reply for each slot.
	Ballot   int
	Ready    bool
	Promises int
	Queue    []Forward
	Next     int
	Acks     map[int]int
	ReplyTo  map[int]sim.NodeID
}

// Waiting is a read a follower answers once it applied slot Index.
type Waiting struct {
	Cmd   Cmd
	Node  sim.NodeID
	Index int
}

func (r *Replica) init() {
	r.AcceptedLog, r.Chosen, r.KV = map[int]Entry{}, map[int]Cmd{}, map[string]int{}
	r.Acks, r.ReplyTo = map[int]int{}, map[int]sim.NodeID{}
}

// majority is the number of replicas that make a quorum.
func (r *Replica) majority() int { return r.Replicas/2 + 1 }

// Start runs phase 1 at the leader: the leader is ready once a majority
// promised its ballot.
func (r *Replica) Start(ctx *sim.Context) {
	r.init()
	if ctx.Self() != Leader {
		return
	}
	r.Ballot, r.Promised, r.Promises = 1, 1, 1
	for i := range r.Replicas {
		if id := sim.NodeID(i); id != Leader {
			ctx.Send(id, Prepare{Ballot: r.Ballot})
		}
	}
}

// HandleMessage runs the protocol.
func (r *Replica) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Request:
		r.request(ctx, from, m.Cmd)
	case Forward:
		r.propose(ctx, m)
	case Prepare:
		if m.Ballot >= r.Promised {
			r.Promised = m.Ballot
			var acc []Entry
			for s := 0; s <= maxSlot(r.AcceptedLog); s++ {
				if e, ok := r.AcceptedLog[s]; ok {
					acc = append(acc, e)
				}
			}
			ctx.Send(from, Promise{Ballot: m.Ballot, Accepted: acc})
		}
	case Promise:
		r.promise(ctx, m)
	case Accept:
		if m.Ballot >= r.Promised {
			r.Promised = m.Ballot
			r.AcceptedLog[m.Slot] = Entry{Slot: m.Slot, Ballot: m.Ballot, Cmd: m.Cmd}
			ctx.Send(from, Accepted{Ballot: m.Ballot, Slot: m.Slot})
		}
	case Accepted:
		if m.Ballot != r.Ballot {
			return
		}
		r.Acks[m.Slot]++
		if r.Acks[m.Slot] == r.majority() {
			r.choose(ctx, m.Slot, r.AcceptedLog[m.Slot].Cmd)
		}
	case Commit:
		r.learn(ctx, m.Slot, m.Cmd)
	case ReadIndex:
		// The leader applies a slot as soon as it is chosen: what it
		// applied is its commit index.
		ctx.Send(from, ReadIndexAck{Cmd: m.Cmd, Node: m.Node, Index: r.Applied})
	case ReadIndexAck:
		r.Waiting = append(r.Waiting, Waiting{Cmd: m.Cmd, Node: m.Node, Index: m.Index})
		r.serveReads(ctx)
	}
}

// request handles a client's operation at its home replica.
func (r *Replica) request(ctx *sim.Context, client sim.NodeID, cmd Cmd) {
	switch op := cmd.Op.(type) {
	case Get:
		switch {
		case !r.Fixed || ctx.Self() == Leader:
			// The buggy variant answers from the local copy, which may
			// lag behind what the leader already acknowledged. The leader
			// applies a slot before it acknowledges it, so its copy does
			// not lag.
			ctx.Send(client, Reply{Seq: cmd.Seq, Result: r.KV[op.Key]})
		default:
			ctx.Send(Leader, ReadIndex{Cmd: cmd, Node: client})
		}
	case Put:
		if ctx.Self() == Leader {
			r.propose(ctx, Forward{Cmd: cmd, Node: client})
			return
		}
		ctx.Send(Leader, Forward{Cmd: cmd, Node: client})
	default:
		panic(fmt.Sprintf("kvmap: request %T, not Put or Get", cmd.Op))
	}
}

// promise counts a promise; with a majority the leader re-proposes what
// acceptors accepted under earlier ballots (none, with one leader) and
// proposes the queued commands.
func (r *Replica) promise(ctx *sim.Context, m Promise) {
	if m.Ballot != r.Ballot || r.Ready {
		return
	}
	for _, e := range m.Accepted {
		if old, ok := r.AcceptedLog[e.Slot]; !ok || old.Ballot < e.Ballot {
			r.AcceptedLog[e.Slot] = e
		}
	}
	r.Promises++
	if r.Promises < r.majority() {
		return
	}
	r.Ready = true
	for s := 0; s <= maxSlot(r.AcceptedLog); s++ {
		if e, ok := r.AcceptedLog[s]; ok {
			r.Next = s + 1
			r.send(ctx, e.Slot, e.Cmd)
		}
	}
	q := r.Queue
	r.Queue = nil
	for _, f := range q {
		r.propose(ctx, f)
	}
}

// maxSlot returns the highest slot in log, or -1.
func maxSlot(log map[int]Entry) int {
	m := -1
	for s := range log {
		m = max(m, s)
	}
	return m
}

// propose puts a command into the next free slot (leader).
func (r *Replica) propose(ctx *sim.Context, f Forward) {
	if !r.Ready {
		r.Queue = append(r.Queue, f)
		return
	}
	slot := r.Next
	r.Next++
	r.ReplyTo[slot] = f.Node
	r.send(ctx, slot, f.Cmd)
}

// send runs phase 2 for slot: the leader accepts it itself and asks the
// other acceptors.
func (r *Replica) send(ctx *sim.Context, slot int, cmd Cmd) {
	r.AcceptedLog[slot] = Entry{Slot: slot, Ballot: r.Ballot, Cmd: cmd}
	r.Acks[slot] = 1
	for i := range r.Replicas {
		if id := sim.NodeID(i); id != Leader {
			ctx.Send(id, Accept{Ballot: r.Ballot, Slot: slot, Cmd: cmd})
		}
	}
}

// choose records that slot is chosen (leader): it tells the followers and
// learns it itself.
func (r *Replica) choose(ctx *sim.Context, slot int, cmd Cmd) {
	for i := range r.Replicas {
		if id := sim.NodeID(i); id != Leader {
			ctx.Send(id, Commit{Slot: slot, Cmd: cmd})
		}
	}
	r.learn(ctx, slot, cmd)
}

// learn records a chosen slot and applies every slot it can, in order.
// The leader replies to the client of each write it applies.
func (r *Replica) learn(ctx *sim.Context, slot int, cmd Cmd) {
	r.Chosen[slot] = cmd
	for {
		c, ok := r.Chosen[r.Applied]
		if !ok {
			break
		}
		var result any = "ok"
		switch op := c.Op.(type) {
		case Put:
			r.KV[op.Key] = op.Value
		case Get:
			result = r.KV[op.Key]
		}
		if to, ok := r.ReplyTo[r.Applied]; ok && ctx.Self() == Leader {
			ctx.Send(to, Reply{Seq: c.Seq, Result: result})
			delete(r.ReplyTo, r.Applied)
		}
		r.Applied++
	}
	r.serveReads(ctx)
}

// serveReads answers the reads whose index the replica has applied
// (fixed variant).
func (r *Replica) serveReads(ctx *sim.Context) {
	keep := r.Waiting[:0]
	for _, w := range r.Waiting {
		if r.Applied < w.Index {
			keep = append(keep, w)
			continue
		}
		ctx.Send(w.Node, Reply{Seq: w.Cmd.Seq, Result: r.KV[w.Cmd.Op.(Get).Key]})
	}
	r.Waiting = keep
}

// Client performs the driver's operations one at a time through its home
// replica, recording them in the history.
type Client struct {
	sim.Base
	ID    int
	Home  sim.NodeID
	Seq   int
	Busy  bool
	Queue []any
}

// HandleApp starts an operation, or queues it behind the pending one.
func (c *Client) HandleApp(ctx *sim.Context, op any) {
	if c.Busy {
		c.Queue = append(c.Queue, op)
		return
	}
	c.start(ctx, op)
}

func (c *Client) start(ctx *sim.Context, op any) {
	ctx.Invoke(c.ID, op)
	c.Seq++
	c.Busy = true
	ctx.Send(c.Home, Request{Cmd: Cmd{Client: c.ID, Seq: c.Seq, Op: op}})
}

// HandleMessage returns the pending operation's result.
func (c *Client) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	rep, ok := m.(Reply)
	if !ok || !c.Busy || rep.Seq != c.Seq {
		return
	}
	ctx.Return(c.ID, rep.Result)
	c.Busy = false
	if len(c.Queue) > 0 {
		next := c.Queue[0]
		c.Queue = c.Queue[1:]
		c.start(ctx, next)
	}
}
