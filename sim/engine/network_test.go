package engine_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// runAll steps s with a seeded random chooser until quiescent.
func runAll(t *testing.T, s *engine.Sim, seed uint64) {
	t.Helper()
	s.SetChooser(engine.NewRandom(seed))
	walk(t, s, 100000)
}

func seqs(got []Num, from sim.NodeID) []int {
	var out []int
	for _, m := range got {
		if m.From == from {
			out = append(out, m.Seq)
		}
	}
	return out
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// TestReliableFIFO: many messages on one connection arrive in order, and only
// the head of each connection is ready; connections interleave freely.
func TestReliableFIFO(t *testing.T) {
	const n = 60
	cfg := scriptConfig(3, func(id sim.NodeID) []Do {
		switch id {
		case 0:
			return []Do{sendNums(1, n, false)}
		case 2:
			return []Do{sendNums(1, n, false), sendNums(0, 5, false)}
		}
		return nil
	})
	for seed := uint64(0); seed < 5; seed++ {
		s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(seed)})
		next := map[sim.NodeID]int{0: 1, 2: 1} // next Seq expected per sender at node 1
		interleaved := false
		last := sim.NodeID(-1)
		for {
			// Only the head of each connection is ready.
			perConn := map[[2]sim.NodeID]int{}
			for _, e := range s.Ready() {
				if e.Kind != engine.EvMessage {
					continue
				}
				perConn[[2]sim.NodeID{e.Peer, e.Node}]++
				if e.Node == 1 && e.Msg.(Num).Seq != next[e.Peer] {
					t.Fatalf("seed %d: ready message %v is not the head %d", seed, e, next[e.Peer])
				}
			}
			for c, k := range perConn {
				if k != 1 {
					t.Fatalf("seed %d: %d ready messages on connection %v", seed, k, c)
				}
			}
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if e := s.LastEvent(); e.Kind == engine.EvMessage && e.Node == 1 {
				next[e.Peer]++
				if last >= 0 && last != e.Peer {
					interleaved = true
				}
				last = e.Peer
			}
		}
		got := sim.Node[Script](s.View(), 1).Got
		if !slices.Equal(seqs(got, 0), upTo(n)) || !slices.Equal(seqs(got, 2), upTo(n)) {
			t.Fatalf("seed %d: node 1 got %v", seed, got)
		}
		if !slices.Equal(seqs(sim.Node[Script](s.View(), 0).Got, 2), upTo(5)) {
			t.Fatalf("seed %d: node 0 got %v", seed, sim.Node[Script](s.View(), 0).Got)
		}
		if !interleaved {
			t.Fatalf("seed %d: the two connections never interleaved", seed)
		}
		if s.InFlight() != 0 {
			t.Fatalf("quiescent with %d in flight", s.InFlight())
		}
	}
}

// TestSendToSelf: a node may send to itself.
func TestSendToSelf(t *testing.T) {
	s := mustNew(t, scriptConfig(1, func(sim.NodeID) []Do { return []Do{sendNums(0, 3, false), sendNums(0, 2, true)} }), engine.Options{})
	runAll(t, s, 1)
	if got := sim.Node[Script](s.View(), 0).Got; len(got) != 5 || !slices.Equal(seqs(got, 0)[:0], []int{}) {
		t.Fatalf("got %v", got)
	}
}

