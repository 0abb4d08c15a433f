package engine_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// A system of many nodes that puts something in every part of a state:
// messages on reliable connections and datagrams (which the receiver
// keeps, as the last event does), periodic and one-shot timers, driver
// requests (plain values, and a condition over the whole state), a
// monitor, the client history, Monotone's counter, and every failure.

type richMsg struct {
	From, Seq int
	Hops      []int
}

type richOp struct{ N int }

type richEvent struct{ Node int }

type richNode struct {
	sim.Base
	ID   int
	Seen map[int]int
	Log  []int
	Last *richMsg
	Errs []sim.NodeID
	Got  int
	Ops  int
	Tick uint64
}

func (n *richNode) Start(ctx *sim.Context) {
	n.ID = int(ctx.Self())
	n.Seen = map[int]int{}
	ctx.SetPeriodic("beat")
	if n.ID%3 == 0 {
		ctx.SetTimer("once")
	}
	ctx.Send(sim.NodeID((n.ID+1)%ctx.Nodes()), &richMsg{From: n.ID})
}

func (n *richNode) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	msg := m.(*richMsg)
	n.Got++
	n.Seen[msg.From]++
	n.Last = msg
	if len(n.Log) < 30 {
		n.Log = append(n.Log, msg.Seq)
	}
	if msg.Seq < 5 {
		next := &richMsg{From: n.ID, Seq: msg.Seq + 1, Hops: append(slices.Clone(msg.Hops), n.ID)}
		to := sim.NodeID(ctx.Rand(ctx.Nodes()))
		if ctx.Rand(2) == 0 {
			ctx.Send(to, next)
		} else {
			ctx.SendDatagram(to, next)
		}
	}
	if n.Got%4 == 0 {
		ctx.Notify(richEvent{Node: n.ID})
	}
}

func (n *richNode) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "beat":
		if ctx.Rand(3) == 0 {
			ctx.SendDatagram(sim.NodeID(ctx.Rand(ctx.Nodes())), &richMsg{From: n.ID, Seq: 4})
		}
		if ctx.Rand(5) == 0 {
			ctx.CancelTimer("beat")
			ctx.SetTimer("once")
		}
	case "once":
		n.Tick = ctx.Monotone()
		ctx.SetPeriodic("beat")
	}
}

func (n *richNode) HandleApp(ctx *sim.Context, req any) {
	n.Ops++
	op := req.(richOp)
	ctx.Invoke(n.ID, op)
	ctx.Return(n.ID, op.N*2)
}

func (n *richNode) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	n.Errs = append(n.Errs, peer)
}

type richMonitor struct {
	Count int
	Nodes map[int]bool
}

func (m *richMonitor) Handle(ev any) error {
	m.Count++
	m.Nodes[ev.(richEvent).Node] = true
	return nil
}

func richConfig(nodes int, reorder bool) *sim.Config {
	return &sim.Config{
		Nodes:   nodes,
		Service: func(sim.NodeID) sim.Service { return &richNode{} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{sim.Request{Req: richOp{N: 7}, Name: "node 1 got one", When: func(v *sim.View) bool { return sim.Node[richNode](v, 1).Got > 0 }}}
			}
			return []any{richOp{N: int(id)}, richOp{N: int(id) + 100}}
		},
		Monitors: []sim.MonitorSpec{{Name: "count", New: func() sim.Monitor { return &richMonitor{Nodes: map[int]bool{}} }}},
		Failures: sim.Failures{Resets: 2, Crashes: 1, Breaks: 3, Drops: 3, Duplicates: 3, Partitions: 1, Reorder: reorder},
	}
}

