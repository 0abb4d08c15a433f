package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// disk is a node with durable state: its log survives a reset, its
// volatile counter does not.
type disk struct {
	sim.Base
	Store    *diskStore
	Volatile int
	Boots    []bool // Restarted() at every Start
}

type diskStore struct{ Log []int }

func (d *disk) Durable() any        { return d.Store }
func (d *disk) Restore(durable any) { d.Store = durable.(*diskStore) }

func (d *disk) Start(ctx *sim.Context) {
	if d.Store == nil {
		d.Store = &diskStore{}
	}
	d.Boots = append(d.Boots, ctx.Restarted())
}

func (d *disk) HandleApp(ctx *sim.Context, req any) {
	d.Store.Log = append(d.Store.Log, req.(int))
	d.Volatile++
}

// pick answers event choices by the first ready event that satisfies f,
// and every other choice with 0.
type pick func(engine.Event) bool

func step(t *testing.T, s *engine.Sim, f pick) engine.Event {
	t.Helper()
	for i, ev := range s.Ready() {
		if f(ev) {
			if err := s.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			return s.LastEvent()
		}
	}
	t.Fatalf("no ready event fits; ready: %v", s.Ready())
	return engine.Event{}
}

func kind(k engine.EventKind, node sim.NodeID) pick {
	return func(ev engine.Event) bool { return ev.Kind == k && ev.Node == node }
}

// TestDurableReset: a reset keeps what the service declares durable and
// rebuilds the rest; Start knows it restarts.
func TestDurableReset(t *testing.T) {
	cfg := &sim.Config{
		Nodes:      1,
		Service:    func(sim.NodeID) sim.Service { return &disk{} },
		App:        func(sim.NodeID) []any { return []any{1, 2, 3} },
		Failures:   sim.Failures{Resets: 1},
		KeepDriver: true,
	}
	s := mustNew(t, cfg, engine.Options{})
	step(t, s, kind(engine.EvApp, 0))
	step(t, s, kind(engine.EvApp, 0))
	before := s.Hash()
	step(t, s, kind(engine.EvReset, 0))
	d := sim.Node[disk](s.View(), 0)
	if !slices.Equal(d.Store.Log, []int{1, 2}) || d.Volatile != 0 || !slices.Equal(d.Boots, []bool{true}) {
		t.Fatalf("after the reset: %+v %+v", d, d.Store)
	}
	if s.Hash() == before {
		t.Fatal("the reset did not change the state")
	}
	// KeepDriver: the driver goes on with request 3, not 1.
	step(t, s, kind(engine.EvApp, 0))
	if d := sim.Node[disk](s.View(), 0); !slices.Equal(d.Store.Log, []int{1, 2, 3}) {
		t.Fatalf("log %v", d.Store.Log)
	}
	// At boot, Restarted is false.
	s2 := mustNew(t, cfg, engine.Options{})
	if d := sim.Node[disk](s2.View(), 0); !slices.Equal(d.Boots, []bool{false}) {
		t.Fatalf("boot: %v", d.Boots)
	}
}

// TestCrashStop: a crashed node stays down; what was in flight to it is
// lost, its peers with messages in flight learn the connection broke, and
// later sends to it are lost too.
func TestCrashStop(t *testing.T) {
	cfg := scriptConfig(3, func(id sim.NodeID) []Do {
		if id == 0 {
			return []Do{sendNums(1, 2, false), sendNums(1, 1, true), sendNums(1, 1, false)}
		}
		return nil
	})
	cfg.Failures = sim.Failures{Crashes: 1, Nodes: []sim.NodeID{1}}
	s := mustNew(t, cfg, engine.Options{})
	step(t, s, kind(engine.EvApp, 0))
	step(t, s, kind(engine.EvApp, 0))
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvCrash && ev.Node != 1 {
			t.Fatalf("node %d may crash; only node 1 may", ev.Node)
		}
	}
	if strings.Contains(s.NodeText(1), "down:") {
		t.Fatalf("a running node's state text says it is down:\n%s", s.NodeText(1))
	}
	ev := step(t, s, kind(engine.EvCrash, 1))
	if ev.String() != "node 1 crashes and stays down" || s.View().Up(1) || !s.View().Up(0) {
		t.Fatalf("crash: %v up %v", ev, s.View().Up(1))
	}
	// Its state text (mdb's state, the page) says so.
	if text := s.NodeText(1); !strings.Contains(text, "\ndown: crashed for good") || strings.Contains(s.NodeText(0), "down:") {
		t.Fatalf("the crashed node's state text does not say it is down:\n%s", text)
	}
	if s.InFlight() != 0 {
		t.Fatalf("%d in flight to a crashed node", s.InFlight())
	}
	step(t, s, kind(engine.EvConnError, 0))
	step(t, s, kind(engine.EvApp, 0)) // sends to node 1: lost
	if s.InFlight() != 0 || len(s.Ready()) != 0 {
		t.Fatalf("after sending to a crashed node: %d in flight, ready %v", s.InFlight(), s.Ready())
	}
}

