package raftkv

import (
	"fmt"
	"math"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/macemc/macemc/sim"
)

// Canonical forms for the types of etcd raft that the nodes' state and
// messages hold. raft's protobuf messages carry protobuf-go's internal
// state (a pointer to the message type's reflection data, size caches):
// followed by the state encoder, one message encodes to megabytes. And
// MemoryStorage counts its calls, which is no part of the state. Each gets
// the fields that are its state, through raft's own getters.

// entryState is a log entry's canonical form.
type entryState struct {
	Term, Index uint64
	Type        pb.EntryType
	Data        string
}

func entryOf(e *pb.Entry) entryState {
	return entryState{Term: e.GetTerm(), Index: e.GetIndex(), Type: e.GetType(), Data: string(e.GetData())}
}

// messageText is a raft message's canonical form: its type, ends and
// every field that is set, in a fixed order, e.g.
// "MsgApp 1->2 term=2 logterm=1 index=3 commit=3 entries=[2/4:"1 k1=v1"]".
func messageText(m *pb.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d->%d term=%d", m.GetType(), m.GetFrom(), m.GetTo(), m.GetTerm())
	num := func(name string, v uint64) {
		if v != 0 {
			fmt.Fprintf(&b, " %s=%d", name, v)
		}
	}
	num("logterm", m.GetLogTerm())
	num("index", m.GetIndex())
	num("commit", m.GetCommit())
	num("vote", m.GetVote())
	if m.GetReject() {
		fmt.Fprintf(&b, " reject hint=%d", m.GetRejectHint())
	}
	if es := m.GetEntries(); len(es) > 0 {
		b.WriteString(" entries=[")
		for i, e := range es {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%d/%d", e.GetTerm(), e.GetIndex())
			if e.GetType() != pb.EntryNormal {
				fmt.Fprintf(&b, ":%s", e.GetType())
			}
			if len(e.GetData()) > 0 {
				fmt.Fprintf(&b, ":%q", e.GetData())
			}
		}
		b.WriteString("]")
	}
	if md := m.GetSnapshot().GetMetadata(); md.GetIndex() != 0 {
		fmt.Fprintf(&b, " snapshot=%d/%d", md.GetTerm(), md.GetIndex())
	}
	if c := m.GetContext(); len(c) > 0 {
		fmt.Fprintf(&b, " context=%q", c)
	}
	for _, r := range m.GetResponses() {
		fmt.Fprintf(&b, " response=(%s)", messageText(r))
	}
	return b.String()
}

// Canonical implements sim.Canonicalizer: the message's text.
func (m Msg) Canonical() any { return messageText(m.M) }

// hardState is a HardState's canonical form.
type hardState struct{ Term, Vote, Commit uint64 }

// storageState is a MemoryStorage's canonical form: its hard state, the
// snapshot it starts from and its entries.
type storageState struct {
	Hard                    hardState
	SnapshotIndex, SnapTerm uint64
	Voters                  []uint64
	Entries                 []entryState
}

func storageOf(s *raft.MemoryStorage) any {
	hs, cs, err := s.InitialState()
	if err != nil {
		return err.Error()
	}
	st := storageState{Hard: hardState{hs.GetTerm(), hs.GetVote(), hs.GetCommit()}, Voters: cs.GetVoters()}
	first, _ := s.FirstIndex()
	last, _ := s.LastIndex()
	st.SnapshotIndex = first - 1
	st.SnapTerm, _ = s.Term(first - 1)
	if last >= first {
		ents, err := s.Entries(first, last+1, math.MaxUint64)
		if err != nil {
			return err.Error()
		}
		if len(ents) > 0 {
			st.Entries = make([]entryState, len(ents))
		}
		for i, e := range ents {
			st.Entries[i] = entryOf(e)
		}
	}
	return st
}

func init() {
	sim.RegisterCanonical(func(e *pb.Entry) any { return entryOf(e) })
	sim.RegisterCanonical(func(m *pb.Message) any { return messageText(m) })
	sim.RegisterCanonical(func(h *pb.HardState) any { return hardState{h.GetTerm(), h.GetVote(), h.GetCommit()} })
	sim.RegisterCanonical(func(c *pb.ConfState) any { return c.GetVoters() })
	sim.RegisterCanonical(func(s *pb.Snapshot) any {
		return [2]uint64{s.GetMetadata().GetIndex(), s.GetMetadata().GetTerm()}
	})
	sim.RegisterCanonical(storageOf)
}
