package register

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Timestamp orders the register's writes: a higher Seq is newer, and the
// writer's client number breaks ties between concurrent writers.
type Timestamp struct {
	Seq    int
	Writer int
}

// Less reports whether t is older than o.
func (t Timestamp) Less(o Timestamp) bool {
	return t.Seq < o.Seq || t.Seq == o.Seq && t.Writer < o.Writer
}

// Read and Write are the register's operations, as clients invoke them
// (sim.Context.Invoke) and the driver hands them to clients. A Read
// returns the value; a Write returns "ok".
type (
	Read  struct{}
	Write struct{ Value int }
)

// Messages between clients and replicas. Op numbers a client's
// operations, so that a client ignores answers to an earlier one.
type (
	// Query asks a replica for its timestamp and value.
	Query struct{ Op int }
	// QueryAck answers a Query.
	QueryAck struct {
		Op    int
		TS    Timestamp
		Value int
	}
	// Store asks a replica to adopt a value unless it holds a newer one.
	Store struct {
		Op    int
		TS    Timestamp
		Value int
	}
	// StoreAck answers a Store.
	StoreAck struct{ Op int }
)

// Replica is one copy of the register: it keeps the newest value it was
// asked to store and answers queries.
type Replica struct {
	sim.Base
	TS    Timestamp
	Value int
}

// HandleMessage answers Query and Store.
func (r *Replica) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Query:
		ctx.Send(from, QueryAck{Op: m.Op, TS: r.TS, Value: r.Value})
	case Store:
		if r.TS.Less(m.TS) {
			r.TS, r.Value = m.TS, m.Value
		}
		ctx.Send(from, StoreAck{Op: m.Op})
	}
}

// Phase is where a client's operation is.
type Phase int

// The phases of an operation (ABD: a query round, then a store round).
const (
	Idle Phase = iota
	Querying
	Storing
)

// String returns the phase's name.
func (p Phase) String() string {
	switch p {
	case Querying:
		return "querying"
	case Storing:
		return "storing"
	}
	return "idle"
}

// Client runs the register's protocol for one client (ABD: the reader or
// writer coordinates the quorum itself). It talks to the replicas of its
// Quorum, a majority, and performs the driver's operations one at a time.
type Client struct {
	sim.Base
	// ID is the client's number in the history; Quorum the replicas it
	// talks to; Variant the protocol it runs.
	ID      int
	Quorum  []sim.NodeID
	Variant Variant
	// Queue holds operations the driver handed over while one was pending.
	Queue []any
	// The pending operation: its number, what it is, its phase, how many
	// replicas answered this phase, and the newest timestamp and value
	// the query round saw (for a write, the timestamp it stores).
	Op    int
	Cur   any
	Phase Phase
	Acks  int
	TS    Timestamp
	Value int
}

// HandleApp starts the operation, or queues it behind the pending one.
func (c *Client) HandleApp(ctx *sim.Context, req any) {
	if c.Phase != Idle {
		c.Queue = append(c.Queue, req)
		return
	}
	c.start(ctx, req)
}

func (c *Client) start(ctx *sim.Context, op any) {
	switch op.(type) {
	case Read, Write:
	default:
		panic(fmt.Sprintf("register: client %d got %T, not Read or Write", c.ID, op))
	}
	ctx.Invoke(c.ID, op)
	c.Op++
	c.Cur, c.Phase, c.Acks = op, Querying, 0
	c.TS, c.Value = Timestamp{}, 0
	for _, r := range c.Quorum {
		ctx.Send(r, Query{Op: c.Op})
	}
}

// HandleMessage collects the replicas' answers.
func (c *Client) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case QueryAck:
		if m.Op != c.Op || c.Phase != Querying {
			return
		}
		if c.Acks == 0 || c.TS.Less(m.TS) {
			c.TS, c.Value = m.TS, m.Value
		}
		c.Acks++
		if c.Acks == len(c.Quorum) {
			c.queried(ctx)
		}
	case StoreAck:
		if m.Op != c.Op || c.Phase != Storing {
			return
		}
		c.Acks++
		if c.Acks == c.storeQuorum() {
			c.done(ctx)
		}
	}
}

// queried ends the query round: a write stores its value under a newer
// timestamp; a read writes back what it saw (ABD), except in the buggy
// variant, which returns it at once.
func (c *Client) queried(ctx *sim.Context) {
	if w, ok := c.Cur.(Write); ok {
		c.TS = Timestamp{Seq: c.TS.Seq + 1, Writer: c.ID}
		c.Value = w.Value
	} else if c.Variant == Buggy {
		c.done(ctx)
		return
	}
	c.Phase, c.Acks = Storing, 0
	for _, r := range c.Quorum {
		ctx.Send(r, Store{Op: c.Op, TS: c.TS, Value: c.Value})
	}
}

// storeQuorum is how many Store acknowledgements end the store round: a
// majority, or in the noquorum variant one for a write.
func (c *Client) storeQuorum() int {
	if _, ok := c.Cur.(Write); ok && c.Variant == NoQuorum {
		return 1
	}
	return len(c.Quorum)
}

// done returns the pending operation and starts the next queued one.
func (c *Client) done(ctx *sim.Context) {
	var result any = "ok"
	if _, ok := c.Cur.(Read); ok {
		result = c.Value
	}
	ctx.Return(c.ID, result)
	c.Cur, c.Phase, c.Acks = nil, Idle, 0
	if len(c.Queue) > 0 {
		next := c.Queue[0]
		c.Queue = c.Queue[1:]
		c.start(ctx, next)
	}
}
