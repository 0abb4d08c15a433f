package engine_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// This file holds the services the sim tests share.

// Num is a numbered message.
type Num struct {
	From sim.NodeID
	Seq  int
}

// Do is a scripted application request: it runs on the node it is queued at.
type Do func(ctx *sim.Context, n *Script)

// Script is a node whose behaviour the test gives as functions. It records
// what it saw, so that a test can assert on delivery order.
type Script struct {
	sim.Base
	ID       sim.NodeID
	Got      []Num // every Num delivered, in delivery order
	ConnErrs []sim.NodeID
	Fired    []string
	Rands    []int
	Started  int

	start   func(ctx *sim.Context, n *Script)
	onMsg   func(ctx *sim.Context, n *Script, from sim.NodeID, m sim.Message)
	onTimer func(ctx *sim.Context, n *Script, name string)
}

func (n *Script) Start(ctx *sim.Context) {
	n.ID = ctx.Self()
	n.Started++
	if n.start != nil {
		n.start(ctx, n)
	}
}

// Named is a scripted request with a name that shows in event text.
type Named struct {
	Name string
	do   Do
}

func (n *Script) HandleApp(ctx *sim.Context, req any) {
	switch r := req.(type) {
	case Do:
		r(ctx, n)
	case Named:
		r.do(ctx, n)
	}
}

func (n *Script) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if v, ok := m.(Num); ok {
		n.Got = append(n.Got, v)
	}
	if n.onMsg != nil {
		n.onMsg(ctx, n, from, m)
	}
}

func (n *Script) HandleTimer(ctx *sim.Context, name string) {
	n.Fired = append(n.Fired, name)
	if n.onTimer != nil {
		n.onTimer(ctx, n, name)
	}
}

func (n *Script) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	n.ConnErrs = append(n.ConnErrs, peer)
}

// scriptConfig returns a config of nodes Script nodes; app gives each
// node's scripted requests (may be nil).
func scriptConfig(nodes int, app func(id sim.NodeID) []Do) *sim.Config {
	return &sim.Config{
		Nodes:   nodes,
		Service: func(sim.NodeID) sim.Service { return &Script{} },
		App: func(id sim.NodeID) []any {
			if app == nil {
				return nil
			}
			var out []any
			for _, d := range app(id) {
				out = append(out, d)
			}
			return out
		},
	}
}

// sendNums returns a request that sends count numbered messages to to,
// reliably or as datagrams.
func sendNums(to sim.NodeID, count int, datagram bool) Do {
	return func(ctx *sim.Context, n *Script) {
		for i := 1; i <= count; i++ {
			if datagram {
				ctx.SendDatagram(to, Num{From: n.ID, Seq: i})
			} else {
				ctx.Send(to, Num{From: n.ID, Seq: i})
			}
		}
	}
}

// Mixed exercises every kind of choice point and event: reliable sends,
// datagrams, one-shot and periodic timers, Rand, Elapsed, Monotone, maps
// in its state, and service log annotations.
type Mixed struct {
	sim.Base
	ID     sim.NodeID
	Seen   map[sim.NodeID]int
	Tags   map[string][]int
	Last   sim.Time
	Stamp  uint64
	Rounds int
	hidden int
}

// Tick is Mixed's reliable message; Gram its datagram.
type Tick struct {
	From sim.NodeID
	N    int
}

type Gram struct {
	N    int
	Tags map[string]int
}

func (m *Mixed) Start(ctx *sim.Context) {
	m.ID = ctx.Self()
	m.Seen = map[sim.NodeID]int{}
	m.Tags = map[string][]int{}
	m.Stamp = ctx.Monotone()
	ctx.SetPeriodic("beat")
}

func (m *Mixed) HandleApp(ctx *sim.Context, req any) {
	n := req.(int)
	to := sim.NodeID((int(m.ID) + 1 + ctx.Rand(ctx.Nodes()-1)) % ctx.Nodes())
	ctx.Send(to, Tick{From: m.ID, N: n})
	ctx.SetTimer("once")
	ctx.Log().Int("n", n).Msg("app")
}

