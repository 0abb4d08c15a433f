package raftkv

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/macemc/macemc/sim"
)

// Bugs that can be injected into the host code (the raft library itself
// is never changed): what a node does when it restarts or when the
// library drops a proposal.
const (
	// BugNone is the correct host.
	BugNone = "none"
	// BugForgetVote: a restarted node forgets its HardState's term and
	// vote (keeping its log), as a server that did not sync them would.
	// It can then vote twice in one term: two leaders in one term.
	BugForgetVote = "forget-vote"
	// BugForgetLog: a restarted node comes back with an empty log, as a
	// server whose disk was wiped. Its leader still believes it holds the
	// entries, and raft panics on purpose ("Was the raft log corrupted,
	// truncated, or lost?").
	BugForgetLog = "forget-log"
	// BugNoRetry: the client forgets a put whose proposal raft dropped (no
	// leader known yet), so the put is never applied.
	BugNoRetry = "no-retry"
)

// Put is a client request: set Key to Value. ID makes retries idempotent.
type Put struct {
	ID         int
	Key, Value string
}

// Msg carries a raft message between nodes. Its MessageName is the raft
// message type (MsgApp, MsgVote, ...), for logs and per-message weights;
// its canonical form (canon.go) is a line of text.
type Msg struct{ M *pb.Message }

// MessageName returns the raft message type.
func (m Msg) MessageName() string { return m.M.GetType().String() }

// Disk is a node's durable state: raft's storage (log, HardState,
// snapshot) and the client's journal of puts not yet applied. It survives
// resets (sim.Durable). Led is a ghost record for the properties: the terms
// in which this node was leader.
type Disk struct {
	Storage *raft.MemoryStorage
	Pending []Put
	Led     []uint64
}

// Node is one raft server hosting a key-value store: etcd raft's RawNode
// over a MemoryStorage, driven by the simulator's events. A periodic timer
// ticks raft's logical clock; messages are raft's; the driver's puts are
// proposed to raft (and proposed again until applied, as a client
// retries); committed entries are applied to KV.
type Node struct {
	sim.Base
	ID   uint64
	Disk *Disk
	// Raft is etcd raft's node, unchanged. Its whole state (raft log,
	// progress tracker, election timers) is part of the node's state.
	Raft *raft.RawNode
	// KV is the state machine; Applied lists the applied puts' IDs in
	// order (volatile: rebuilt from the log after a restart).
	KV      map[string]string
	Applied []int

	peers []uint64 `macemc:"-"`
	bug   string   `macemc:"-"`
}

// Durable implements sim.Durable.
func (n *Node) Durable() any { return n.Disk }

// Restore implements sim.Durable; the injected bugs lose part of the disk
// here.
func (n *Node) Restore(d any) {
	n.Disk = d.(*Disk)
	switch n.bug {
	case BugForgetVote:
		hs, _, _ := n.Disk.Storage.InitialState()
		_ = n.Disk.Storage.SetHardState(&pb.HardState{Commit: new(hs.GetCommit())})
	case BugForgetLog:
		n.Disk.Storage = bootstrap(n.peers)
	}
}

// bootstrap returns the storage of a fresh member of a cluster of peers:
// a snapshot at index 1 with every peer a voter.
func bootstrap(peers []uint64) *raft.MemoryStorage {
	s := raft.NewMemoryStorage()
	snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{ConfState: &pb.ConfState{Voters: slices.Clone(peers)}, Index: new(uint64(1)), Term: new(uint64(1))}}
	if err := s.ApplySnapshot(pb.EnsureSnapshot(snap)); err != nil {
		panic(err)
	}
	return s
}

// Start implements sim.Service: a new RawNode over the node's storage (a
// fresh one at the first boot, the durable one after a restart), applying
// the log again from the start.
func (n *Node) Start(ctx *sim.Context) {
	if n.Disk == nil {
		n.Disk = &Disk{Storage: bootstrap(n.peers)}
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              n.ID,
		ElectionTick:    ElectionTick,
		HeartbeatTick:   1,
		Storage:         n.Disk.Storage,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 16,
		Logger:          quiet{},
	})
	if err != nil {
		panic(err)
	}
	n.Raft = rn
	n.KV = map[string]string{}
	ctx.SetPeriodic("tick")
	if len(n.Disk.Pending) > 0 {
		ctx.SetPeriodic("retry")
	}
	n.ready(ctx)
}

// ElectionTick is raft's election timeout in ticks (HeartbeatTick is 1):
// small, so that elections happen within a few dozen steps.
const ElectionTick = 3

