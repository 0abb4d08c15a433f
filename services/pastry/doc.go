// Package pastry is Pastry (seed 003 §1; Rowstron and Druschel, 2001)
// reduced to its leaf sets, with node resets, and the rapid-rejoin
// liveness bug MaceMC found in it.
//
// Identifiers are 8-bit hashes of node addresses (IDOf), so a node that
// restarts rejoins with the same identifier; with the default three nodes
// the order on the circle is node 1 (99), node 2 (152), node 0 (249). A
// node's leaf set holds up to L/2 neighbours on each side: Right the
// clockwise ones, closest first (Right[0] is the successor), Left the
// counter-clockwise ones, and Leafset both, sorted by identifier; when
// all known nodes fit they are split between the sides, so every node is
// on exactly one side.
//
// A node asked to join by its application (Join) makes its first join
// attempt, like every retry, when its join timer fires. Node 0, its own
// bootstrap, starts the overlay; any other node sends a JoinRequest to
// the bootstrap. Joined nodes route a join on their leaf sets toward the
// node numerically closest to the joiner's identifier, which answers
// with its leaf set (JoinReply); the joiner builds its own leaf set from
// it and announces itself to its members (Announce). A node that is not
// joined drops join requests; the joiner retries. Every joined node
// periodically probes its leaf set members and its bootstrap (Probe,
// ProbeReply): a member answers with its leaf set, entries learnt from it
// are inserted once they answer a probe of their own, and a node that
// answers that it is not a member is dropped.
//
// # Usage
//
// The package registers the system "pastry" in init; import it for the
// side effect and look the system up by name:
//
//	import _ "github.com/macemc/macemc/services/pastry"
//
//	sys, err := sim.Lookup("pastry")
//	cfg, params, err := sys.Config(map[string]string{"fixed": "true"})
//	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed)})
//
// or from the command line:
//
//	macemc search --system pastry
//
// Every node's driver asks it once to join through node 0 (Join), and
// again after a reset.
//
// Parameters:
//
//   - nodes (int, 3): number of nodes; node 0 starts the overlay.
//   - fixed (bool, false): apply the fix below.
//   - leafset (int, 2): leaf set size L, even; L/2 neighbours per side.
//   - resets (int, 1): node resets per execution; the bug needs one.
//   - breaks (int, 0): connection breaks per execution.
//
// Properties (seed 003 Table 1):
//
//   - AllNodes (liveness): following successor pointers (the right
//     neighbour) from any node reaches all nodes.
//   - SizeMatch (safety): for every node, len(Right) + len(Left) ==
//     len(Leafset). It holds in both variants: the bug is a pure liveness
//     bug, as all of Pastry's in seed 003 Table 2.
//
// # The bug
//
// With fixed=false a node that restarts and rejoins quickly with the same
// identifier never gets back in: its join requests are forwarded to an
// unjoined node, itself (seed 003 §1). In the test's rejoinScenario nodes
// 2 and 1 join (the overlay is live after 14 steps), node 2 resets and
// its application asks it to rejoin. Nodes 0 and 1 still list node 2's
// previous incarnation. The critical transition (step 17) is node 2's
// join timer firing: its first attempt makes it a joining node. Before
// it, node 2 is idle and answers probes "not a member", so if nodes 0 and
// 1 probe it first they drop the stale entry and its join reaches a
// joined node (the slow rejoin). After it, node 2 answers probes as a
// member, because a joining node does so in the buggy code to keep its
// place while its join completes; the stale entries are never dropped,
// and every request for node 2's identifier is routed to the node
// closest to it, node 2, which is not joined and drops it. Joins of other
// nodes whose route passes by node 2 are lost the same way.
//
// # The fix
//
// With fixed=true, judged from the protocol: a join request for a node
// means that node is not in the overlay, so every node it passes drops
// any entry with the joiner's identifier before routing it (the entry is
// a previous incarnation), and only joined nodes answer probes as
// members, so joining nodes are not kept in leaf sets and joins are only
// routed through joined nodes.
package pastry
