package scheduler

import "github.com/macemc/macemc/sim"

// Produce is the test driver's request to the server: make one resource.
type Produce struct{}

// Run is the test driver's request to the client: start consuming.
type Run struct{}

// Take asks the server for a resource.
type Take struct{}

// Item hands the client a resource.
type Item struct{}

// Empty tells the client no resource is available.
type Empty struct{}

// Sleeping tells the server the client is going to sleep until woken.
type Sleeping struct{}

// Wakeup wakes a sleeping client: a resource is available.
type Wakeup struct{}

// Server produces resources and hands them out. A client that found none
// and went to sleep is on the wait queue; producing a resource wakes it.
type Server struct {
	sim.Base
	// Client is the consuming client's node.
	Client sim.NodeID
	// Recheck is the fix: when the client announces it is going to
	// sleep, check again whether a resource is available.
	Recheck bool
	// Available is the number of resources not handed out.
	Available int
	// Produced is the number of resources made so far.
	Produced int
	// ClientWaiting is set while the client sleeps on the wait queue.
	ClientWaiting bool
}

// HandleApp makes a resource and wakes the client if it waits for one.
func (s *Server) HandleApp(ctx *sim.Context, req any) {
	if _, ok := req.(Produce); !ok {
		return
	}
	s.Produced++
	s.Available++
	if s.ClientWaiting {
		s.ClientWaiting = false
		ctx.Send(s.Client, Wakeup{})
	}
}

// HandleMessage hands out resources and queues a sleeping client.
func (s *Server) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Take:
		if s.Available > 0 {
			s.Available--
			ctx.Send(from, Item{})
			return
		}
		ctx.Send(from, Empty{})
	case Sleeping:
		if s.Recheck && s.Available > 0 {
			ctx.Send(from, Wakeup{})
			return
		}
		ctx.Log().Int("available", s.Available).Msg("client sleeps")
		s.ClientWaiting = true
	}
}

// State is where the client is.
type State uint8

// The client's states.
const (
	// Idle: not started.
	Idle State = iota
	// Requesting: a Take is on its way.
	Requesting
	// Asleep: found nothing, waits for Wakeup.
	Asleep
	// Done: consumed everything it wanted.
	Done
)

var stateNames = [...]string{"idle", "requesting", "asleep", "done"}

// String returns the state's name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state?"
}

// Client consumes Want resources one at a time; when none is available it
// tells the server it goes to sleep, and sleeps until woken.
type Client struct {
	sim.Base
	// Server is the server's node.
	Server sim.NodeID
	// Want is the number of resources to consume.
	Want int
	// Consumed is the number consumed so far.
	Consumed int
	// State is where the client is.
	State State
}

// HandleApp starts consuming.
func (c *Client) HandleApp(ctx *sim.Context, req any) {
	if _, ok := req.(Run); !ok || c.State != Idle {
		return
	}
	c.take(ctx)
}

func (c *Client) take(ctx *sim.Context) {
	c.State = Requesting
	ctx.Send(c.Server, Take{})
}

// HandleMessage consumes, goes to sleep or wakes up.
func (c *Client) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Item:
		c.Consumed++
		if c.Consumed >= c.Want {
			c.State = Done
			return
		}
		c.take(ctx)
	case Empty:
		if c.State != Requesting {
			return
		}
		c.State = Asleep
		ctx.Send(c.Server, Sleeping{})
	case Wakeup:
		if c.State == Asleep {
			c.take(ctx)
		}
	}
}