// TestBreak: a break loses what is in flight both ways, gives both ends
// HandleConnError, is offered only while something is in flight, and is
// bounded by Failures.Breaks.
func TestBreak(t *testing.T) {
	cfg := scriptConfig(3, func(id sim.NodeID) []Do {
		switch id {
		case 0:
			return []Do{sendNums(1, 5, false)}
		case 1:
			return []Do{sendNums(0, 3, false), sendNums(2, 1, false), sendNums(0, 2, false)}
		}
		return nil
	})
	cfg.Failures.Breaks = 1
	s := mustNew(t, cfg, engine.Options{})
	if k := kinds(s); k[engine.EvBreak] != 0 {
		t.Fatalf("break offered with nothing in flight: %q", readyStrings(s))
	}
	isApp := func(id sim.NodeID) func(engine.Event) bool {
		return func(e engine.Event) bool { return e.Kind == engine.EvApp && e.Node == id }
	}
	mustStepEvent(t, s, findReady(t, s, "app 0", isApp(0)))
	// One direction in flight is enough for a break.
	if k := kinds(s); k[engine.EvBreak] != 1 {
		t.Fatalf("want one break: %q", readyStrings(s))
	}
	mustStepEvent(t, s, findReady(t, s, "app 1", isApp(1)))
	mustStepEvent(t, s, findReady(t, s, "app 1", isApp(1)))
	if s.InFlight() != 9 {
		t.Fatalf("in flight %d, want 9", s.InFlight())
	}
	// Deliver one message 0->1 first: it is not lost by the later break.
	mustStepEvent(t, s, findReady(t, s, "message 0->1", func(e engine.Event) bool { return e.Kind == engine.EvMessage && e.Node == 1 }))
	i := findReady(t, s, "break 0-1", func(e engine.Event) bool { return e.Kind == engine.EvBreak && e.Node == 0 && e.Peer == 1 })
	if k := kinds(s); k[engine.EvBreak] != 2 {
		t.Fatalf("want breaks 0-1 and 1-2: %q", readyStrings(s))
	}
	mustStepEvent(t, s, i)
	// Both directions between 0 and 1 are empty; 1->2 is untouched.
	if s.InFlight() != 1 {
		t.Fatalf("in flight after break %d, want 1 (the 1->2 message): %s", s.InFlight(), s.NetworkText())
	}
	k := kinds(s)
	if k[engine.EvConnError] != 2 || k[engine.EvBreak] != 0 {
		t.Fatalf("after the break: %q", readyStrings(s))
	}
	for _, e := range s.Ready() {
		if e.Kind == engine.EvMessage && e.Node != 2 {
			t.Fatalf("message survived the break: %v", e)
		}
	}
	if !strings.Contains(s.NetworkText(), "connerror at 0: peer 1") || !strings.Contains(s.NetworkText(), "connerror at 1: peer 0") {
		t.Fatalf("network text: %s", s.NetworkText())
	}
	// New sends after the break go through (a new connection).
	mustStepEvent(t, s, findReady(t, s, "app 1", isApp(1)))
	if k := kinds(s); k[engine.EvBreak] != 0 {
		t.Fatal("break offered beyond Failures.Breaks")
	}
	runAll(t, s, 3)
	n0, n1 := sim.Node[Script](s.View(), 0), sim.Node[Script](s.View(), 1)
	if !slices.Equal(n0.ConnErrs, []sim.NodeID{1}) || !slices.Equal(n1.ConnErrs, []sim.NodeID{0}) {
		t.Fatalf("conn errors: node 0 %v, node 1 %v", n0.ConnErrs, n1.ConnErrs)
	}
	if !slices.Equal(seqs(n1.Got, 0), []int{1}) || !slices.Equal(seqs(n0.Got, 1), []int{1, 2}) {
		t.Fatalf("delivered after break: node 1 %v, node 0 %v", n1.Got, n0.Got)
	}
	if len(sim.Node[Script](s.View(), 2).Got) != 1 {
		t.Fatal("the 1->2 message was lost")
	}
}