// TestPartitionHeals: during a partition reliable messages across it wait,
// datagrams across it are lost; after it heals the messages arrive in
// order.
func TestPartitionHeals(t *testing.T) {
	cfg := scriptConfig(3, func(id sim.NodeID) []Do {
		if id == 0 {
			return []Do{sendNums(2, 2, false), sendNums(2, 1, true), sendNums(1, 1, true)}
		}
		return nil
	})
	cfg.Failures = sim.Failures{Partitions: 1}
	s := mustNew(t, cfg, engine.Options{})
	var sides []uint64
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvPartition {
			sides = append(sides, ev.Side())
		}
	}
	if !slices.Equal(sides, []uint64{1, 2, 4}) {
		t.Fatalf("partition sides %v, want each node alone", sides)
	}
	step(t, s, kind(engine.EvApp, 0))
	ev := step(t, s, func(ev engine.Event) bool { return ev.Kind == engine.EvPartition && ev.Side() == 4 })
	if ev.String() != "the network partitions: {2} | the rest" {
		t.Fatal(ev)
	}
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvMessage || ev.Kind == engine.EvPartition {
			t.Fatalf("ready during the partition: %v", ev)
		}
	}
	step(t, s, kind(engine.EvApp, 0)) // a datagram to node 2: lost
	step(t, s, kind(engine.EvApp, 0)) // a datagram to node 1: same side
	if s.InFlight() != 3 {
		t.Fatalf("%d in flight, want the 2 held messages and 1 datagram", s.InFlight())
	}
	step(t, s, func(ev engine.Event) bool { return ev.Kind == engine.EvHeal })
	step(t, s, kind(engine.EvMessage, 2))
	step(t, s, kind(engine.EvMessage, 2))
	if got := sim.Node[Script](s.View(), 2).Got; len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 {
		t.Fatalf("node 2 got %v", got)
	}
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvPartition {
			t.Fatal("a second partition beyond the budget")
		}
	}
}

// TestDuplicate: a duplicated datagram is delivered twice; links limit
// where it may happen; the copy's events say which step made it
// (Event.CopiedAt).
func TestDuplicate(t *testing.T) {
	cfg := scriptConfig(3, func(id sim.NodeID) []Do {
		if id == 0 {
			return []Do{func(ctx *sim.Context, n *Script) {
				ctx.SendDatagram(1, Num{Seq: 1})
				ctx.SendDatagram(2, Num{Seq: 2})
			}}
		}
		return nil
	})
	cfg.Failures = sim.Failures{Duplicates: 1, Links: []sim.Link{{1, 0}}, Reorder: true}
	s := mustNew(t, cfg, engine.Options{})
	step(t, s, kind(engine.EvApp, 0))
	var dups []engine.Event
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvDuplicate {
			dups = append(dups, ev)
		}
	}
	if len(dups) != 1 || dups[0].Node != 1 {
		t.Fatalf("duplicable datagrams %v, want only the one on link 0-1", dups)
	}
	if c := dups[0].CopiedAt(); c != -1 {
		t.Fatalf("the datagram as sent says it is a copy made by transition %d", c)
	}
	step(t, s, kind(engine.EvDuplicate, 1))
	// The copy (made by transition 1) follows its original (sent by
	// transition 0) in the ready list; both have the original's cause.
	var got []string
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvDatagram && ev.Node == 1 {
			got = append(got, fmt.Sprintf("cause %d copied %d", ev.Cause, ev.CopiedAt()))
		}
	}
	if want := []string{"cause 0 copied -1", "cause 0 copied 1"}; !slices.Equal(got, want) {
		t.Fatalf("datagrams to node 1: %v, want %v", got, want)
	}
	// Delivered, the copy still says so.
	if ev := step(t, s, func(ev engine.Event) bool { return ev.Kind == engine.EvDatagram && ev.CopiedAt() == 1 }); ev.CopiedAt() != 1 || ev.Cause != 0 {
		t.Fatalf("the copy delivered: cause %d copied %d", ev.Cause, ev.CopiedAt())
	}
	if ev := step(t, s, kind(engine.EvDatagram, 1)); ev.CopiedAt() != -1 || ev.Cause != 0 {
		t.Fatalf("the original delivered: cause %d copied %d", ev.Cause, ev.CopiedAt())
	}
	if got := sim.Node[Script](s.View(), 1).Got; len(got) != 2 {
		t.Fatalf("node 1 got %v", got)
	}
}

