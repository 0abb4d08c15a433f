// Package raftkv hosts etcd raft (go.etcd.io/raft/v3, unchanged) as a
// macemc system: a replicated key-value store of RawNodes over
// MemoryStorage, checked for raft's Election Safety and State Machine
// Safety and for the liveness of its clients' puts, under crash-restarts
// (the storage is the node's durable disk), crash-stops and network
// partitions. It is the project's example of checking a real library that
// was not written for macemc, and lives in a module of its own so that the
// main module does not depend on raft.
//
// What hosting needed, all on the host's side of the library:
//
//   - raft's RawNode keeps method values and closures bound to itself, so
//     the simulator copies such states by replaying their choices (see
//     engine.Sim.Clone);
//   - raft's protobuf messages and MemoryStorage get canonical forms
//     (sim.RegisterCanonical), so that state hashing reads their fields
//     and not protobuf's internals or MemoryStorage's call counters;
//   - raft draws its election timeouts from crypto/rand, which
//     sim.UseDeterministicCryptoRand makes deterministic inside handlers;
//   - the disk survives resets (Node implements sim.Durable), Start sees
//     a restart, and the client's puts wait for a leader (sim.Request).
//
// The bug parameter injects host bugs (never raft bugs): forget-vote (a
// restarted node loses its term and vote: two leaders in one term),
// forget-log (its log: raft panics on purpose), no-retry (the client
// forgets a dropped proposal: a liveness violation with a critical
// transition).
//
// # Usage
//
// From the command line of the module's own binary, which has every
// macemc subcommand for this system, mdb included:
//
//	go run ./cmd/raftkv search --system raftkv --param bug=forget-vote --out out
//	go run ./cmd/raftkv mdb out
//
// From a test:
//
//	searchtest.Check(t, raftkv.System, search.Options{MaxPaths: 300, WalkDepth: 2000, Seed: 1})
package raftkv
