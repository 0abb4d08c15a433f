package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// kv is a client/server pair for history tests: a client node (ids 0 and
// 1, client = node id) invokes its driver request and sends it to node 2,
// which answers; the client returns the answer.
type kv struct {
	sim.Base
	Pending bool
}

type (
	op    struct{ Name string }
	reply struct{ Result int }
)

func (k *kv) HandleApp(ctx *sim.Context, req any) {
	ctx.Invoke(int(ctx.Self()), req)
	k.Pending = true
	ctx.Send(2, req)
}

func (k *kv) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case op:
		ctx.Send(from, reply{Result: len(m.Name)})
	case reply:
		k.Pending = false
		ctx.Return(int(ctx.Self()), m.Result)
	}
}

func kvConfig() *sim.Config {
	return &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &kv{} },
		App: func(id sim.NodeID) []any {
			switch id {
			case 0:
				return []any{op{"a"}}
			case 1:
				return []any{op{"bb"}}
			}
			return nil
		},
		Failures: sim.Failures{Resets: 1},
	}
}

// pick returns the index of the ready event that matches.
func pickEvent(t *testing.T, s *engine.Sim, kind engine.EventKind, node sim.NodeID) int {
	t.Helper()
	for i, e := range s.Ready() {
		if e.Kind == kind && e.Node == node {
			return i
		}
	}
	t.Fatalf("no %s event at node %d ready: %v", kind, node, s.Ready())
	return -1
}

// script executes the scripted events in order and returns the simulator.
func script(t *testing.T, steps ...[2]int) *engine.Sim {
	t.Helper()
	s, err := engine.New(kvConfig(), engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if err := s.StepEvent(pickEvent(t, s, engine.EventKind(st[0]), sim.NodeID(st[1]))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

var (
	app0, app1      = [2]int{int(engine.EvApp), 0}, [2]int{int(engine.EvApp), 1}
	srv, msg0, msg1 = [2]int{int(engine.EvMessage), 2}, [2]int{int(engine.EvMessage), 0}, [2]int{int(engine.EvMessage), 1}
	reset0          = [2]int{int(engine.EvReset), 0}
)

// TestHistoryRecorded: invocations and responses are recorded with their
// clients, values, nodes and steps; the View shows the same history.
func TestHistoryRecorded(t *testing.T) {
	s := script(t, app0, srv, msg0)
	want := "step 1  node 0  client 0 invokes op{Name: \"a\"}\nstep 3  node 0  client 0 returns 1\n"
	if got := s.HistoryText(); got != want {
		t.Fatalf("history:\n%s\nwant:\n%s", got, want)
	}
	h := s.View().History()
	if len(h) != 2 || h[0].Kind != sim.Invocation || h[1].Kind != sim.Response || h[1].Value != 1 || h[1].Step != 3 {
		t.Fatalf("View().History() = %+v", h)
	}
	if s.HistoryHash() == 0 {
		t.Fatal("a history with events hashes to 0")
	}
}

// TestHistoryCanonical: the history's hash is its canonical form: the
// order of two concurrent invocations does not matter, whether one
// operation returned before the other was invoked does; Sim.Hash follows.
func TestHistoryCanonical(t *testing.T) {
	// Both invoked before either returns, in either order.
	a := script(t, app0, app1, srv, srv, msg0, msg1)
	b := script(t, app1, app0, srv, srv, msg1, msg0)
	if a.HistoryText() == b.HistoryText() {
		t.Fatal("the two executions recorded the same chronological history")
	}
	if a.HistoryHash() != b.HistoryHash() || a.Hash() != b.Hash() {
		t.Fatal("concurrent operations recorded in another order hash differently")
	}
	// Client 0's operation returns before client 1 invokes.
	c := script(t, app0, srv, msg0, app1, srv, msg1)
	if c.HistoryHash() == a.HistoryHash() || c.Hash() == a.Hash() {
		t.Fatal("a history whose operations are ordered in real time hashes like one where they overlap")
	}
	// The same operations, returning in the other order, but overlapping
	// all the same: equal.
	d := script(t, app0, app1, srv, srv, msg1, msg0)
	if d.HistoryHash() != a.HistoryHash() {
		t.Fatal("the order of two responses changed the canonical form")
	}
}

// TestHistoryMisuse: a client that invokes while its operation is pending,
// or returns with none pending, misuses the API (ErrMisuse, a kind of
// handler panic).
func TestHistoryMisuse(t *testing.T) {
	cfg := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{
			func(ctx *sim.Context, _ *Script) { ctx.Invoke(0, "x"); ctx.Invoke(0, "y") },
		}
	})
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(); !errors.Is(err, engine.ErrMisuse) || !errors.Is(err, engine.ErrHandlerPanic) || !strings.Contains(err.Error(), "pending") {
		t.Fatalf("invoke while pending: %v", err)
	}
	cfg = scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, _ *Script) { ctx.Return(3, "x") }}
	})
	if s, err = engine.New(cfg, engine.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(); !errors.Is(err, engine.ErrMisuse) || !strings.Contains(err.Error(), "no operation pending") {
		t.Fatalf("return with nothing pending: %v", err)
	}
}