// TestDriverWaits: a sim.Request is delivered only once its condition
// holds, and holds back the requests after it.
func TestDriverWaits(t *testing.T) {
	ready := func(v *sim.View) bool { return len(sim.Node[Script](v, 1).Got) > 0 }
	cfg := scriptConfig(2, nil)
	cfg.App = func(id sim.NodeID) []any {
		if id == 0 {
			return []any{Do(sendNums(1, 1, false)), sim.Request{Req: Do(sendNums(1, 1, true)), When: ready, Name: "node 1 heard"}, Do(sendNums(1, 1, true))}
		}
		return nil
	}
	s := mustNew(t, cfg, engine.Options{})
	step(t, s, kind(engine.EvApp, 0))
	for _, ev := range s.Ready() {
		if ev.Kind == engine.EvApp {
			t.Fatalf("the request ran before its condition held: %v", s.Ready())
		}
	}
	step(t, s, kind(engine.EvMessage, 1))
	step(t, s, kind(engine.EvApp, 0))
	if s.InFlight() != 1 {
		t.Fatal("the waiting request did not run")
	}
	// A condition that panics fails the step, naming the request.
	cfg.App = func(id sim.NodeID) []any {
		return []any{sim.Request{Req: 1, When: func(*sim.View) bool { panic("bad") }, Name: "cond"}}
	}
	s = mustNew(t, cfg, engine.Options{})
	var pe *engine.PropertyPanicError
	if _, err := s.Step(); !errors.As(err, &pe) || pe.Property != "cond" || !pe.Condition || pe.Node != 0 || !strings.Contains(pe.Stack, "TestDriverWaits") ||
		err.Error() != "sim: the condition of node 0's driver request cond panicked in the initial state: bad" {
		t.Fatalf("panicking condition: %v (%+v)", err, pe)
	}
}

// TestMisuse: invalid uses of the Context are handler panics holding a
// *MisuseError that says what was wrong.
func TestMisuse(t *testing.T) {
	for _, c := range []struct {
		do   Do
		want string
	}{
		{func(ctx *sim.Context, n *Script) { ctx.Rand(0) }, "node 0 asks for Rand(0)"},
		{func(ctx *sim.Context, n *Script) { ctx.Rand(1 << 40) }, "node 0 asks for Rand(1099511627776)"},
		{func(ctx *sim.Context, n *Script) { ctx.SetTimer("") }, "node 0 sets a timer without a name"},
		{func(ctx *sim.Context, n *Script) { ctx.Send(1, nil) }, "node 0 sends a nil message to node 1"},
		{func(ctx *sim.Context, n *Script) { ctx.SendDatagram(-1, Num{}) }, "node 0 sends Num{From: 0, Seq: 0} to node -1, which does not exist"},
		{func(ctx *sim.Context, n *Script) { ctx.Elapsed(ctx.Now(), -1) }, "negative duration"},
	} {
		s := mustNew(t, scriptConfig(2, func(id sim.NodeID) []Do {
			if id == 0 {
				return []Do{c.do}
			}
			return nil
		}), engine.Options{})
		_, err := s.Step()
		var m *engine.MisuseError
		if !errors.Is(err, engine.ErrHandlerPanic) || !errors.As(err, &m) || m.Node != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
}

// TestBootPanic: a panic in Start is New's error, and the simulator it
// returns shows the state and refuses to step.
func TestBootPanic(t *testing.T) {
	cfg := scriptConfig(2, nil)
	cfg.Service = func(id sim.NodeID) sim.Service {
		return &Script{start: func(ctx *sim.Context, n *Script) {
			if ctx.Self() == 1 {
				var seen []int
				_ = seen[ctx.Self()] // index out of range
			}
		}}
	}
	s, err := engine.New(cfg, engine.Options{})
	var hp *engine.HandlerPanicError
	if !errors.As(err, &hp) || hp.Step != 0 || hp.Node != 1 || s == nil || !strings.Contains(hp.Error(), "panic in handler of node 1 at boot") {
		t.Fatalf("boot panic: %v", err)
	}
	if _, err2 := s.Step(); !errors.As(err2, &hp) {
		t.Fatalf("stepping a failed boot: %v", err2)
	}
	if !strings.Contains(hp.Stack, "engine_test.TestBootPanic") {
		t.Fatalf("stack %q", hp.Stack)
	}
}
