package engine_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// A small transport-like system for benchmarks: a sender with a window of
// numbered DATA datagrams and a periodic retransmission timer, a receiver
// that acks cumulatively. Datagrams may be reordered and (a few) dropped.

type benchData struct{ Seq int }

type benchAck struct{ Next int }

type benchSender struct {
	sim.Base
	Acked, Next, Window int
	Retransmits         int
}

func (s *benchSender) Start(ctx *sim.Context) {
	s.Window = 4
	s.fill(ctx)
	ctx.SetPeriodic("retransmit")
}

func (s *benchSender) fill(ctx *sim.Context) {
	for s.Next < s.Acked+s.Window {
		ctx.SendDatagram(1, benchData{Seq: s.Next})
		s.Next++
	}
}

func (s *benchSender) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if a := m.(benchAck); a.Next > s.Acked {
		s.Acked = a.Next
		s.fill(ctx)
	}
}

func (s *benchSender) HandleTimer(ctx *sim.Context, name string) {
	if s.Acked < s.Next {
		s.Retransmits++
		ctx.SendDatagram(1, benchData{Seq: s.Acked})
	}
}

type benchReceiver struct {
	sim.Base
	Expected int
	Dups     int
}

func (r *benchReceiver) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	d := m.(benchData)
	if d.Seq == r.Expected {
		r.Expected++
	} else {
		r.Dups++
	}
	ctx.SendDatagram(0, benchAck{Next: r.Expected})
}

func benchConfig() *sim.Config {
	return &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &benchSender{}
			}
			return &benchReceiver{}
		},
		Failures: sim.Failures{Drops: 2, Reorder: true},
	}
}

// benchWalkLen is the length of each random walk (d_max); a new execution
// (Sim.Reset) starts after it.
const benchWalkLen = 2000

