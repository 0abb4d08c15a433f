package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// greeter is node 0 of a system whose boot greets nodes 1 and 2 by
// datagram (datagrams in flight are in the order sent), in the
// order of a map of five entries when it is not ordered (nondeterministic:
// a replay differs from another about one time in four); the other nodes
// tick forever.
type greeter struct {
	sim.Base
	id      sim.NodeID
	ordered bool
	Ticks   int
	booted  *atomic.Int64 `macemc:"-"` // counts boots across replays: not state
}

type hi struct{}

func (g *greeter) Start(ctx *sim.Context) {
	g.booted.Add(1)
	if g.id == 0 && g.ordered {
		ctx.SendDatagram(1, hi{})
		ctx.SendDatagram(2, hi{})
	}
	if g.id == 0 {
		for to := range map[sim.NodeID]bool{0: true, 1: !g.ordered, 2: !g.ordered, 3: false, 4: false} {
			if to != 0 && to < 3 && !g.ordered {
				ctx.SendDatagram(to, hi{})
			}
		}
		return
	}
	ctx.SetPeriodic("tick")
}

func (g *greeter) HandleTimer(*sim.Context, string) { g.Ticks++ }

// TestLongPathHeadReplayedOften: a 20,000-step path is replayed whole 5
// times, and its first steps 64 times more, so that a map's order decided
// at its start is caught (5 replays pass over it about one time in five).
func TestLongPathHeadReplayedOften(t *testing.T) {
	var booted atomic.Int64
	config := func(ordered bool) *sim.Config {
		return &sim.Config{Nodes: 3, Service: func(id sim.NodeID) sim.Service { return &greeter{id: id, ordered: ordered, booted: &booted} }}
	}
	const steps = 20_000
	caught := 0
	for seed := range uint64(11) {
		// Seed 10 runs the ordered greeter: nothing to catch, and every
		// replay runs to the end.
		cfg := config(seed == 10)
		s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed)})
		if err != nil {
			t.Fatal(err)
		}
		for s.Steps() < steps {
			if ok, err := s.Step(); !ok || err != nil {
				t.Fatalf("step %d: %v", s.Steps(), err)
			}
		}
		booted.Store(0)
		cut, _, err := checkReplays(cfg, s.ChoiceValues(), engine.Options{}, steps, 0, replayRoom, nil)
		if cut != nil {
			t.Fatalf("seed %d: replays cut for a state of a few bytes: %+v", seed, cut)
		}
		if seed < 10 {
			if errors.Is(err, engine.ErrNondeterministic) {
				caught++
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// Nodes booted: the replay that finds where the head ends and
		// measures the states there and at the path's end, 64 replays
		// of the head and 5 of the whole path, each check with two more
		// (booted early and late), 3 nodes each.
		if got, want := booted.Load(), int64(3*(1+64+2+defaultReplays(steps)+2)); got != want {
			t.Errorf("seed %d: %d boots, want %d", seed, got, want)
		}
	}
	if caught != 10 {
		t.Errorf("caught the nondeterminism on %d of 10 paths", caught)
	}
}

// hoarder is a node that holds Size bytes and pings its peer forever.
type hoarder struct {
	sim.Base
	Buf    []byte
	Pings  int
	booted *atomic.Int64 `macemc:"-"`
}

type ping struct{}

func (h *hoarder) Start(ctx *sim.Context) {
	h.booted.Add(1)
	if ctx.Self() == 0 {
		ctx.Send(1, ping{})
	}
}

func (h *hoarder) HandleMessage(ctx *sim.Context, from sim.NodeID, _ sim.Message) {
	h.Pings++
	ctx.Send(from, ping{})
}

// TestReplaysFitInMemory: the default replays of a path whose state is
// big are cut to what fits in the room given (64 copies of a state of
// 100 MB took 13 GB), and the cut is reported; replays the caller asks
// for are not cut.
func TestReplaysFitInMemory(t *testing.T) {
	var booted atomic.Int64
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service {
		return &hoarder{Buf: make([]byte, 1<<20), booted: &booted}
	}}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps() < 50 {
		if ok, err := s.Step(); !ok || err != nil {
			t.Fatalf("step %d: %v", s.Steps(), err)
		}
	}
	size := s.StateBytes()
	if size < 2<<20 || size > 2<<20+64<<10 {
		t.Fatalf("state of two 1 MiB nodes: %d bytes", size)
	}
	// Room for 7 copies with the collector's headroom: 6 replays and the
	// one the check keeps beside them.
	room := 7 * 2 * size
	booted.Store(0)
	cut, _, err := checkReplays(cfg, s.ChoiceValues(), engine.Options{}, 50, 0, room, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cut == nil || cut.Replays != 6 || cut.Want != 64 || cut.StateBytes != size || cut.Room != room {
		t.Fatalf("cut %+v, want 6 replays of 64 for a state of %d bytes in %d", cut, size, room)
	}
	// Two nodes booted by the replay that measures, the 6 replays and
	// the two the check boots early and late.
	if got, want := booted.Load(), int64(2*(1+6+2)); got != want {
		t.Errorf("%d boots, want %d", got, want)
	}
	booted.Store(0)
	if cut, _, err := checkReplays(cfg, s.ChoiceValues(), engine.Options{}, 50, 10, room, nil); cut != nil || err != nil {
		t.Fatalf("10 replays asked for: cut %+v, %v", cut, err)
	}
	if got, want := booted.Load(), int64(2*(10+2)); got != want {
		t.Errorf("10 replays asked for: %d boots, want %d", got, want)
	}
	// Never fewer than two, whatever the room.
	if cut, _, _ := checkReplays(cfg, s.ChoiceValues(), engine.Options{}, 50, 0, 1, nil); cut == nil || cut.Replays != 2 {
		t.Fatalf("no room: cut %+v, want 2 replays", cut)
	}
}