// TestCloneIntoManyNodes: copies of a state of 24 nodes, with Clone and
// with CloneInto a simulator that held another state of the same system
// (other busy connections, timers, nodes down), are the state: the same
// world field by field (engine.WorldDiff: nothing lost, nothing left over
// from the state the simulator held, nothing shared with the original),
// the same hash, the same ready events in the same order, and the same
// next 100 steps as a copy made by replaying the choices from the initial
// state, whose world was never copied; and stepping them leaves the
// original as it was. The checkpoints along a long random walk between
// them set every field of the world.
func TestCloneIntoManyNodes(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		t.Run(fmt.Sprintf("reorder=%v", reorder), func(t *testing.T) {
			cfg := richConfig(24, reorder)
			opts := engine.Options{Chooser: engine.NewRandom(11)}
			s := mustNew(t, cfg, opts)
			if p := s.CopyProblem(); p != "" {
				t.Fatalf("the system is copied by replay: %s", p)
			}
			zero := map[string]bool{}
			for _, f := range engine.WorldZeroFields(s) {
				zero[f] = true
			}
			// With every copy checked (MACEMC_CHECK_COPIES=1), the check
			// hashes the original afresh after the copy is made: its
			// cached hashes then differ from the copy's.
			checked := os.Getenv("MACEMC_CHECK_COPIES") == "1"
			var dst *engine.Sim
			staleIdle := 0
			for k := range 8 {
				walk(t, s, s.Steps()+60)
				now := engine.WorldZeroFields(s)
				for f := range zero {
					if !slices.Contains(now, f) {
						delete(zero, f)
					}
				}
				// A few more steps without hashing, up to one that empties
				// a connection: the copies get the parts of the hash they
				// made stale.
				for range 10 {
					if _, err := s.Step(); err != nil {
						t.Fatal(err)
					}
					if engine.StaleIdleConns(s) > 0 {
						staleIdle++
						break
					}
				}
				seed := uint64(100 + k)
				a := s.Clone(engine.NewRandom(seed))
				if d := engine.WorldDiff(s, a); d != "" && !checked {
					t.Fatalf("checkpoint %d: Clone: %s", k, d)
				}
				b := s.CloneInto(dst, engine.NewRandom(seed))
				if dst != nil && b != dst {
					t.Fatalf("checkpoint %d: CloneInto made a new simulator", k)
				}
				if d := engine.WorldDiff(s, b); d != "" && !checked {
					t.Fatalf("checkpoint %d: CloneInto: %s", k, d)
				}
				before := s.Hash()
				ref, err := engine.Replay(cfg, s.ChoiceValues(), s.Steps(), opts)
				if err != nil {
					t.Fatal(err)
				}
				ref.SetChooser(engine.NewRandom(seed))
				for name, cp := range map[string]*engine.Sim{"Clone": a, "CloneInto": b} {
					if got, want := cp.ChoiceValues(), ref.ChoiceValues(); !slices.Equal(got, want) {
						t.Fatalf("checkpoint %d: %s: choices differ", k, name)
					}
					if got, want := cp.LastFairSource(), s.LastFairSource(); got != want {
						t.Fatalf("checkpoint %d: %s: the last event's fair source is %x, the original's %x", k, name, got, want)
					}
				}
				for step := 0; step <= 100; step++ {
					// The replay hashed none of its datagrams before the
					// last step, so its LastFairSource may differ until
					// its states are hashed as the copies' were.
					want := stateSummary(ref, step > 0)
					for name, cp := range map[string]*engine.Sim{"Clone": a, "CloneInto": b} {
						if got := stateSummary(cp, step > 0); got != want {
							t.Fatalf("checkpoint %d (step %d), %d steps on: the %s copy differs from a copy by replay:\n%s\nreplay:\n%s", k, s.Steps(), step, name, got, want)
						}
					}
					if step == 100 {
						break
					}
					okR, errR := ref.Step()
					okA, errA := a.Step()
					okB, errB := b.Step()
					if okA != okR || okB != okR || (errA == nil) != (errR == nil) || (errB == nil) != (errR == nil) {
						t.Fatalf("checkpoint %d, step %d: replay %v %v, Clone %v %v, CloneInto %v %v", k, step, okR, errR, okA, errA, okB, errB)
					}
					if !okR || errR != nil {
						break
					}
				}
				if s.Hash() != before {
					t.Fatalf("checkpoint %d: stepping the copies changed the original", k)
				}
				if dst != nil && b.InFlight() == s.InFlight() && b.Hash() == s.Hash() {
					t.Fatalf("checkpoint %d: the next CloneInto would not replace another state", k)
				}
				dst = b
			}
			if staleIdle == 0 {
				t.Error("no checkpoint had a connection emptied since the last Hash: the copy of the stale parts of the hash is not checked")
			}
			// salt and saltN only change for a state that holds what
			// hashing cannot read, which is copied by replay.
			delete(zero, "salt")
			delete(zero, "saltN")
			if len(zero) > 0 {
				t.Errorf("no checkpoint set the world's fields %v: make the test system set them, so that the copy of every field is checked", slices.Sorted(maps.Keys(zero)))
			}
		})
	}
}

// stateSummary is what a state shows from outside: its hash, step count,
// ready events (in order, with their causes and fair sources), the last
// event (and its fair source with fair), the steps that used shared or
// global state, the network's and every node's text, and the history.
func stateSummary(s *engine.Sim, fair bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hash %x (err %v), %d steps, %d in flight\n", s.Hash(), s.HashErr(), s.Steps(), s.InFlight())
	for _, e := range s.Ready() {
		fmt.Fprintf(&b, "ready: %s (cause %d, copied at %d, source %x)\n", e, e.Cause, e.CopiedAt(), s.FairSource(e))
	}
	le := s.LastEvent()
	fmt.Fprintf(&b, "last: %s (cause %d)\n", le, le.Cause)
	if fair {
		fmt.Fprintf(&b, "last source: %x\n", s.LastFairSource())
	}
	for i := range s.Steps() {
		if s.Shared(i) || s.Global(i) {
			fmt.Fprintf(&b, "step %d: shared %v, global %v\n", i, s.Shared(i), s.Global(i))
		}
	}
	b.WriteString(s.NetworkText())
	for i := range s.Nodes() {
		fmt.Fprintf(&b, "node %d: %s\n", i, s.NodeText(sim.NodeID(i)))
	}
	for _, h := range s.History() {
		fmt.Fprintf(&b, "history: %s\n", h)
	}
	return b.String()
}
