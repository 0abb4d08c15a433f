// Package register is the distributed register of seed 004 (DS2, §4.1 to
// §4.3): a read/write register replicated on a majority quorum, in its
// correct form and in the buggy forms DS2 checks, judged by the
// linearizability of its clients' history against a one-integer model.
//
// The correct protocol is ABD (Attiya, Bar-Noy and Dolev): replicas keep a
// timestamped value; a client coordinates its own operations over a
// majority of the replicas, in two rounds. A write queries the majority
// for the newest timestamp and stores its value under a newer one (its
// client number breaks ties between writers); a read queries the majority
// for the newest value and writes it back to the majority before
// returning it, so that no later read can see an older one. Each client
// talks to the same majority every time (replicas c, c+1, ... for client
// c), which any other majority meets.
//
// # Usage
//
//	macemc search --system register --param variant=buggy
//	macemc search --system register --param variant=correct --strategy dpor
//	macemc search --system register --param variant=noquorum --param reads=1
//
// System "register": nodes 0..replicas-1 are replicas (*Replica), the
// next ones clients (*Client); the driver gives each writer one Write (the
// value client number+1) and each reader one Read. A client records its
// operation in the history when it starts it (sim.Context.Invoke) and its
// result when it ends (Return). No failures. The system's Model is the
// sequential register: a read returns the last value written, 0 before.
//
// Parameters:
//
//   - variant (string, default buggy): correct (ABD), buggy (a read does
//     not write back) or noquorum (a write returns once one replica stored
//     it).
//   - replicas (int, default 3): 3 to 5.
//   - reads (int, default 2), writes (int, default 1): the readers and
//     writers (DS2's "2R+1W" harness; writes=2 is its 2R+2W).
//
// Properties: Linearizable (the history of every execution).
//
// # The bugs
//
// buggy, a read that does not write back (new-old inversion): client 0's
// write of 1 stored its value on replica 1 of its majority {0, 1}, not yet
// on replica 0; client 1's read asks {1, 2}, sees 1 on replica 1 and
// returns 1; client 2's read starts after that and asks {2, 0}, where the
// write has not arrived, and returns 0. The write is still in progress,
// so either value alone would be fine, but not 1 and then 0: the checker
// reports the history of those three operations (TestNewOldInversion
// scripts it; `macemc search` finds it after about 60 paths with dpor).
//
// noquorum, DS2's erroneous register, acknowledges a write before a
// majority stored it: once replica 0 stored the write of 1 the client
// returns, and a read that starts afterwards on the majority {1, 2} reads
// 0, a value older than a write that completed before it began.
//
// The fix (variant=correct): the read writes back, and the write waits for
// its whole majority. An exhausted search (every execution, about 27,000
// paths with dpor or 39,000 with dfs's state hashing for 2R+1W) finds 34
// distinct histories, all linearizable.
//
// # Deviations from DS2
//
// DS2's register is primary-backup (a leader forwards writes to backups
// and waits for a majority); this one is ABD, leaderless, which the issue
// asks for ("a read that does not write back") and which needs the same
// majority quorum. DS2's erroneous register also returns values "from thin
// air"; that bug is trivial for the checker and left out. The "another
// distributed register" of §4.3 (every agent leads) is what ABD with
// several writers is (writes=2).
package register
