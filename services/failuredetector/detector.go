package failuredetector

import (
	"slices"

	"github.com/macemc/macemc/sim"
)

// roundTimer drives the failure detector's periodic ping rounds.
const roundTimer = "round"

// Ping asks a daemon whether it is alive.
type Ping struct{}

// Pong answers a Ping.
type Pong struct{}

// RegisterClient subscribes the sender to failure notifications.
type RegisterClient struct{}

// NodesDown tells a client that the detector declared Nodes failed.
type NodesDown struct{ Nodes []sim.NodeID }

// Halt makes a daemon stop, for good.
type Halt struct{}

// Register is the driver's request to the client: subscribe to the
// failure detector.
type Register struct{}

// Kill is the driver's request to the client: halt one daemon.
type Kill struct{}

// FailureDetector pings the daemons it monitors every round; a daemon that
// has not answered for Attempts rounds is declared failed, dropped from
// monitoring, and reported to every registered client.
type FailureDetector struct {
	sim.Base
	// Attempts is the number of unanswered rounds after which a daemon
	// is declared failed.
	Attempts int
	// SendHistory is the fix: a newly registered client is told about
	// the failures declared before it registered.
	SendHistory bool
	// Clients are the registered clients, sorted.
	Clients []sim.NodeID
	// Alive are the daemons still monitored, sorted.
	Alive []sim.NodeID
	// Awaiting are the daemons pinged in the last round that have not
	// answered, sorted.
	Awaiting []sim.NodeID
	// Misses counts each daemon's consecutive unanswered rounds.
	Misses map[sim.NodeID]int
	// Down are the daemons declared failed, in order.
	Down []sim.NodeID
}

// Start schedules the ping rounds.
func (d *FailureDetector) Start(ctx *sim.Context) { ctx.SetPeriodic(roundTimer) }

// HandleTimer runs one round: declare the daemons that missed too many
// rounds, then ping the others.
func (d *FailureDetector) HandleTimer(ctx *sim.Context, name string) {
	if name != roundTimer {
		return
	}
	for _, n := range slices.Clone(d.Alive) {
		if !slices.Contains(d.Awaiting, n) {
			continue
		}
		d.Misses[n]++
		if d.Misses[n] >= d.Attempts {
			d.declare(ctx, n)
		}
	}
	d.Awaiting = slices.Clone(d.Alive)
	for _, n := range d.Alive {
		ctx.Send(n, Ping{})
	}
	if len(d.Alive) == 0 {
		ctx.CancelTimer(roundTimer)
	}
}

// declare drops daemon n from monitoring and tells the clients.
func (d *FailureDetector) declare(ctx *sim.Context, n sim.NodeID) {
	ctx.Log().Int("daemon", int(n)).Int("clients", len(d.Clients)).Msg("declaring daemon failed")
	d.Alive = remove(d.Alive, n)
	delete(d.Misses, n)
	d.Down = append(d.Down, n)
	for _, c := range d.Clients {
		ctx.Send(c, NodesDown{Nodes: []sim.NodeID{n}})
	}
}

// HandleMessage takes Pongs and client registrations.
func (d *FailureDetector) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Pong:
		d.Awaiting = remove(d.Awaiting, from)
		delete(d.Misses, from)
	case RegisterClient:
		if _, ok := slices.BinarySearch(d.Clients, from); ok {
			return
		}
		d.Clients = insert(d.Clients, from)
		if d.SendHistory && len(d.Down) > 0 {
			ctx.Send(from, NodesDown{Nodes: slices.Clone(d.Down)})
		}
	}
}

// Daemon is a monitored process: it answers pings until it halts.
type Daemon struct {
	sim.Base
	// Halted is set when the daemon stops.
	Halted bool
}

// HandleMessage answers a Ping, or halts.
func (n *Daemon) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if n.Halted {
		return
	}
	switch m.(type) {
	case Ping:
		ctx.Send(from, Pong{})
	case Halt:
		ctx.Log().Msg("halting")
		n.Halted = true
	}
}

// Client registers with the failure detector and keeps the set of failed
// daemons it is told about. It is also the test driver (seed 000 A.3):
// it halts daemons.
type Client struct {
	sim.Base
	// Detector is the failure detector's node.
	Detector sim.NodeID
	// Daemons are the daemons it may halt.
	Daemons []sim.NodeID
	// Killed are the daemons it halted, in order.
	Killed []sim.NodeID
	// Down are the failed daemons it was told about, sorted.
	Down []sim.NodeID
}

// HandleApp registers with the detector or halts a daemon chosen among
// those still running.
func (c *Client) HandleApp(ctx *sim.Context, req any) {
	switch req.(type) {
	case Register:
		ctx.Send(c.Detector, RegisterClient{})
	case Kill:
		var running []sim.NodeID
		for _, n := range c.Daemons {
			if !slices.Contains(c.Killed, n) {
				running = append(running, n)
			}
		}
		if len(running) == 0 {
			return
		}
		v := running[ctx.Rand(len(running))]
		c.Killed = append(c.Killed, v)
		ctx.Send(v, Halt{})
	}
}

// HandleMessage records failure notifications.
func (c *Client) HandleMessage(_ *sim.Context, _ sim.NodeID, m sim.Message) {
	if m, ok := m.(NodesDown); ok {
		for _, n := range m.Nodes {
			c.Down = insert(c.Down, n)
		}
	}
}

// Knows reports whether the client was told that daemon n failed.
func (c *Client) Knows(n sim.NodeID) bool {
	_, ok := slices.BinarySearch(c.Down, n)
	return ok
}

func insert(s []sim.NodeID, x sim.NodeID) []sim.NodeID {
	i, ok := slices.BinarySearch(s, x)
	if ok {
		return s
	}
	return slices.Insert(s, i, x)
}

func remove(s []sim.NodeID, x sim.NodeID) []sim.NodeID {
	if i, ok := slices.BinarySearch(s, x); ok {
		return slices.Delete(s, i, i+1)
	}
	return s
}
