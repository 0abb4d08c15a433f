package raftkv

import (
	"fmt"
	"slices"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "raftkv"

func init() {
	// raft draws its randomized election timeouts from crypto/rand:
	// inside handlers they come from the simulator's deterministic
	// streams instead.
	sim.UseDeterministicCryptoRand()
	sim.Register(System)
}

// System is etcd raft hosting a replicated key-value store: Nodes servers
// (RawNode over MemoryStorage, unchanged), a client at node 0 that puts
// Puts keys once a leader exists, crash-restarts with durable storage,
// crash-stops and partitions.
var System = &sim.System{
	Name: SystemName,
	Doc:  "etcd raft (go.etcd.io/raft/v3, unchanged) replicating a key-value store, with crash-restart over durable storage, crash-stop and partitions",
	Params: []sim.ParamSpec{
		{Name: "nodes", Kind: sim.ParamInt, Default: "3", Doc: "raft servers"},
		{Name: "puts", Kind: sim.ParamInt, Default: "2", Doc: "client puts, issued at node 0 once a leader exists"},
		{Name: "bug", Kind: sim.ParamString, Default: BugNone, Doc: "injected host bug: none, forget-vote, forget-log or no-retry"},
		{Name: "resets", Kind: sim.ParamInt, Default: "1", Doc: "crash-restarts per execution (the disk survives)"},
		{Name: "crashes", Kind: sim.ParamInt, Default: "0", Doc: "crash-stops per execution"},
		{Name: "partitions", Kind: sim.ParamInt, Default: "1", Doc: "network partitions per execution (each heals)"},
	},
	Build: build,
}

func build(p sim.Params) (*sim.Config, error) {
	n, puts, bug := p.Int("nodes"), p.Int("puts"), p.String("bug")
	if n < 1 || n > 9 {
		return nil, fmt.Errorf("nodes=%d: from 1 to 9", n)
	}
	if puts < 0 || puts > 100 {
		return nil, fmt.Errorf("puts=%d: from 0 to 100", puts)
	}
	if !slices.Contains([]string{BugNone, BugForgetVote, BugForgetLog, BugNoRetry}, bug) {
		return nil, fmt.Errorf("bug=%q: none, forget-vote, forget-log or no-retry", bug)
	}
	peers := make([]uint64, n)
	for i := range peers {
		peers[i] = uint64(i + 1)
	}
	// Node 0 hosts the client; the others may crash (it only resets:
	// its journal of puts is durable).
	var others []sim.NodeID
	for i := 1; i < n; i++ {
		others = append(others, sim.NodeID(i))
	}
	return &sim.Config{
		Nodes: n,
		Service: func(id sim.NodeID) sim.Service {
			return &Node{ID: uint64(id) + 1, peers: peers, bug: bug}
		},
		App: func(id sim.NodeID) []any {
			if id != 0 {
				return nil
			}
			var reqs []any
			for i := 1; i <= puts; i++ {
				reqs = append(reqs, sim.Request{Req: Put{ID: i, Key: fmt.Sprintf("k%d", i), Value: fmt.Sprintf("v%d", i)}, When: leaderExists, Name: "a leader exists"})
			}
			return reqs
		},
		// The client's puts survive a restart of node 0 in its journal,
		// not by the driver starting over.
		KeepDriver: true,
		Safety: []sim.Property{
			{Name: "OneLeaderPerTerm", Doc: "no two nodes are ever leader in the same term", Check: oneLeaderPerTerm},
			{Name: "CommittedAgree", Doc: "nodes apply the same puts in the same order", Check: committedAgree},
		},
		Liveness: []sim.Property{
			{Name: "AllApplied", Doc: "a leader exists and every running node applied every put", Check: func(v *sim.View) bool { return allApplied(v, puts) }},
		},
		Failures: sim.Failures{Resets: p.Int("resets"), Crashes: p.Int("crashes"), Partitions: p.Int("partitions"), Nodes: crashable(n, others, p.Int("crashes"))},
	}, nil
}

// crashable limits crashes to the nodes without the client: with crashes
// on, resets are limited to them too (sim.Failures.Nodes covers both).
func crashable(n int, others []sim.NodeID, crashes int) []sim.NodeID {
	if crashes == 0 || n == 1 {
		return nil
	}
	return others
}

// leaderExists is the driver's condition for a put.
func leaderExists(v *sim.View) bool {
	for id, n := range sim.Nodes[Node](v) {
		if _, ok := n.Leader(); ok && v.Up(id) {
			return true
		}
	}
	return false
}

// oneLeaderPerTerm: raft's Election Safety. Led records every term a node
// led, across its restarts, so two leaders of one term are caught even
// when they are not leaders at the same time.
func oneLeaderPerTerm(v *sim.View) bool {
	seen := map[uint64]bool{}
	for _, n := range sim.Nodes[Node](v) {
		for _, t := range n.Disk.Led {
			if seen[t] {
				return false
			}
			seen[t] = true
		}
	}
	return true
}

// committedAgree: raft's State Machine Safety, as the clients see it: any
// two nodes applied the same puts in the same order, as far as both got.
func committedAgree(v *sim.View) bool {
	var longest []int
	for _, n := range sim.Nodes[Node](v) {
		k := min(len(longest), len(n.Applied))
		if !slices.Equal(longest[:k], n.Applied[:k]) {
			return false
		}
		if len(n.Applied) > len(longest) {
			longest = n.Applied
		}
	}
	return true
}

// allApplied: a running node is leader and every running node applied
// every put.
func allApplied(v *sim.View, puts int) bool {
	if !leaderExists(v) {
		return false
	}
	for id, n := range sim.Nodes[Node](v) {
		if v.Up(id) && len(n.Applied) < puts {
			return false
		}
	}
	return true
}