// TestDatagramReorder: with Reorder every datagram is ready and a later one
// can arrive first; without it, datagrams stay FIFO per pair.
func TestDatagramReorder(t *testing.T) {
	cfg := func(reorder bool) *sim.Config {
		c := scriptConfig(3, func(id sim.NodeID) []Do {
			if id != 1 {
				return []Do{sendNums(1, 4, true)}
			}
			return nil
		})
		c.Failures.Reorder = reorder
		return c
	}
	// Reorder: all four from node 0 are ready; deliver the last first.
	s := mustNew(t, cfg(true), engine.Options{})
	mustStepEvent(t, s, 0) // node 0's sends
	if k := kinds(s); k[engine.EvDatagram] != 4 {
		t.Fatalf("reorder: %q", readyStrings(s))
	}
	mustStepEvent(t, s, findReady(t, s, "datagram 4", func(e engine.Event) bool { return e.Kind == engine.EvDatagram && e.Msg.(Num).Seq == 4 }))
	if got := sim.Node[Script](s.View(), 1).Got; len(got) != 1 || got[0].Seq != 4 {
		t.Fatalf("got %v", got)
	}
	// The log says which deliveries overtake datagrams sent earlier: the
	// 4th ahead of three, then the 1st (in order) without a word.
	var log bytes.Buffer
	s = mustNew(t, cfg(true), engine.Options{Logger: engine.NewLogger(&log)})
	mustStepEvent(t, s, 0)
	for _, seq := range []int{4, 1} {
		mustStepEvent(t, s, findReady(t, s, "a datagram", func(e engine.Event) bool { return e.Kind == engine.EvDatagram && e.Msg.(Num).Seq == seq }))
	}
	var marks []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "out of order") {
			marks = append(marks, l)
		}
	}
	if want := "INF out of order: Num{From: 0, Seq: 4} arrives ahead of 3 earlier datagrams from node 0 still in flight from=0 node=1 step=2 type=Num"; len(marks) != 1 || marks[0] != want {
		t.Errorf("the log's out-of-order lines:\n%s\nwant\n%s", strings.Join(marks, "\n"), want)
	}
	// And random executions do reorder.
	reordered := false
	for seed := uint64(0); seed < 20 && !reordered; seed++ {
		s := mustNew(t, cfg(true), engine.Options{})
		runAll(t, s, seed)
		got := seqs(sim.Node[Script](s.View(), 1).Got, 0)
		if len(got) != 4 {
			t.Fatalf("lost datagrams without drops: %v", got)
		}
		reordered = !slices.IsSorted(got)
	}
	if !reordered {
		t.Fatal("20 random executions never reordered datagrams")
	}

	// No reorder: one ready datagram per pair, and FIFO per pair.
	everInterleaved := false
	for seed := uint64(0); seed < 20; seed++ {
		s := mustNew(t, cfg(false), engine.Options{Chooser: engine.NewRandom(seed)})
		interleaved, last := false, sim.NodeID(-1)
		for {
			perPair := map[sim.NodeID]int{}
			for _, e := range s.Ready() {
				if e.Kind == engine.EvDatagram {
					perPair[e.Peer]++
				}
			}
			for p, k := range perPair {
				if k != 1 {
					t.Fatalf("%d ready datagrams from %d without reorder", k, p)
				}
			}
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if e := s.LastEvent(); e.Kind == engine.EvDatagram {
				interleaved = interleaved || last >= 0 && last != e.Peer
				last = e.Peer
			}
		}
		got := sim.Node[Script](s.View(), 1).Got
		if !slices.Equal(seqs(got, 0), upTo(4)) || !slices.Equal(seqs(got, 2), upTo(4)) {
			t.Fatalf("seed %d: without reorder got %v", seed, got)
		}
		everInterleaved = everInterleaved || interleaved
	}
	// The check above means something only if the senders' datagrams did
	// interleave in some execution.
	if !everInterleaved {
		t.Fatal("the two senders' datagrams never interleaved in 20 seeds")
	}
}

// TestDrop: a drop removes one datagram (any of them), is bounded by
// Failures.Drops, and never touches reliable messages.
func TestDrop(t *testing.T) {
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		if id == 0 {
			return []Do{sendNums(1, 5, true), sendNums(1, 2, false)}
		}
		return nil
	})
	cfg.Failures.Drops = 2
	s := mustNew(t, cfg, engine.Options{})
	mustStepEvent(t, s, 0)
	mustStepEvent(t, s, 0)
	k := kinds(s)
	if k[engine.EvDrop] != 5 || k[engine.EvDatagram] != 1 {
		t.Fatalf("want 5 drops, 1 datagram (no reorder): %q", readyStrings(s))
	}
	dropSeq := func(seq int) {
		mustStepEvent(t, s, findReady(t, s, "drop", func(e engine.Event) bool { return e.Kind == engine.EvDrop && e.Msg.(Num).Seq == seq }))
	}
	dropSeq(1)
	// The head is now datagram 2.
	i := findReady(t, s, "datagram", func(e engine.Event) bool { return e.Kind == engine.EvDatagram })
	if s.Ready()[i].Msg.(Num).Seq != 2 {
		t.Fatalf("head after dropping 1: %v", s.Ready()[i])
	}
	dropSeq(4)
	if k := kinds(s); k[engine.EvDrop] != 0 {
		t.Fatal("drop offered beyond Failures.Drops")
	}
	if s.InFlight() != 5 {
		t.Fatalf("in flight %d, want 5", s.InFlight())
	}
	runAll(t, s, 1)
	got := sim.Node[Script](s.View(), 1).Got
	var dg []int
	for _, m := range got {
		dg = append(dg, m.Seq)
	}
	slices.Sort(dg)
	// Datagrams 2, 3, 5 and the reliable messages 1, 2.
	if !slices.Equal(dg, []int{1, 2, 2, 3, 5}) {
		t.Fatalf("delivered %v", got)
	}
}

