package search

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
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
		err = checkReplays(cfg, s.ChoiceValues(), engine.Options{}, steps, 0, nil)
		if seed < 10 {
			if errors.Is(err, engine.ErrNondeterministic) {
				caught++
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// Nodes booted: the replay that finds where the head ends, 64
		// replays of the head and 5 of the whole path, each check with
		// two more (booted early and late), 3 nodes each.
		if got, want := booted.Load(), int64(3*(1+64+2+defaultReplays(steps)+2)); got != want {
			t.Errorf("seed %d: %d boots, want %d", seed, got, want)
		}
	}
	if caught != 10 {
		t.Errorf("caught the nondeterminism on %d of 10 paths", caught)
	}
}
