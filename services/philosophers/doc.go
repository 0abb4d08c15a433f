// Package philosophers is the dining philosophers of seed 000 §III: a
// liveness bug without a dead state and without a critical transition, a
// livelock that only a lasso shows: the default search finds it in its
// explored state graph, and walks with lasso detection (--lasso) find it
// too.
//
// Philosophers and forks are nodes, alternating round a table. A hungry
// philosopher asks its first fork (Acquire; the fork answers Granted or
// Busy), then its second; if the second is Busy it puts the first back
// (Release) and starts over at once. With both forks it eats (the one-shot
// timer "eat"), releases both and leaves the table.
//
// # Usage
//
//	go run ./cmd/macemc search --system philosophers --param n=3
//	go run ./cmd/macemc search --system philosophers --param fixed=true
//
// System "philosophers", nodes 0..n-1 are philosophers (*Philosopher),
// nodes n..2n-1 forks (*Fork); fork i is philosopher i's left fork and fork
// i+1 (mod n) his right one. The driver makes every philosopher Hungry once.
// No failures.
//
// Parameters:
//
//   - n (int, default 3): philosophers, 2 to 5.
//   - fixed (bool, default false): pick up forks in a global order.
//
// Properties:
//
//   - EveryoneEats (liveness): every philosopher has eaten.
//   - Exclusion (safety): a philosopher that believes it holds a fork is
//     the fork's holder.
//
// The bug: every philosopher picks up his left fork first. If each one
// holds his left fork when he asks for his right one, every right fork is
// Busy, everyone puts his left fork back and asks again, and the table
// returns to exactly the state it was in: a cycle of 5n steps in which
// nobody eats (every state is hot) and every enabled event runs (the cycle
// is fair). The global state repeats exactly (Sim.Hash is equal), so full
// state hashing sees the lasso; no counter grows. There is no dead state:
// from every state of the cycle a random walk soon lets someone eat, so
// random walks (and the critical-transition search) find nothing, and
// there is no critical transition. The livelock's probability decays with
// n, as seed 000 reports. The default search (bounded DFS) records the
// states it explores and reports the cycle as a lasso after two rounds
// (TestExploredGraph).
//
// The fix (fixed=true): a resource hierarchy, every philosopher picks up
// the lower-numbered fork first, which only changes the last philosopher,
// who now starts with his right fork (fork 0). The whole state space then
// has no fair cycle of hot states (fairness_test.go checks it exhaustively
// for n = 2 and 3): the default search exhausts it and reports that
// liveness holds.
package philosophers
