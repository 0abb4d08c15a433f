package engine_test

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/sim/engine"
)

// Values for the text forms' benchmarks: a raft-like node state (maps of
// structs behind pointers, a log of entries, scalars), a message, and a
// larger state (a 10,000-int slice and a 2,000-entry map).

type benchProgress struct {
	Match, Next uint64
	State       int
	Paused      bool
	Inflight    []uint64
}

type benchEntry struct {
	Term, Index uint64
	Data        []byte
}

type benchRaft struct {
	ID, Term, Vote uint64
	Lead           uint64
	State          string
	Log            []benchEntry
	Committed      uint64
	Prs            map[uint64]*benchProgress
	Votes          map[uint64]bool
	Pending        []string
	Config         struct{ Voters, Learners []uint64 }
}

type benchMsg struct {
	Type, To, From, Term, LogTerm, Index uint64
	Entries                              []benchEntry
	Commit                               uint64
	Reject                               bool
}

func benchRaftState() *benchRaft {
	r := &benchRaft{ID: 1, Term: 7, Vote: 1, Lead: 1, State: "leader", Committed: 40,
		Prs: map[uint64]*benchProgress{}, Votes: map[uint64]bool{}}
	for i := range 48 {
		r.Log = append(r.Log, benchEntry{Term: uint64(i/8 + 1), Index: uint64(i + 1), Data: []byte(fmt.Sprintf("put k%d=v%d", i, i))})
	}
	for id := uint64(1); id <= 5; id++ {
		r.Prs[id] = &benchProgress{Match: 40 - id, Next: 41 - id, State: int(id % 3), Inflight: []uint64{38, 39, 40}}
		r.Votes[id] = id%2 == 1
		r.Config.Voters = append(r.Config.Voters, id)
	}
	r.Pending = []string{"read 1", "read 2"}
	return r
}

type benchBig struct {
	Ints []int
	M    map[string]int
	S    string
}

func benchBigState() *benchBig {
	b := &benchBig{M: map[string]int{}}
	for i := range 10_000 {
		b.Ints = append(b.Ints, i*7)
	}
	for i := range 2_000 {
		b.M[fmt.Sprintf("key%05d", i)] = i
	}
	for range 100 {
		b.S += "0123456789"
	}
	return b
}

// BenchmarkFormatState: FormatState of a raft-like node state and of a
// larger one.
func BenchmarkFormatState(b *testing.B) {
	for _, c := range []struct {
		name string
		v    any
	}{{"raft", benchRaftState()}, {"big", benchBigState()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(engine.FormatState(c.v))
			}
			b.ReportMetric(float64(n), "bytes/text")
		})
	}
}

// BenchmarkFormatValue: FormatValue of a message with entries and of the
// raft-like state on one line, FormatValueCut of the message as logs make it.
func BenchmarkFormatValue(b *testing.B) {
	r := benchRaftState()
	msg := benchMsg{Type: 3, To: 2, From: 1, Term: 7, LogTerm: 7, Index: 40, Entries: r.Log[40:44], Commit: 40}
	for _, c := range []struct {
		name string
		f    func() string
	}{
		{"msg", func() string { return engine.FormatValue(msg) }},
		{"msgcut", func() string { return engine.FormatValueCut(msg, 256) }},
		{"raft", func() string { return engine.FormatValue(r) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(c.f())
			}
			b.ReportMetric(float64(n), "bytes/text")
		})
	}
}
