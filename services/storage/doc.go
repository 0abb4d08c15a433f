// Package storage is a replicated extent store after Azure Storage vNext
// (seed 001 §5.3) and seed 000's ReplicatingStorage (§V): a liveness bug
// with a critical transition, where a stale synchronisation report undoes
// the handling of a node failure and the extent is never repaired.
//
// The ExtentManager keeps every extent at its replica target. Its
// ExtentCenter (extent -> replica holders) is updated from the periodic
// SyncReports of the ExtentNodes (timer "sync"); its ExtentNodeMap records
// which nodes it believes failed. On a NotifyFailure it drops the node's
// replicas; its periodic repair loop (timer "repair") sends a
// RepairRequest for every extent short of replicas to the lowest live node
// lacking it, which copies the extent from a live holder (CopyRequest,
// CopyResponse) and reports it in its next SyncReport.
//
// # Usage
//
//	go run ./cmd/macemc search --system storage
//	go run ./cmd/macemc search --system storage --param fixed=true
//
// System "storage": node 0 is the manager (*ExtentManager), nodes
// 1..nodes the extent nodes (*ExtentNode), node nodes+1 the test driver
// (*Driver). Extent e starts on replicas consecutive nodes from node 1+e.
// The driver fails failures extent nodes, each chosen with Context.Rand:
// it sends the node FaultInject (the node halts for good) and the manager
// NotifyFailure, as seed 000's Environment does. The simulator's own
// failures are off.
//
// Parameters:
//
//   - nodes (int, default 4): extent nodes.
//   - extents (int, default 1): extents.
//   - replicas (int, default 3): replica target.
//   - failures (int, default 1): extent nodes the driver fails.
//   - fixed (bool, default false): ignore sync reports from failed nodes.
//   - monitor (bool, default true): check the RepairChecker monitor;
//     false checks the state predicates below instead.
//
// Monitor (the default), seed 001's RepairChecker (§5.3.5): extent nodes
// announce what happens to the ground truth (Context.Notify: NodeFailed
// when one halts, ReplicaStored when one stores a repaired replica) and
// the monitor keeps, per extent, the live nodes that hold it. It is hot
// while the driver's failures are still to come or an extent is short of
// live replicas (liveness property RepairChecker), and asserts that no
// extent loses its last live replica (safety property RepairChecker). It
// needs nothing from the manager, whose belief is the thing under test.
//
// Properties (monitor=false), the same conditions as state predicates over
// the nodes' structs (TestMonitorAgreesWithPredicates checks that they
// agree on every state of 600 walks):
//
//   - ExtentsReplicated (liveness): the driver's failures have happened
//     and every extent has its target of replicas on extent nodes that
//     have not failed.
//   - NoDataLoss (safety): every extent has a replica on a live node.
//
// The bug (seed 000 Figure 2): node 1 sends a SyncReport listing extent 0
// and then fails; the manager handles NotifyFailure, drops node 1 and
// counts 2 replicas; then node 1's stale SyncReport arrives and puts node 1
// back into the ExtentCenter. The manager counts 3 replicas, so its repair
// loop never schedules a repair, while only 2 live nodes hold the extent.
// Node 1 is dead and never reports again, so nothing corrects the count.
//
// Critical transition: the manager (node 0) handling the stale SyncReport
// from the failed node. Before it, a repair scheduled by a repair-loop tick
// that comes first still saves the extent; after it, no execution is live
// (TestCriticalTransition: 13 of 100 walks recover just before it, none of
// 30 after it). Plain random walks from the initial state run into the bug
// about 5% of the time.
//
// The fix (fixed=true), the one vNext adopted: the manager ignores
// SyncReports from nodes it believes failed.
//
// Failure detection is by notification rather than by heartbeat timeouts:
// the checker explores every outcome of a timeout (Context.Elapsed), and a
// false suspicion of a live node would make the manager drop that node's
// replica and repair the extent, which also heals the stale count, so the
// bug would have no dead state.
package storage