func (m *Mixed) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	m.Seen[from]++
	switch v := msg.(type) {
	case Tick:
		m.Tags[fmt.Sprint("t", v.N)] = append(m.Tags[fmt.Sprint("t", v.N)], int(from))
		if v.N < 5 {
			ctx.SendDatagram(from, Gram{N: v.N + 1, Tags: map[string]int{"a": v.N, "b": int(from), "c": 3}})
		}
	case Gram:
		m.hidden += v.Tags["a"]
		if v.N < 5 {
			ctx.Send(from, Tick{From: m.ID, N: v.N + 1})
		}
	}
	ctx.Logf("seen %d", m.Seen[from])
}

func (m *Mixed) HandleTimer(ctx *sim.Context, name string) {
	m.Rounds++
	switch name {
	case "beat":
		if ctx.Elapsed(m.Last, time.Second) {
			m.Last = ctx.Now()
			ctx.SendDatagram(sim.NodeID((int(m.ID)+1)%ctx.Nodes()), Gram{N: 4})
		}
		if m.Rounds > 4 {
			ctx.CancelTimer("beat")
		}
	case "once":
		m.Tags["once"] = append(m.Tags["once"], ctx.Rand(3))
	}
}

func (m *Mixed) HandleConnError(ctx *sim.Context, peer sim.NodeID) { m.Seen[peer] = -1 }

// mixedConfig is a three-node system with every failure kind on.
func mixedConfig() *sim.Config {
	return &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &Mixed{} },
		App:     func(id sim.NodeID) []any { return []any{1, 2} },
		Failures: sim.Failures{
			Resets: 1, Breaks: 2, Drops: 2, Reorder: true,
		},
		Weights: sim.Weights{Failure: 3},
	}
}

// run records one execution: the state hash after New and after every
// step, the log bytes, and the final simulator.
type run struct {
	s      *engine.Sim
	hashes []uint64
	log    []byte
}

// walk steps s until quiescent or max steps, hashing after every step.
func walk(t testing.TB, s *engine.Sim, max int) []uint64 {
	t.Helper()
	var hs []uint64
	for s.Steps() < max {
		ok, err := s.Step()
		if err != nil {
			t.Fatalf("step %d: %v", s.Steps(), err)
		}
		if !ok {
			break
		}
		hs = append(hs, s.Hash())
	}
	return hs
}

func record(t testing.TB, cfg *sim.Config, c engine.Chooser, max int) run {
	t.Helper()
	var buf bytes.Buffer
	s, err := engine.New(cfg, engine.Options{Chooser: c, Logger: engine.NewLogger(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	hs := append([]uint64{s.Hash()}, walk(t, s, max)...)
	return run{s: s, hashes: hs, log: buf.Bytes()}
}

// readyStrings describes the ready list.
func readyStrings(s *engine.Sim) []string {
	var out []string
	for _, e := range s.Ready() {
		out = append(out, e.Kind.String()+": "+e.String())
	}
	return out
}

// findReady returns the index of the first ready event for which pred
// holds, failing the test if there is none.
func findReady(t testing.TB, s *engine.Sim, what string, pred func(e engine.Event) bool) int {
	t.Helper()
	for i, e := range s.Ready() {
		if pred(e) {
			return i
		}
	}
	t.Fatalf("no ready event %s; ready: %q", what, readyStrings(s))
	return -1
}

func mustStepEvent(t testing.TB, s *engine.Sim, i int) {
	t.Helper()
	if err := s.StepEvent(i); err != nil {
		t.Fatal(err)
	}
}

func mustNew(t testing.TB, cfg *sim.Config, opts engine.Options) *engine.Sim {
	t.Helper()
	s, err := engine.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kinds counts the ready events of each kind.
func kinds(s *engine.Sim) map[engine.EventKind]int {
	m := map[engine.EventKind]int{}
	for _, e := range s.Ready() {
		m[e.Kind]++
	}
	return m
}

// Ping plays ping-pong: node 0's driver serves, each node returns the ball
// with its count raised, up to 4.
type Ping struct {
	sim.Base
	Count int
}

// Ball is the message the nodes exchange.
type Ball struct{ N int }

func (p *Ping) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, Ball{N: 1}) }

func (p *Ping) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b := m.(Ball)
	p.Count = b.N
	if b.N < 4 {
		ctx.Send(from, Ball{N: b.N + 1})
	}
}

func pingConfig() *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &Ping{} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"serve"}
			}
			return nil
		},
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 })
		}}},
	}
}