// TestUnreproducedOutcome: a liveness violation whose path, replayed in a
// fresh simulator, does not end as the search said (a live end, events
// ready where the search saw quiescence) is named, so that the pipeline
// does not call it certain; one that does end so is not.
func TestUnreproducedOutcome(t *testing.T) {
	var booted atomic.Int64
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &hoarder{booted: &booted} },
		Liveness: []sim.Property{{Name: "Pinged", Check: func(v *sim.View) bool {
			return sim.Node[hoarder](v, 1).Pings > 0
		}}}}
	p := &pipeline{cfg: cfg, ctx: context.Background()}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	walk := func(steps int) []int32 {
		for s.Steps() < steps {
			if ok, err := s.Step(); !ok || err != nil {
				t.Fatalf("step %d: %v", s.Steps(), err)
			}
		}
		return slices.Clone(s.ChoiceValues())
	}
	zero := walk(0) // node 1 not pinged yet: not live, a ping in flight
	one := walk(1)  // node 1 pinged: live
	for _, c := range []struct {
		name    string
		v       explore.Violation
		unknown bool
	}{
		{"dead and not live", explore.Violation{Outcome: walks.Dead, Property: "Pinged", Choices: zero, Steps: 0}, false},
		{"dead but live", explore.Violation{Outcome: walks.Dead, Property: "Pinged", Choices: one, Steps: 1}, true},
		{"quiescent with a message in flight", explore.Violation{Outcome: walks.Quiescent, Property: "Pinged", Choices: zero, Steps: 0}, true},
	} {
		if why := p.unreproduced(&c.v); (why != "") != c.unknown {
			t.Errorf("%s: %q", c.name, why)
		}
	}
}

// TestBadChoiceIsNondeterminism: a recorded choice that no longer fits
// when the search re-runs a path's first steps is a finding of
// nondeterminism, not a handler's panic (a trial's time.Since was
// reported as "a handler of node -1 panicked").
func TestBadChoiceIsNondeterminism(t *testing.T) {
	var booted atomic.Int64
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &hoarder{booted: &booted} }}
	p := &pipeline{cfg: cfg, rep: &Report{}}
	bad := fmt.Errorf("step 3: %w", &engine.BadChoiceError{Index: 3, Step: 3, Kind: engine.ChooseEvent, N: 1, Value: 1})
	f := p.finding(&explore.Violation{Verdict: explore.Safety, Outcome: walks.Failed, Property: walks.PanicProperty, Choices: []int32{0, 0, 0, 1}, Steps: 3, Err: bad})
	var nd *engine.NondeterminismError
	if f.Kind != KindNondeterminism || f.Verdict != VerdictNondeterministic || !errors.As(f.Err, &nd) || !strings.Contains(nd.Detail, "a choice no longer fit the events ready") {
		t.Fatalf("finding %v %v %v: %v", f.Kind, f.Verdict, f.Property, f.Err)
	}
}

// peerLogger logs its peers, in its map's order, when its app request
// comes.
type peerLogger struct {
	sim.Base
	Peers map[int]bool
	Done  bool
}

func (l *peerLogger) HandleApp(ctx *sim.Context, _ any) {
	for p := range l.Peers {
		ctx.Log().Int("peer", p).Msg("peer")
	}
	l.Done = true
}

// TestLiveLogOrder: the live alternative, whose log the run writes and
// which no determinism check replayed, is checked for a handler that logs
// in a map's order before report.json is written; the error path, checked
// already, is not again.
func TestLiveLogOrder(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service {
		return &peerLogger{Peers: peers8()}
	},
		App: func(sim.NodeID) []any { return []any{"log"} }}
	live := &trace.Trace{Kind: trace.KindLive, Choices: []int32{0}, Steps: 1}
	for _, name := range []string{"error", "live"} {
		p := &pipeline{cfg: cfg, ctx: context.Background(), rep: &Report{}, logs: []logJob{{t: live, name: name}}}
		p.checkLogOrder()
		const w = `node 0's handler at step 1 (node 0 handles app request "log") did its actions in different orders in replays of the live alternative (live.trace): logs "peer" peer=1, `
		if got := slices.ContainsFunc(p.rep.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }); got != (name == "live") {
			t.Errorf("%s path: warnings %q", name, p.rep.Warnings)
		}
	}
}

// peers8 is a map of eight entries: Go ranges over one that small from a
// random one of its eight slots, so 8 replays all range it alike about once
// in two million runs (a map of four, from slot 0 five times in eight: 2%).
func peers8() map[int]bool {
	m := map[int]bool{}
	for i := 1; i <= 8; i++ {
		m[i] = true
	}
	return m
}
