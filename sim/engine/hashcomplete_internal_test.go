package engine

import (
	"testing"

	"github.com/macemc/macemc/sim"
)

// hashed: a service with a field, so that its struct is part of the state.
type hashed struct {
	sim.Base
	N int
}

func (h *hashed) HandleApp(ctx *sim.Context, req any) {
	ctx.Send((ctx.Self()+1)%sim.NodeID(ctx.Nodes()), "m")
	ctx.SendDatagram((ctx.Self()+2)%sim.NodeID(ctx.Nodes()), "d")
	ctx.SetTimer("t")
}

func hashedSim(t *testing.T, reorder bool) *Sim {
	t.Helper()
	cfg := &sim.Config{
		Nodes:    3,
		Service:  func(sim.NodeID) sim.Service { return &hashed{} },
		App:      func(sim.NodeID) []any { return []any{"a", "b", "c"} },
		Failures: sim.Failures{Resets: 5, Breaks: 5, Drops: 5, Reorder: reorder},
		Monitors: []sim.MonitorSpec{{Name: "tally", New: func() sim.Monitor { return &tally{Events: map[int]int{}} }}},
	}
	s, err := New(cfg, Options{Chooser: NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	// Three driver requests: messages queued on connections, datagrams in
	// flight, timers armed.
	for _, i := range []int{0, 1, 2} {
		s.buildReady()
		for k, e := range s.ready {
			if s.event(e).Kind == EvApp && s.event(e).Node == sim.NodeID(i) {
				if err := s.execute(s.ready[k]); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	if len(s.w.dgrams) < 2 || s.InFlight() < 3 {
		t.Fatalf("setup: %d datagrams, %d pending", len(s.w.dgrams), s.InFlight())
	}
	return s
}

// TestHashCoversWhatItDocuments: changing any one part of the global state
// that Hash's doc names changes the hash, and changing what it says is
// left out (the step count, Monotone's counter) does not. Each change is
// undone before the next, and the hash must come back.
//
// The changes are made behind the simulator's back, so each hash is
// computed afresh (rehash): TestHashIncremental checks that the hash kept
// up to date step by step is that hash.
func TestHashCoversWhatItDocuments(t *testing.T) {
	s := hashedSim(t, false)
	hash := func() uint64 { s.rehash(); return s.Hash() }
	h0 := hash()
	changes := []struct {
		name   string
		change func(w *world) (undo func())
	}{
		{"a node's struct", func(w *world) func() {
			s.w.svcs[1].(*hashed).N++
			w.nodes[1].dirty = true
			return func() { s.w.svcs[1].(*hashed).N--; w.nodes[1].dirty = true }
		}},
		{"a driver position (appNext)", func(w *world) func() {
			w.nodes[2].appNext++
			return func() { w.nodes[2].appNext-- }
		}},
		{"a timer armed", func(w *world) func() {
			w.nodes[0].timers[0].armed = !w.nodes[0].timers[0].armed
			return func() { w.nodes[0].timers[0].armed = !w.nodes[0].timers[0].armed }
		}},
		{"a timer periodic", func(w *world) func() {
			w.nodes[0].timers[0].periodic = !w.nodes[0].timers[0].periodic
			return func() { w.nodes[0].timers[0].periodic = !w.nodes[0].timers[0].periodic }
		}},
		{"a timer's name", func(w *world) func() {
			old := w.nodes[0].timers[0].nameHash
			w.nodes[0].timers[0].nameHash = hashString("other")
			return func() { w.nodes[0].timers[0].nameHash = old }
		}},
		{"a connection error", func(w *world) func() {
			w.nodes[1].connErrs = append(w.nodes[1].connErrs, 2)
			return func() { w.nodes[1].connErrs = w.nodes[1].connErrs[:len(w.nodes[1].connErrs)-1] }
		}},
		{"which peer's connection errored", func(w *world) func() {
			w.nodes[1].connErrs = append(w.nodes[1].connErrs, 2)
			h := hash()
			w.nodes[1].connErrs[len(w.nodes[1].connErrs)-1] = 0
			if hash() == h {
				t.Error("connection errors from different peers hash the same")
			}
			return func() { w.nodes[1].connErrs = w.nodes[1].connErrs[:len(w.nodes[1].connErrs)-1] }
		}},
		{"a message on a connection", func(w *world) func() {
			*w.conns[0*3+1].push() = pending{msg: "x", from: 0, to: 1}
			return func() { q := &w.conns[0*3+1]; q.items = q.items[:len(q.items)-1] }
		}},
		{"the order of messages on a connection", func(w *world) func() {
			q := &w.conns[0*3+1]
			*q.push() = pending{msg: "x", from: 0, to: 1}
			q.items[q.head], q.items[len(q.items)-1] = q.items[len(q.items)-1], q.items[q.head]
			h := hash()
			q.items[q.head], q.items[len(q.items)-1] = q.items[len(q.items)-1], q.items[q.head]
			if hash() == h {
				t.Error("two orders of a connection's messages hash the same")
			}
			return func() { q.items = q.items[:len(q.items)-1] }
		}},
		{"a datagram", func(w *world) func() {
			w.dgrams = append(w.dgrams, pending{msg: "y", from: 2, to: 0})
			return func() { w.dgrams = w.dgrams[:len(w.dgrams)-1] }
		}},
		{"the resets used", func(w *world) func() { w.resets++; return func() { w.resets-- } }},
		{"the breaks used", func(w *world) func() { w.breaks++; return func() { w.breaks-- } }},
		{"the drops used", func(w *world) func() { w.drops++; return func() { w.drops-- } }},
		{"the crashes used", func(w *world) func() { w.crashes++; return func() { w.crashes-- } }},
		{"the duplicates used", func(w *world) func() { w.dups++; return func() { w.dups-- } }},
		{"the partitions used", func(w *world) func() { w.partitions++; return func() { w.partitions-- } }},
		{"the partition", func(w *world) func() { w.cut = 0b10; return func() { w.cut = 0 } }},
		{"a crashed node", func(w *world) func() { w.nodes[1].down = true; return func() { w.nodes[1].down = false } }},
		{"a restarted node", func(w *world) func() { w.ext[1].restarts++; return func() { w.ext[1].restarts-- } }},
		{"a random stream's position", func(w *world) func() { w.ext[2].draws++; return func() { w.ext[2].draws-- } }},
		{"Monotone's counter", func(w *world) func() { w.monotone += 3; return func() { w.monotone -= 3 } }},
		{"a monitor's state", func(w *world) func() {
			w.mons[0].m.(*tally).Events[5]++
			w.mons[0].dirty = true
			return func() { delete(w.mons[0].m.(*tally).Events, 5); w.mons[0].dirty = true }
		}},
		{"a monitor's assertion failure", func(w *world) func() {
			w.mons[0].failure = "failed"
			w.mons[0].dirty = true
			return func() { w.mons[0].failure = ""; w.mons[0].dirty = true }
		}},
		{"the client history", func(w *world) func() {
			w.hist = append(w.hist, sim.HistoryEvent{Kind: sim.Invocation})
			w.histHash += 1
			return func() { w.hist = w.hist[:len(w.hist)-1]; w.histHash -= 1 }
		}},
	}
	for _, c := range changes {
		undo := c.change(&s.w)
		if hash() == h0 {
			t.Errorf("changing %s leaves the hash as it was", c.name)
		}
		undo()
		if h := hash(); h != h0 {
			t.Fatalf("undoing %s: hash %x, was %x", c.name, h, h0)
		}
	}
	// Left out: the step count.
	s.w.step += 7
	if hash() != h0 {
		t.Error("the step count changes the hash")
	}
}

// TestHashDatagramOrder: without reordering the datagrams in flight are a
// sequence (their order is part of the state), with it a multiset.
func TestHashDatagramOrder(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		s := hashedSim(t, reorder)
		hash := func() uint64 { s.rehash(); return s.Hash() }
		h0 := hash()
		d := s.w.dgrams
		d[0], d[1] = d[1], d[0]
		if h := hash(); (h == h0) != reorder {
			t.Errorf("reorder=%v: swapping two datagrams: hash equal %v", reorder, h == h0)
		}
	}
}