// TestReset: a reset re-creates the node with Config.Service, runs Start,
// re-queues the driver's requests, clears timers, and leaves messages in
// flight to and from the node deliverable (a stale message reaches the new
// incarnation).
func TestReset(t *testing.T) {
	created := make([]int, 2)
	starts := 0
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			created[id]++
			return &Script{start: func(ctx *sim.Context, n *Script) {
				starts++
				ctx.SetTimer("boot")
			}}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{
					Named{"first", func(ctx *sim.Context, n *Script) {
						sendNums(1, 2, false)(ctx, n)
						sendNums(1, 1, true)(ctx, n)
						ctx.SetTimer("app-timer")
					}},
					Named{"second", func(ctx *sim.Context, n *Script) {}},
				}
			}
			return []any{Do(sendNums(0, 3, false))}
		},
		Failures: sim.Failures{Resets: 1},
	}
	s := mustNew(t, cfg, engine.Options{})
	if !slices.Equal(created, []int{1, 1}) || starts != 2 {
		t.Fatalf("after New: created %v starts %d", created, starts)
	}
	isApp := func(id sim.NodeID) func(engine.Event) bool {
		return func(e engine.Event) bool { return e.Kind == engine.EvApp && e.Node == id }
	}
	mustStepEvent(t, s, findReady(t, s, "app 0", isApp(0)))
	mustStepEvent(t, s, findReady(t, s, "app 1", isApp(1)))
	old := sim.Node[Script](s.View(), 0)
	if !s.TimerArmed(0, "app-timer") || !s.TimerArmed(0, "boot") || s.InFlight() != 6 {
		t.Fatalf("before reset: timers %v %v, in flight %d", s.TimerArmed(0, "app-timer"), s.TimerArmed(0, "boot"), s.InFlight())
	}
	if i := findReady(t, s, "app 0", isApp(0)); s.Ready()[i].Msg.(Named).Name != "second" {
		t.Fatal("driver did not advance")
	}
	hBefore := s.Hash()

	mustStepEvent(t, s, findReady(t, s, "reset 0", func(e engine.Event) bool { return e.Kind == engine.EvReset && e.Node == 0 }))
	n0 := sim.Node[Script](s.View(), 0)
	if n0 == old || n0.Started != 1 || len(n0.Got) != 0 {
		t.Fatalf("node 0 not fresh after reset: %+v", n0)
	}
	if !slices.Equal(created, []int{2, 1}) || starts != 3 {
		t.Fatalf("after reset: created %v starts %d", created, starts)
	}
	if s.TimerArmed(0, "app-timer") {
		t.Fatal("reset did not clear the app's timer")
	}
	if !s.TimerArmed(0, "boot") {
		t.Fatal("Start's timer not armed after reset")
	}
	if i := findReady(t, s, "app 0", isApp(0)); s.Ready()[i].Msg.(Named).Name != "first" {
		t.Fatal("driver not restarted by the reset")
	}
	if s.InFlight() != 6 {
		t.Fatalf("reset changed what is in flight: %d\n%s", s.InFlight(), s.NetworkText())
	}
	if k := kinds(s); k[engine.EvReset] != 0 {
		t.Fatal("reset offered beyond Failures.Resets")
	}
	if s.Hash() == hBefore {
		t.Fatal("reset did not change the hash")
	}
	// Stale messages: what node 1 sent to the old node 0 reaches the new one,
	// and what the old node 0 sent still reaches node 1.
	runAll(t, s, 5)
	n0 = sim.Node[Script](s.View(), 0)
	if !slices.Equal(seqs(n0.Got, 1), upTo(3)) {
		t.Fatalf("new node 0 got %v, want node 1's 3 stale messages", n0.Got)
	}
	// Node 1 gets the old incarnation's 2+1 and, after the driver restarted,
	// the new one's 2+1.
	if got := sim.Node[Script](s.View(), 1).Got; len(got) != 6 {
		t.Fatalf("node 1 got %v", got)
	}
}

