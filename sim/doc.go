// Package sim is macemc's deterministic network simulator and the API a
// user writes services, systems and properties against.
//
// Every source of nondeterminism — which pending event runs next, message
// and datagram order, drops, connection breaks, node resets, timers,
// random numbers and time comparisons — is a choice point answered by a
// Chooser. An execution is therefore the sequence of its choices, and
// replaying that sequence reproduces it bit for bit (seed 003 §2, §4.1).
//
// # Usage
//
// A node is an ordinary struct with handlers; embed Base for no-op defaults:
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
// injects, and which properties must hold:
//
//	sim.Register(&sim.System{
//		Name:   "pingpong",
//		Params: []sim.ParamSpec{{Name: "rounds", Kind: sim.ParamInt, Default: "4"}},
//		Build: func(p sim.Params) (*sim.Config, error) {
//			return &sim.Config{
//				Nodes:   2,
//				Service: func(sim.NodeID) sim.Service { return &Ping{} },
//				App: func(id sim.NodeID) []any {
//					if id == 0 {
//						return []any{"serve"}
//					}
//					return nil
//				},
//				Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
//					return sim.All(v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 })
//				}}},
//			}, nil
//		},
//	})
//
// The checker (packages search, walks and critical) drives a Sim: New
// builds the initial state, Step runs one chosen event, Hash returns the
// global state's hash, Clone snapshots it, and FirstViolated checks
// properties. Typed access to nodes in properties goes through Node, Nodes,
// All and Count.
//
// # Network and failures
//
// Context.Send uses a reliable FIFO connection per ordered pair of nodes;
// a connection break (a failure event) loses what was in flight both ways
// and gives both ends HandleConnError. Context.SendDatagram is unreliable:
// datagrams may be reordered and dropped as Config.Failures allows. A node
// reset replaces the node's struct with a fresh one and runs Start; messages
// already in flight to or from it stay deliverable, as in a real network.
// Failures are bounded per execution by Config.Failures.
//
// # State
//
// The global state is every node's struct (unexported fields included,
// maps in key order, pointers followed) plus all pending events. A field
// tagged `macemc:"-"` is left out; a type implementing Canonicalizer gives
// its own canonical form. FormatState and Sim.NodeText give the stable text
// form the debugger diffs.
//
// # Guards
//
// A handler that panics ends the execution with a *HandlerPanicError; Guard
// reports a handler that does not return; CheckDeterminism replays a path
// twice and names the first step where a nondeterministic service diverged.
package sim
