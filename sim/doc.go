// Package sim is the API a macemc user writes against: services (the code
// one node runs), the systems that put nodes, a test driver and properties
// together, and the properties themselves. The simulator that runs them
// lives in package sim/engine; the checker in packages search, walks and
// critical.
//
// # Usage
//
// A node is an ordinary struct with handlers; embed Base for no-op defaults.
// Every effect a handler has goes through the Context it is handed:
//
//	type Ping struct {
//		sim.Base
//		Fixed bool // the fix (below): a node that restarts asks for a new rally
//		Count int  // the last ball this node took
//	}
//
//	type Ball struct{ N int }
//
//	type Serve struct{}
//
//	func (p *Ping) Start(ctx *sim.Context) {
//		if p.Fixed && ctx.Restarted() {
//			ctx.Send(1-ctx.Self(), Serve{})
//		}
//	}
//
//	func (p *Ping) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, Ball{N: 1}) }
//
//	func (p *Ping) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
//		switch m := m.(type) {
//		case Serve:
//			ctx.Send(from, Ball{N: 1})
//		case Ball:
//			p.Count = m.N
//			if m.N < 4 {
//				ctx.Send(from, Ball{N: m.N + 1})
//			}
//		}
//	}
//
// A system says how many nodes run which service, what the test driver
// injects, which properties must hold and which failures may happen, and is
// registered so that the command line (and mdb) find it by name:
//
//	var pingpongSystem = &sim.System{
//		Name:   "pingpong",
//		Params: []sim.ParamSpec{{Name: "fixed", Kind: sim.ParamBool, Default: "false"}},
//		Build: func(p sim.Params) (*sim.Config, error) {
//			return &sim.Config{
//				Nodes:   2,
//				Service: func(sim.NodeID) sim.Service { return &Ping{Fixed: p.Bool("fixed")} },
//				App: func(id sim.NodeID) []any {
//					if id == 0 {
//						return []any{"serve"}
//					}
//					return nil
//				},
//				Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
//					return sim.All(v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 })
//				}}},
//				Failures: sim.Failures{Resets: 1},
//			}, nil
//		},
//	}
//
//	func init() { sim.Register(pingpongSystem) }
//
// As it stands the system has a bug: a node that resets after its last
// ball starts again with Count 0 and nothing left to run, so Done never
// holds again (with seed 1 the search names node 1's reset at step 5 as
// the critical transition). With the parameter fixed=true the restarted
// node asks the other for a new rally, and the search finds nothing.
//
// Check it from a test with package search/searchtest, or from the command
// line of your own binary (package cmd/cli).
//
// # Handlers
//
// Handlers are atomic: each runs to completion, and the simulator decides
// what happens between them. Context.Send uses a reliable FIFO connection
// per ordered pair of nodes; a connection break (a failure event) loses what
// was in flight both ways and gives both ends HandleConnError.
// Context.SendDatagram is unreliable: datagrams may be reordered, dropped
// and duplicated as Config.Failures allows. A node reset replaces the
// node's struct with a fresh one from Config.Service (a Durable service
// hands its durable state over) and runs Start, where Context.Restarted
// reports true; messages already in flight to or from it stay deliverable,
// as in a real network. A crashed node stays down (View.Up). A partition
// holds reliable messages across it and loses datagrams across it until it
// heals. Timers are logical: a set timer is a pending event that may fire
// at any later step. Context.Rand and Context.Elapsed are choice points:
// the checker explores their answers. A handler may keep its Context for
// its node's later handlers, but must not use it elsewhere,
// start goroutines, read the clock or use a global random source, and must
// not let map iteration order decide anything: the checker replays every
// violation many times and reports a service whose replays differ, naming
// the node and the first field that differed, and code that acts outside
// its handlers. Context.Reader, Context.RandSource and sim.Reader
// (UseDeterministicCryptoRand) give hosted libraries deterministic random
// bytes in place of crypto/rand and math/rand.
//
// Invalid uses of the Context (a send to a node that does not exist, a nil
// message, a timer without a name, Rand(0), a negative duration) and
// panics are reported as safety violations with the handler's stack.
//
// # Driver
//
// Config.App lists each node's driver requests; a Request waits until its
// condition over the global state holds. KeepDriver keeps a node's place
// in its list across resets.
//
// # Properties and state
//
// Safety properties must hold in every state; liveness properties must hold
// again and again (a state is live when all of them hold). Node, Nodes, All
// and Count give a property typed access to the nodes' structs. The global
// state the checker hashes and diffs is every node's struct (unexported
// fields included, maps in key order, pointers followed) plus everything
// pending in the network; tag a field `macemc:"-"` to leave it out,
// implement Canonicalizer, or give a type you do not own a canonical form
// with RegisterCanonical (RegisterCanonicalFor: every type that implements
// an interface, such as a protocol library's generated messages).
//
// # Monitors
//
// A property that needs history, or that must not trust the nodes it
// checks, is a Monitor (seed 001's P# monitors): a small state machine in
// Config.Monitors that the services notify of what happens
// (Context.Notify). Its Handle returns an error for a failed assertion (a
// safety violation named after it); a LivenessMonitor's Hot makes the state
// not live while the monitor waits for progress:
//
//	type RepairChecker struct{ Pending int }
//
//	func (m *RepairChecker) Handle(ev any) error {
//		switch ev.(type) {
//		case NodeFailed:
//			m.Pending++
//		case Repaired:
//			m.Pending--
//		}
//		return nil
//	}
//
//	func (m *RepairChecker) Hot() bool { return m.Pending > 0 }
//
//	// in Build:
//	Monitors: []sim.MonitorSpec{{Name: "RepairChecker", New: func() sim.Monitor { return &RepairChecker{} }}},
//
// Monitors are part of the global state (hashed and diffed like a node,
// kept across node resets); System.Config adds their properties to Safety
// and Liveness, and MonitorOf lets a property read one.
//
// # Histories and linearizability
//
// A system that implements an object (a register, a map) can be checked
// against a plain sequential implementation of it, with no property to
// write (seed 004): its clients record each operation they invoke and the
// result they get, and Config.Model gives the sequential specification.
// The checker reports an execution whose clients' history is not
// linearizable: no order of the operations, consistent with which ones
// returned before others began, makes the model answer what the clients
// saw.
//
//	func (c *Client) HandleApp(ctx *sim.Context, op any) {
//		ctx.Invoke(c.ID, op) // e.g. Write{Value: 1}
//		ctx.Send(c.Server, Request{Op: op})
//	}
//
//	func (c *Client) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
//		ctx.Return(c.ID, m.(Reply).Result)
//	}
//
//	cfg.Model = &sim.Model{
//		Init: func() any { return 0 },
//		Apply: func(state, op any) (any, any) {
//			if w, ok := op.(Write); ok {
//				return w.Value, "ok"
//			}
//			return state, state // Read
//		},
//	}
//
// The history is part of the state the checker hashes, in a canonical form
// that keeps what linearizability depends on (the operations, their
// results and their real-time order); View.History shows it to properties.
package sim