// TestFailureBounds: in random walks with failures heavily weighted, no
// execution has more failures of a kind than the config allows, and the
// bounds are reached.
func TestFailureBounds(t *testing.T) {
	cfg := mixedConfig()
	cfg.Weights.Failure = 50
	reached := map[engine.EventKind]bool{}
	bound := map[engine.EventKind]int{engine.EvReset: cfg.Failures.Resets, engine.EvBreak: cfg.Failures.Breaks, engine.EvDrop: cfg.Failures.Drops}
	for seed := uint64(0); seed < 40; seed++ {
		s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(seed)})
		count := map[engine.EventKind]int{}
		for s.Steps() < 300 {
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			count[s.LastEvent().Kind]++
		}
		for k, b := range bound {
			if count[k] > b {
				t.Fatalf("seed %d: %d %s events, bound %d", seed, count[k], k, b)
			}
			if count[k] == b {
				reached[k] = true
			}
		}
	}
	for k := range bound {
		if !reached[k] {
			t.Errorf("bound of %s never reached: the test proves little", k)
		}
	}
}

func hasFailure(s *engine.Sim) bool {
	for _, e := range s.Ready() {
		if e.Kind.IsFailure() {
			return true
		}
	}
	return false
}

// TestFailuresUntil: failures are offered before the step, not from it on;
// NoFailures and SetFailures turn them off.
func TestFailuresUntil(t *testing.T) {
	cfg := mixedConfig()
	cfg.Failures.Resets = 100
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(2), FailuresUntil: 6})
	if s.FailuresUntil() != 6 {
		t.Fatal("FailuresUntil not kept")
	}
	for s.Steps() < 40 {
		if got, want := hasFailure(s), s.Steps() < 6; got != want {
			t.Fatalf("step %d: failures offered %v, want %v", s.Steps(), got, want)
		}
		if ok, err := s.Step(); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	// Replay needs the same FailuresUntil to reproduce.
	r, err := engine.Replay(cfg, s.ChoiceValues(), -1, engine.Options{FailuresUntil: 6})
	if err != nil || r.Hash() != s.Hash() {
		t.Fatalf("replay with FailuresUntil: %v", err)
	}
	s.SetFailuresUntil(0)
	if !hasFailure(s) {
		t.Fatal("SetFailuresUntil(0) did not turn failures back on")
	}
	s.SetFailures(false)
	if hasFailure(s) {
		t.Fatal("SetFailures(false) left failures on")
	}
	n := mustNew(t, cfg, engine.Options{NoFailures: true, Chooser: engine.NewRandom(1)})
	for n.Steps() < 50 {
		if hasFailure(n) {
			t.Fatal("NoFailures offered a failure")
		}
		if ok, _ := n.Step(); !ok {
			break
		}
	}
	n.SetFailures(true)
	if !hasFailure(n) {
		t.Fatal("SetFailures(true) did not turn failures on")
	}
}

