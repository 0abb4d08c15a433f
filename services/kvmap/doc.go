// Package kvmap is the replicated map of seed 004 (DS2's Paxos-replicated
// map, §4.5): a key-value map replicated on three (or five) replicas by
// Multi-Paxos with a stable leader, with the best-known linearizability
// bug of replicated stores, stale reads from a follower, and the fix that
// etcd and Raft use, the read index.
//
// Replica 0 leads. When it starts it runs Paxos phase 1 once for its
// ballot (Prepare, Promise from a majority, re-proposing what acceptors
// accepted before); from then on every write is a log slot: the leader
// accepts it itself, sends Accept to the others, and once a majority
// accepted it the slot is chosen: the leader applies the slots in order,
// answers the client and tells the followers (Commit), which apply them
// in order too. Clients talk to a home replica (client c to replica c mod
// replicas): a follower forwards writes to the leader.
//
// # Usage
//
//	macemc search --system kvmap
//	macemc search --system kvmap --param fixed=true --strategy dpor
//
// System "kvmap": nodes 0..replicas-1 are replicas (*Replica, node 0 the
// leader), the next ones clients (*Client); the driver gives each writer
// one Put (client i puts i+1, on x or, with keys=2, alternately x and y)
// and each reader one Get of x. Clients record their operations in the
// history. No failures. The Model is the sequential map, partitioned by
// key: operations on different keys are checked apart.
//
// Parameters:
//
//   - fixed (bool, default false): followers serve reads at the read index.
//   - replicas (int, default 3): 3 or 5.
//   - reads (int, default 2), writes (int, default 1): the clients.
//   - keys (int, default 1): keys the writers write (1 or 2).
//
// Properties: Linearizable.
//
// # The bug
//
// A follower answers a read from its own copy of the map at once
// (DS2's map lets the leader answer reads; serving them from followers is
// the optimization that breaks it). The leader chose the write of x=1 with
// replica 1's acceptance, applied it and answered the client; replica 2
// has not heard of it yet (its Accept and Commit are on the way). A client
// that starts a read at replica 2 after the write returned gets 0: a value
// older than a write that completed before the read began (TestStaleRead
// scripts it, in 10 steps; the search finds it in a few paths).
//
// The fix (fixed=true) is the read index (Raft §8, etcd's linearizable
// reads): the follower asks the leader for its commit index and answers
// once it has applied that much (here it always has when the answer
// arrives: the leader's Commits travel before it on the same FIFO
// connection); the leader answers reads itself, since it applies a slot
// before it acknowledges it. An exhausted search finds 34
// distinct histories, all linearizable. With a stable leader the leader
// needs no heartbeat round to confirm it still leads, as Raft's read index
// does: there are no elections here.
package kvmap
