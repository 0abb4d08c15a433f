package sim

// NodeID names a node of a simulated system: 0, 1, ... Config.Nodes-1.
type NodeID int

// Message is a value one node sends another. Use plain value types (structs
// of scalars, strings, slices): a message must not be changed after it is
// sent, because the simulator keeps it, hashes it and may copy it.
type Message any

// Service is the code one node runs: an ordinary Go struct whose methods
// handle events. Handlers are atomic: each runs to completion, and every
// effect it has on the world (sending, timers, random numbers, time,
// logging) goes through the Context it is handed. A handler may keep the
// Context for its node's later handlers (see Context), but must not use it
// elsewhere, start goroutines, read the clock or use a global random
// source; the simulator owns all of those so that executions replay exactly.
//
// Embed Base to get no-op handlers and override only what the node needs.
type Service interface {
	// Start runs when the node first boots and again after every reset,
	// on a freshly constructed struct.
	Start(ctx *Context)
	// HandleMessage runs when a message from another node is delivered,
	// over a reliable connection or as a datagram.
	HandleMessage(ctx *Context, from NodeID, msg Message)
	// HandleTimer runs when a timer set with Context.SetTimer or
	// Context.SetPeriodic fires.
	HandleTimer(ctx *Context, timer string)
	// HandleConnError runs when the reliable connection to peer broke; the
	// messages that were in flight on it, in either direction, are lost.
	HandleConnError(ctx *Context, peer NodeID)
	// HandleApp runs when the test driver injects an application request.
	HandleApp(ctx *Context, req any)
}

// Base implements every Service handler as a no-op. Embed it in a service
// struct and override the handlers the service needs.
type Base struct{}

// Start implements Service; it does nothing.
func (Base) Start(*Context) {}

// HandleMessage implements Service; it ignores the message.
func (Base) HandleMessage(*Context, NodeID, Message) {}

// HandleTimer implements Service; it ignores the timer.
func (Base) HandleTimer(*Context, string) {}

// HandleConnError implements Service; it ignores the error.
func (Base) HandleConnError(*Context, NodeID) {}

// HandleApp implements Service; it ignores the request.
func (Base) HandleApp(*Context, any) {}

// Durable is implemented by a service whose node keeps part of its state
// across a reset, as a real server keeps its disk: when the node resets,
// the simulator asks the old struct for its durable state, builds a fresh
// struct with Config.Service, hands it the durable state with Restore and
// runs Start (where Context.Restarted reports true). Everything else is
// lost. Keep the durable state in a value of its own (a pointer to a
// struct, a storage object) that the service reaches; it is part of the
// node's state like the rest of the struct.
type Durable interface {
	// Durable returns the state that survives a reset.
	Durable() any
	// Restore gives a fresh struct the durable state of the node's
	// previous incarnation, before Start runs.
	Restore(durable any)
}

// Request is a driver request (an element of the slice Config.App
// returns) that becomes ready only once When holds: the driver acts later,
// when the system is ready, e.g. a put once a leader exists. Until then it
// also holds back the requests queued after it at the same node. When is
// a pure predicate over the global state, like a property, so replays and
// state hashing stay exact. HandleApp receives Req.
type Request struct {
	Req  any
	When func(v *View) bool
	// Name, when set, describes the condition in logs and event text.
	Name string
}