// TestTimers: one-shot timers disarm on firing, periodic ones stay armed,
// cancel works, setting an armed timer does not duplicate it, and timers are
// ready in name order.
func TestTimers(t *testing.T) {
	scheduled := map[string]bool{}
	cfg := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) {
			ctx.SetTimer("b-once")
			ctx.SetTimer("b-once")
			ctx.SetPeriodic("a-periodic")
			ctx.CancelTimer("not-set")
			scheduled["b-once"] = ctx.TimerScheduled("b-once")
			scheduled["never"] = ctx.TimerScheduled("never")
		}}
	})
	s := mustNew(t, cfg, engine.Options{})
	mustStepEvent(t, s, 0)
	if !scheduled["b-once"] || scheduled["never"] {
		t.Fatalf("TimerScheduled: %v", scheduled)
	}
	timers := func() []string {
		var out []string
		for _, e := range s.Ready() {
			if e.Kind == engine.EvTimer {
				out = append(out, e.Timer)
			}
		}
		return out
	}
	if got := timers(); !slices.Equal(got, []string{"a-periodic", "b-once"}) {
		t.Fatalf("ready timers %v", got)
	}
	mustStepEvent(t, s, 1) // b-once
	if s.TimerArmed(0, "b-once") || !slices.Equal(timers(), []string{"a-periodic"}) {
		t.Fatal("one-shot timer still armed after firing")
	}
	for i := 0; i < 3; i++ {
		mustStepEvent(t, s, 0)
		if !s.TimerArmed(0, "a-periodic") {
			t.Fatal("periodic timer disarmed by firing")
		}
	}
	n := sim.Node[Script](s.View(), 0)
	if !slices.Equal(n.Fired, []string{"b-once", "a-periodic", "a-periodic", "a-periodic"}) {
		t.Fatalf("fired %v", n.Fired)
	}
	if !strings.Contains(s.NodeText(0), "a-periodic (periodic)") {
		t.Fatalf("node text: %s", s.NodeText(0))
	}
	// A periodic timer cancelled from its own handler.
	cfg2 := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) { ctx.SetPeriodic("p") }}
	})
	cfg2.Service = func(sim.NodeID) sim.Service {
		return &Script{onTimer: func(ctx *sim.Context, n *Script, name string) {
			if len(n.Fired) == 2 {
				ctx.CancelTimer(name)
			}
		}}
	}
	s2 := mustNew(t, cfg2, engine.Options{})
	runAll(t, s2, 1)
	if got := sim.Node[Script](s2.View(), 0).Fired; len(got) != 2 || s2.TimerArmed(0, "p") {
		t.Fatalf("cancelled periodic fired %v, armed %v", got, s2.TimerArmed(0, "p"))
	}
}

// TestChoicePoints: Rand and Elapsed are recorded choice points that replay
// answers; Rand(1) is not a choice point.
func TestChoicePoints(t *testing.T) {
	var elapsed []bool
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) {
			n.Rands = append(n.Rands, ctx.Rand(5), ctx.Rand(1), ctx.Rand(3))
			elapsed = append(elapsed, ctx.Elapsed(ctx.Now(), time.Second))
		}}
	})
	// Event 1 (node 1's request), Rand(5)=4, Rand(3)=2, Elapsed=true.
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRecorded([]int32{1, 4, 2, 1, 0, 0, 1, 0})})
	walk(t, s, 2)
	want := []engine.Choice{
		{Kind: engine.ChooseEvent, N: 2, Value: 1},
		{Kind: engine.ChooseRandom, N: 5, Value: 4},
		{Kind: engine.ChooseRandom, N: 3, Value: 2},
		{Kind: engine.ChooseTime, N: 2, Value: 1},
		{Kind: engine.ChooseEvent, N: 1, Value: 0},
		{Kind: engine.ChooseRandom, N: 5, Value: 0},
		{Kind: engine.ChooseRandom, N: 3, Value: 1},
		{Kind: engine.ChooseTime, N: 2, Value: 0},
	}
	if !slices.Equal(s.Choices(), want) {
		t.Fatalf("choices %+v", s.Choices())
	}
	if got := sim.Node[Script](s.View(), 1).Rands; !slices.Equal(got, []int{4, 0, 2}) {
		t.Fatalf("node 1 rands %v", got)
	}
	if got := sim.Node[Script](s.View(), 0).Rands; !slices.Equal(got, []int{0, 0, 1}) {
		t.Fatalf("node 0 rands %v", got)
	}
	if !slices.Equal(elapsed, []bool{true, false}) {
		t.Fatalf("elapsed %v", elapsed)
	}
	if s.StepStart(0) != 0 || s.StepStart(1) != 4 || s.StepStart(2) != 8 {
		t.Fatalf("step starts %d %d %d", s.StepStart(0), s.StepStart(1), s.StepStart(2))
	}
	// Every answer of Rand is possible: a random chooser finds them all.
	seen := map[int]bool{}
	for seed := uint64(0); seed < 60; seed++ {
		r := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(seed)})
		walk(t, r, 1)
		seen[sim.Node[Script](r.View(), r.LastEvent().Node).Rands[0]] = true
	}
	if len(seen) != 5 {
		t.Fatalf("Rand(5) answers seen: %v", seen)
	}
}