// HandleTimer implements sim.Service: "tick" advances raft's clock,
// "retry" proposes the client's pending puts again.
func (n *Node) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "tick":
		n.Raft.Tick()
	case "retry":
		for _, p := range n.Disk.Pending {
			n.propose(p)
		}
	}
	n.ready(ctx)
}

// HandleMessage implements sim.Service: raft messages go to raft.
func (n *Node) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	// Errors are raft's answers to stale or foreign messages: dropping
	// the message is what a server does with them.
	_ = n.Raft.Step(m.(Msg).M)
	n.ready(ctx)
}

// HandleApp implements sim.Service: the driver's put, proposed to raft and
// kept in the journal until applied.
func (n *Node) HandleApp(ctx *sim.Context, req any) {
	p := req.(Put)
	dropped := n.propose(p)
	if n.bug != BugNoRetry || !dropped {
		n.Disk.Pending = append(n.Disk.Pending, p)
		ctx.SetPeriodic("retry")
	}
	n.ready(ctx)
}

// propose proposes p and reports whether raft dropped it.
func (n *Node) propose(p Put) bool {
	err := n.Raft.Propose(fmt.Appendf(nil, "%d %s=%s", p.ID, p.Key, p.Value))
	return errors.Is(err, raft.ErrProposalDropped)
}

// ready handles everything raft has ready, as the library's contract
// says: persist the hard state and entries (the disk is durable, so
// synchronously), send the messages, apply the committed entries, advance.
func (n *Node) ready(ctx *sim.Context) {
	for n.Raft.HasReady() {
		rd := n.Raft.Ready()
		st := n.Disk.Storage
		if !raft.IsEmptySnap(rd.Snapshot) {
			if err := st.ApplySnapshot(rd.Snapshot); err != nil {
				panic(err)
			}
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			if err := st.SetHardState(rd.HardState); err != nil {
				panic(err)
			}
		}
		if err := st.Append(rd.Entries); err != nil {
			panic(err)
		}
		if rd.SoftState != nil && rd.RaftState == raft.StateLeader {
			term := n.Raft.BasicStatus().GetTerm()
			if !slices.Contains(n.Disk.Led, term) {
				n.Disk.Led = append(n.Disk.Led, term)
			}
		}
		for _, m := range rd.Messages {
			ctx.Send(sim.NodeID(m.GetTo()-1), Msg{m})
		}
		for _, e := range rd.CommittedEntries {
			n.apply(ctx, e)
		}
		n.Raft.Advance(rd)
	}
}

// apply applies a committed entry to the key-value store, once per put.
func (n *Node) apply(ctx *sim.Context, e *pb.Entry) {
	if e.GetType() != pb.EntryNormal || len(e.GetData()) == 0 {
		return
	}
	var id int
	var kv string
	if _, err := fmt.Sscanf(string(e.GetData()), "%d %s", &id, &kv); err != nil {
		panic(fmt.Sprintf("raftkv: bad entry %q: %v", e.GetData(), err))
	}
	if slices.Contains(n.Applied, id) {
		return // a retried put, applied before
	}
	k, v, _ := strings.Cut(kv, "=")
	n.KV[k] = v
	n.Applied = append(n.Applied, id)
	n.Disk.Pending = slices.DeleteFunc(n.Disk.Pending, func(p Put) bool { return p.ID == id })
	if len(n.Disk.Pending) == 0 {
		ctx.CancelTimer("retry")
	}
}

// Leader returns the node's term and whether it is leader in it.
func (n *Node) Leader() (uint64, bool) {
	if n.Raft == nil {
		return 0, false
	}
	st := n.Raft.BasicStatus()
	return st.GetTerm(), st.RaftState == raft.StateLeader
}

// quiet is raft's logger: silent, except that Fatal and Panic panic (raft
// calls them on broken invariants), which the checker reports.
type quiet struct{}

func (quiet) Debug(...any)                   {}
func (quiet) Debugf(string, ...any)          {}
func (quiet) Error(...any)                   {}
func (quiet) Errorf(string, ...any)          {}
func (quiet) Info(...any)                    {}
func (quiet) Infof(string, ...any)           {}
func (quiet) Warning(...any)                 {}
func (quiet) Warningf(string, ...any)        {}
func (quiet) Fatal(v ...any)                 { panic(fmt.Sprint(v...)) }
func (quiet) Fatalf(format string, v ...any) { panic(fmt.Sprintf(format, v...)) }
func (quiet) Panic(v ...any)                 { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(format string, v ...any) { panic(fmt.Sprintf(format, v...)) }