// TestHistoryReset: a node that resets abandons the operations it
// invoked: they stay pending in the history, the client invokes again,
// and the state differs from one where the operation was never invoked.
func TestHistoryReset(t *testing.T) {
	s := script(t, app0, reset0, app0, srv, srv, msg0)
	want := "step 1  node 0  client 0 invokes op{Name: \"a\"}\nstep 3  node 0  client 0 invokes op{Name: \"a\"}\nstep 6  node 0  client 0 returns 1\n"
	if got := s.HistoryText(); got != want {
		t.Fatalf("history:\n%s\nwant:\n%s", got, want)
	}
	fresh := script(t, reset0, app0, srv, msg0)
	if fresh.HistoryHash() == s.HistoryHash() {
		t.Fatal("an abandoned operation does not count")
	}
}

// TestHistoryClone: a clone has its own copy of the history; a reset
// simulator has none.
func TestHistoryClone(t *testing.T) {
	s := script(t, app0)
	c := s.Clone(engine.NewRandom(1))
	if err := s.StepEvent(pickEvent(t, s, engine.EvApp, 1)); err != nil {
		t.Fatal(err)
	}
	if len(c.History()) != 1 || len(s.History()) != 2 || c.HistoryHash() == s.HistoryHash() {
		t.Fatalf("clone %d events, original %d", len(c.History()), len(s.History()))
	}
	if err := s.Reset(engine.NewRandom(1)); err != nil {
		t.Fatal(err)
	}
	if len(s.History()) != 0 || s.HistoryHash() != 0 {
		t.Fatal("Reset kept the history")
	}
}

// TestEventCause: an event's cause is the step that made it pending: the
// sending step of a message, the step that armed a timer, the reset that
// restarted a driver; -1 for what the initial state holds.
func TestEventCause(t *testing.T) {
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		if id != 0 {
			return nil
		}
		return []Do{func(ctx *sim.Context, _ *Script) { ctx.Send(1, Num{Seq: 1}); ctx.SetTimer("t") }}
	})
	cfg.Failures.Resets = 1
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	causes := func() map[string]int32 {
		out := map[string]int32{}
		for _, e := range s.Ready() {
			out[e.Kind.String()+string(rune('0'+e.Node))] = e.Cause
		}
		return out
	}
	if c := causes(); c["app0"] != -1 || c["reset0"] != -1 {
		t.Fatalf("initial causes %v", c)
	}
	if err := s.StepEvent(pickEvent(t, s, engine.EvApp, 0)); err != nil {
		t.Fatal(err)
	}
	if c := causes(); c["message1"] != 0 || c["timer0"] != 0 {
		t.Fatalf("after step 0: causes %v, want the message and timer caused by step 0", c)
	}
	if err := s.StepEvent(pickEvent(t, s, engine.EvMessage, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.StepEvent(pickEvent(t, s, engine.EvReset, 0)); err != nil {
		t.Fatal(err)
	}
	if c := causes(); c["app0"] != 2 {
		t.Fatalf("after the reset at step 2: causes %v, want the driver's request caused by it", c)
	}
}

// TestFailureEventCause: injected failures and the connection errors they
// cause have no cause (-1), whatever step made their connection busy.
func TestFailureEventCause(t *testing.T) {
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		if id != 0 {
			return nil
		}
		return []Do{func(ctx *sim.Context, _ *Script) { ctx.Send(1, Num{Seq: 1}) }}
	})
	cfg.Failures.Breaks = 1
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StepEvent(pickEvent(t, s, engine.EvApp, 0)); err != nil {
		t.Fatal(err)
	}
	brk := pickEvent(t, s, engine.EvBreak, 0)
	if c := s.Ready()[brk].Cause; c != -1 {
		t.Fatalf("break: cause %d", c)
	}
	if err := s.StepEvent(brk); err != nil {
		t.Fatal(err)
	}
	for _, node := range []sim.NodeID{0, 1} {
		if c := s.Ready()[pickEvent(t, s, engine.EvConnError, node)].Cause; c != -1 {
			t.Errorf("connection error at node %d: cause %d", node, c)
		}
	}
}

// TestShared: a step whose handler used Monotone is marked shared.
func TestShared(t *testing.T) {
	cfg := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(*sim.Context, *Script) {}, func(ctx *sim.Context, _ *Script) { ctx.Monotone() }}
	})
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if s.Shared(0) || !s.Shared(1) || s.Shared(2) || s.Shared(-1) {
		t.Fatalf("Shared: %v %v %v", s.Shared(0), s.Shared(1), s.Shared(2))
	}
}
