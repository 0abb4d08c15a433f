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
//		Count int
//	}
//
//	type Ball struct{ N int }
//
//	func (p *Ping) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, Ball{N: 1}) }
//
//	func (p *Ping) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
//		b := m.(Ball)
//		p.Count = b.N
//		if b.N < 4 {
//			ctx.Send(from, Ball{N: b.N + 1})
//		}
//	}
//
// A system says how many nodes run which service, what the test driver
// injects, which properties must hold and which failures may happen, and is
// registered so that the command line (and mdb) find it by name:
//
//	func init() {
//		sim.Register(&sim.System{
//			Name:   "pingpong",
//			Params: []sim.ParamSpec{{Name: "fixed", Kind: sim.ParamBool, Default: "false"}},
//			Build: func(p sim.Params) (*sim.Config, error) {
//				return &sim.Config{
//					Nodes:   2,
//					Service: func(sim.NodeID) sim.Service { return &Ping{} },
//					App: func(id sim.NodeID) []any {
//						if id == 0 {
//							return []any{"serve"}
//						}
//						return nil
//					},
//					Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
//						return sim.All(v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 })
//					}}},
//					Failures: sim.Failures{Resets: 1},
//				}, nil
//			},
//		})
//	}
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
// Context.SendDatagram is unreliable: datagrams may be reordered and dropped
// as Config.Failures allows. A node reset replaces the node's struct with a
// fresh one from Config.Service and runs Start; messages already in flight
// to or from it stay deliverable, as in a real network. Timers are logical:
// a set timer is a pending event that may fire at any later step.
// Context.Rand and Context.Elapsed are choice points: the checker explores
// their answers. A handler must not keep the Context, start goroutines, read
// the clock or use a global random source, and must not let map iteration
// order decide anything: the checker replays every violation and reports a
// service whose replays diverge.
//
// # Properties and state
//
// Safety properties must hold in every state; liveness properties must hold
// again and again (a state is live when all of them hold). Node, Nodes, All
// and Count give a property typed access to the nodes' structs. The global
// state the checker hashes and diffs is every node's struct (unexported
// fields included, maps in key order, pointers followed) plus everything
// pending in the network; tag a field `macemc:"-"` to leave it out, or
// implement Canonicalizer.
package sim