// TestMonotone: Monotone increases across nodes and resets.
func TestMonotone(t *testing.T) {
	var got []uint64
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(sim.NodeID) sim.Service {
			return &Script{start: func(ctx *sim.Context, n *Script) { got = append(got, ctx.Monotone()) }}
		},
		Failures: sim.Failures{Resets: 3},
	}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)})
	walk(t, s, 10)
	if len(got) != 5 || !slices.IsSorted(got) || slices.Compact(slices.Clone(got))[len(got)-1] != got[4] || got[0] == got[1] {
		t.Fatalf("monotone values %v", got)
	}
}

// TestWeights: the chooser sees the class weights, per-timer and
// per-message overrides, in ready order.
func TestWeights(t *testing.T) {
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		if id == 0 {
			return []Do{func(ctx *sim.Context, n *Script) {
				ctx.Send(1, Num{Seq: 1})
				ctx.SendDatagram(1, Tick{N: 1})
				ctx.SetTimer("fast")
				ctx.SetTimer("slow")
			}, func(*sim.Context, *Script) {}}
		}
		return nil
	})
	cfg.Weights = sim.Weights{Timers: map[string]float64{"fast": 30}, Messages: map[string]float64{"Tick": 2.5}}
	cfg.Failures.Drops = 1
	var seen []float64
	c := chooserFunc(func(kind engine.ChoiceKind, n int, w []float64) int {
		seen = slices.Clone(w)
		return 0
	})
	s := mustNew(t, cfg, engine.Options{Chooser: c})
	walk(t, s, 2)
	// Ready: app 0, message 0->1, datagram Tick, timer fast, timer slow, drop.
	want := []float64{40, 8, 2.5, 30, 1, 1}
	if !slices.Equal(seen, want) {
		t.Fatalf("weights %v, want %v; ready %q", seen, want, readyStrings(s))
	}
}

type chooserFunc func(kind engine.ChoiceKind, n int, w []float64) int

func (f chooserFunc) Choose(kind engine.ChoiceKind, n int, w []float64) int { return f(kind, n, w) }

// TestQuiescent: Step reports false with no error when nothing is ready.
func TestQuiescent(t *testing.T) {
	s := mustNew(t, pingConfig(), engine.Options{})
	walk(t, s, 100)
	ok, err := s.Step()
	if ok || err != nil || len(s.Ready()) != 0 {
		t.Fatalf("quiescent step: %v %v", ok, err)
	}
	if live, err := s.AllHold(s.Config().Liveness); !live || err != nil {
		t.Fatal("ping-pong not live at the end")
	}
}

// TestBadSendPanics: sending to a node that does not exist is a handler
// panic, with the step and the event.
func TestBadSendPanics(t *testing.T) {
	s := mustNew(t, scriptConfig(2, func(id sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) { ctx.Send(5, Num{}) }}
	}), engine.Options{})
	_, err := s.Step()
	var hp *engine.HandlerPanicError
	var mu *engine.MisuseError
	if !errors.As(err, &hp) || !errors.Is(err, engine.ErrMisuse) || !errors.As(err, &mu) || mu.Node != 1 || mu.Call != "Send" ||
		hp.Error() != "sim: invalid API use by node 1 at step 1 (node 1 handles app request func engine_test.TestBadSendPanics.func1.1): node 1 sends Num{From: 0, Seq: 0} to node 5, which does not exist (nodes 0-1)" {
		t.Fatalf("send to node 5: %v", err)
	}
}