func benchWalk(b *testing.B, hash bool) {
	cfg := benchConfig()
	r := engine.NewRandom(1)
	s, err := engine.New(cfg, engine.Options{Chooser: r})
	if err != nil {
		b.Fatal(err)
	}
	var sink uint64
	walks := uint64(1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		ok, err := s.Step()
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			b.Fatal("the benchmark system went quiescent")
		}
		if hash {
			sink ^= s.Hash()
		}
		if s.Steps() >= benchWalkLen {
			walks++
			r.Reseed(walks)
			// The next walk from the initial state, reusing the
			// simulator's buffers as the search does.
			if err := s.Reset(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if ns := float64(cpuTime() - cpu); b.N > 0 && ns > 0 {
		b.ReportMetric(ns/float64(b.N), "cpu-ns/transition")
	}
	if ns := float64(b.Elapsed().Nanoseconds()); b.N > 0 && ns > 0 {
		b.ReportMetric(ns/float64(b.N), "ns/transition")
		b.ReportMetric(float64(b.N)/(ns/1e9), "transitions/s")
	}
	_ = sink
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp reports the process's CPU time since start per iteration of
// b's loop (the garbage collector's included): on a shared machine it is
// steadier than ns/op.
func cpuPerOp(b *testing.B, start time.Duration) {
	if d := cpuTime() - start; b.N > 0 && d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkWalk is a random walk of the transport system, without hashing.
func BenchmarkWalk(b *testing.B) { benchWalk(b, false) }

// BenchmarkWalkHash is the same walk with Sim.Hash after every step.
func BenchmarkWalkHash(b *testing.B) { benchWalk(b, true) }

// TestBenchSystem checks that the benchmark system does what it should:
// data flows, drops and reordering happen, and it never goes quiescent.
func TestBenchSystem(t *testing.T) {
	s := mustNew(t, benchConfig(), engine.Options{Chooser: engine.NewRandom(3)})
	walk(t, s, benchWalkLen)
	if s.Steps() != benchWalkLen {
		t.Fatalf("quiescent after %d steps", s.Steps())
	}
	snd, rcv := sim.Node[benchSender](s.View(), 0), sim.Node[benchReceiver](s.View(), 1)
	if rcv.Expected < 50 || snd.Acked < 40 || snd.Retransmits == 0 || rcv.Dups == 0 {
		t.Fatalf("sender %+v receiver %+v", snd, rcv)
	}
}

// A many-node system for the copy benchmarks: every node keeps a little
// state and a periodic timer, and the first few nodes each send a message
// to the next one at boot, so that a state holds a few busy connections
// out of the n*n the simulator keeps.

type meshNote struct {
	From, Seq int
	Path      []int
}

type meshNode struct {
	sim.Base
	ID, Got, Sent int
	Peers         []int
	Last          *meshNote
}

// meshSenders is how many nodes send at boot.
const meshSenders = 3

func (m *meshNode) Start(ctx *sim.Context) {
	m.ID = int(ctx.Self())
	m.Peers = []int{(m.ID + 1) % ctx.Nodes(), (m.ID + 2) % ctx.Nodes()}
	ctx.SetPeriodic("tick")
	if m.ID < meshSenders {
		m.Sent++
		ctx.Send(sim.NodeID(m.Peers[0]), &meshNote{From: m.ID, Seq: m.Sent, Path: []int{m.ID}})
	}
}

func (m *meshNode) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	n := msg.(*meshNote)
	m.Got++
	m.Last = n
	if len(n.Path) < 4 {
		m.Sent++
		ctx.Send(sim.NodeID(m.Peers[ctx.Rand(2)]), &meshNote{From: m.ID, Seq: m.Sent, Path: append(n.Path[:len(n.Path):len(n.Path)], m.ID)})
	}
}

func (m *meshNode) HandleTimer(ctx *sim.Context, _ string) {
	if m.Got > m.Sent && m.Sent < 3 {
		m.Sent++
		ctx.Send(sim.NodeID(m.Peers[1]), &meshNote{From: m.ID, Seq: m.Sent})
	}
}

func meshConfig(n int) *sim.Config {
	return &sim.Config{Nodes: n, Service: func(sim.NodeID) sim.Service { return &meshNode{} }}
}

// copyBenchNodes are the system sizes the copy benchmarks measure.
var copyBenchNodes = []int{4, 16, 64, 256}

// BenchmarkCopy: per system size, copying a state of the mesh system a few
// steps after boot, with a few busy connections: Clone (a new simulator),
// CloneInto a simulator used before (restore), and Reset of a used
// simulator to the initial state.
func BenchmarkCopy(b *testing.B) {
	for _, n := range copyBenchNodes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s, err := engine.New(meshConfig(n), engine.Options{Chooser: engine.NewRandom(1)})
			if err != nil {
				b.Fatal(err)
			}
			for range 5 {
				if _, err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			if in := s.InFlight(); in == 0 {
				b.Fatal("nothing in flight")
			}
			b.Run("clone", func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					_ = s.Clone(nil)
				}
				cpuPerOp(b, cpu)
			})
			b.Run("restore", func(b *testing.B) {
				dst := s.Clone(nil)
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					dst = s.CloneInto(dst, nil)
				}
				cpuPerOp(b, cpu)
			})
			b.Run("reset", func(b *testing.B) {
				r := engine.NewRandom(2)
				c := s.Clone(r)
				b.ReportAllocs()
				cpu := cpuTime()
				for i := 0; b.Loop(); i++ {
					r.Reseed(uint64(i))
					if err := c.Reset(r); err != nil {
						b.Fatal(err)
					}
				}
				cpuPerOp(b, cpu)
			})
		})
	}
}

// BenchmarkWalkGuarded is BenchmarkWalk run under Guard, as a search runs
// its paths; BenchmarkWalkGuardedCryptoRand the same with the crypto/rand
// stand-in on (sim.UseDeterministicCryptoRand), which publishes every
// handler's Context for its goroutine: it cost 20-35 times the walk when
// every handler read its goroutine's ID from the stack.
func BenchmarkWalkGuarded(b *testing.B) { benchGuardedWalk(b, false) }

func BenchmarkWalkGuardedCryptoRand(b *testing.B) { benchGuardedWalk(b, true) }

func benchGuardedWalk(b *testing.B, crypto bool) {
	if crypto {
		b.Cleanup(sim.UseDeterministicCryptoRand())
	}
	r := engine.NewRandom(1)
	s, err := engine.New(benchConfig(), engine.Options{Chooser: r})
	if err != nil {
		b.Fatal(err)
	}
	walks := uint64(1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	err = s.Guard(time.Minute, func() error {
		for range b.N {
			if ok, err := s.Step(); err != nil || !ok {
				return fmt.Errorf("step %d: %v (quiescent: %v)", s.Steps(), err, !ok)
			}
			if s.Steps() >= benchWalkLen {
				walks++
				r.Reseed(walks)
				if err := s.Reset(r); err != nil {
					return err
				}
			}
		}
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if ns := float64(cpuTime() - cpu); b.N > 0 && ns > 0 {
		b.ReportMetric(ns/float64(b.N), "cpu-ns/transition")
	}
}
