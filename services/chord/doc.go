// Package chord is Chord (seed 003 §6; Stoica et al., SIGCOMM 2001 and
// ToN 2003): a ring of nodes ordered by identifier, each pointing to its
// successor and predecessor, and the liveness bug MaceMC found in it.
//
// Identifiers are 8-bit hashes of node addresses (IDOf), so a node that
// restarts keeps its identifier; with the default three nodes the ring
// order is node 1 (99), node 2 (152), node 0 (249). A node asked to join
// by its application (Join) creates the ring if it is its own bootstrap
// (node 0), and otherwise sends a lookup for its own identifier
// (FindSucc) to the bootstrap, retrying on a timer. The lookup walks
// successor pointers to the node whose arc (self, successor] holds the
// identifier, which answers with itself and its successor
// (FindSuccReply); the joining node takes them as predecessor and
// successor and notifies its successor (Notify). Stabilization, a
// periodic timer, asks the successor for its predecessor (GetPred,
// PredReply), adopts it as successor if it lies in between, and notifies
// the successor, which takes the notifier as predecessor if it lies
// between its predecessor and itself. A one-node ring has predecessor and
// successor both itself; it does not stabilize (there is no successor to
// ask), and takes the first node that looks it up as both neighbours.
// Nodes that are not in the ring drop ring traffic. Fingers are left out:
// lookups walk successor pointers.
//
// # Usage
//
// The package registers the system "chord" in init; import it for the
// side effect and look the system up by name:
//
//	import _ "github.com/macemc/macemc/services/chord"
//
//	sys, err := sim.Lookup("chord")
//	cfg, params, err := sys.Config(map[string]string{"fixed": "true"})
//	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed)})
//
// or from the command line:
//
//	macemc search --system chord --property AllNodes
//
// Every node's driver asks it once to join through node 0 (Join), and
// again after a reset.
//
// Parameters:
//
//   - nodes (int, 3): number of nodes; node 0 creates the ring.
//   - fixed (bool, false): apply the fix below.
//   - resets (int, 1): node resets per execution; the bug needs one.
//   - breaks (int, 0): connection breaks per execution.
//
// Properties (seed 003 Table 1):
//
//   - AllNodes (liveness): following successor pointers from any node
//     reaches all nodes.
//   - SuccPred (safety): for every node, predecessor == self if and only
//     if successor == self.
//
// # The bug
//
// With fixed=false, the handler of Notify updates the predecessor only.
// The revised protocol dropped the joining node's notification of its
// predecessor and asks instead that all routing state be updated on
// learning of a new node; the handler was not brought up to date. The
// shortest execution (the one the search finds first, and the test's
// bugScenario): node 0 creates the ring; nodes 1 and 2 ask to join; node
// 0 answers node 1's lookup; node 0 resets and creates a new one-node
// ring; node 1 joins with node 0 as successor and notifies it. The
// critical transition (step 8) is node 0 handling that Notify: node 1
// becomes its predecessor, its successor stays itself. Before it, node 0
// handling node 2's lookup first would have made node 2 its successor.
// After it, node 0 no longer counts as a one-node ring, so lookups leave
// it alone, it never stabilizes, and the node that has it as successor
// probes it and is told "my predecessor is you", which changes nothing:
// node 0's successor stays node 0 while node 1 -> node 2 -> node 0
// (seed 003 §6). SuccPred is first violated at the same step, so a
// search that checks both properties reports the safety violation; check
// AllNodes alone (--property AllNodes) to find the liveness bug and its
// critical transition. When node 0 resets after everyone has joined, no
// lookup is left to rescue it and the reset itself is the critical
// transition; SuccPred breaks a few steps later, at the Notify.
//
// # The fix
//
// With fixed=true every message from a node updates both neighbours
// (Chord.learn), as the revised protocol says: the Notify makes node 1
// node 0's successor as well as its predecessor, and stabilization
// completes the ring. Both pointers leave the node itself together, so
// SuccPred always holds.
package chord
