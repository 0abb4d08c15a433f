// Package randtree is RandTree (seed 003 §6): a random overlay tree with
// a maximum degree, resilient to node resets, and the liveness bug MaceMC
// found in it.
//
// A node asked to join by its application sends a Join to the bootstrap
// node (node 0, which itself becomes the root). A Join that reaches a
// node other than the root goes up to the root first; from the root it
// goes down the tree, each full node passing it to a random child
// (Context.Rand), until a node with room takes the joining node as a
// child and sends it a JoinReply, which opens the connection between
// them; a node already on its child list that sends another Join is
// ignored, since its JoinReply is on the way. A joining or joined node
// answers a JoinReply it did not ask for with Remove. A periodic recovery
// timer makes a joining node retry its Join and a joined node check in
// with its parent (Child, answered by Rejoin if the parent does not have
// it as a child) and keep its connections to its children alive. A node
// that loses its parent tells its children to rejoin too, so a subtree
// never joins itself. A broken connection (HandleConnError) drops the
// child on it; a child whose connection to its parent broke checks in
// with the parent over a new connection.
//
// The simulator keeps messages to and from a node that resets
// deliverable. Frames therefore carry the incarnations of both ends (from
// Context.Monotone at Start), which gives the connections TCP's behaviour
// across a reboot: a frame sent on a connection to a previous incarnation
// of a node is answered with Rst, and a frame from a new incarnation of
// a peer ends the connection to the old one; either way the protocol
// treats the peer as failed. A frame that opens a connection (a JoinReply
// to a node not talked to before) is accepted by whichever incarnation
// receives it.
//
// # Usage
//
// The package registers the system "randtree" in init; import it for the
// side effect and look the system up by name:
//
//	import _ "github.com/macemc/macemc/services/randtree"
//
//	sys, err := sim.Lookup("randtree")
//	cfg, params, err := sys.Config(map[string]string{"fixed": "true"})
//	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed)})
//
// Every node's driver asks it to join once (JoinOverlay), and again after
// a reset.
//
// Parameters:
//
//   - nodes (int, 4): number of nodes; node 0 is the bootstrap and root.
//   - degree (int, 2): maximum number of children per node.
//   - resets (int, 1): node resets per execution.
//   - breaks (int, 0): connection breaks per execution.
//   - fixed (bool, false): apply the fix below.
//
// Properties (seed 003 Table 1 and §6):
//
//   - OneRoot (liveness): exactly one node believes it is the root.
//   - NoLoops (liveness): following parent pointers never loops.
//   - HasParent (liveness): every node is the root or has a parent.
//   - KidsMatch (liveness): a node's parent lists it as a child, and its
//     children name it as their parent.
//   - Timers (safety): every node that is up is in state init or its
//     recovery timer is scheduled (a crashed node keeps its state and
//     loses its timers).
//
// # The bug
//
// With fixed=false and the defaults: the root (full with children A and
// D) sends C's Join down to A, which takes C as a child and sends it a
// JoinReply. Before it arrives C resets. The critical transition is the
// new C, still in init mode because its application has not asked it to
// join yet, receiving the JoinReply and ignoring it without telling A.
// A takes the connection staying up as proof that C has its JoinReply and
// ignores C's later Joins (C is already its child); C joins under D, and
// A keeps C in its child set forever, so KidsMatch never holds again.
// Along the live alternative C's application asks it to join first; in
// joining mode C sees that the JoinReply answers a Join it no longer
// makes and sends A a Remove.
//
// # The fix
//
// With fixed=true a node in init mode answers a JoinReply with Remove as
// well, and A drops C.
package randtree
