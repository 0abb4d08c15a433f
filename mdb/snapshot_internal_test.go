package mdb

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// ticker is a node whose periodic timer counts: every execution of it
// goes on for ever, one choice a step.
type ticker struct {
	sim.Base
	N int
}

func (t *ticker) Start(ctx *sim.Context)           { ctx.SetPeriodic("tick") }
func (t *ticker) HandleTimer(*sim.Context, string) { t.N++ }

// TestSnapshotsOfALongPathAreBounded: each snapshot copies the path's
// history up to its step, so a long path takes its snapshots further
// apart (a 1,100,000-step trace took 24 GB with one every 256 steps), and
// so does a branch that grows (R); moving along either still works.
func TestSnapshotsOfALongPathAreBounded(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &ticker{} }}
	const steps = 120_000
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps() < steps {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	choices := s.ChoiceValues()
	p, err := newPath("error", cfg, engine.Options{}, choices, steps, DefaultSnapshotEvery)
	if err != nil {
		t.Fatal(err)
	}
	held := func(p *path) (n int64) {
		for _, sn := range p.snaps {
			n += int64(len(sn.ChoiceValues()))
		}
		return n
	}
	if h := held(p) * 12; p.k <= DefaultSnapshotEvery || h > snapshotHistoryBytes {
		t.Errorf("%d steps: a snapshot every %d steps, holding %d bytes of history", steps, p.k, h)
	}
	for _, n := range []int{steps, 1, steps/2 + 7} {
		sm, err := p.at(n)
		if err != nil || sm.Steps() != n {
			t.Fatalf("at(%d): %v", n, err)
		}
	}
	// A branch from step 10 that grows as long thins its snapshots.
	b, err := p.fork(10, "b1", 7)
	if err != nil {
		t.Fatal(err)
	}
	for b.steps() < steps {
		if err := b.extend(-1); err != nil {
			t.Fatal(err)
		}
	}
	if h := held(b) * 12; b.k <= DefaultSnapshotEvery || h > snapshotHistoryBytes {
		t.Errorf("branch of %d steps: a snapshot every %d steps, holding %d bytes of history", b.steps(), b.k, h)
	}
	if sm, err := b.at(b.steps() - 3); err != nil || sm.Steps() != b.steps()-3 {
		t.Fatalf("branch at %d: %v", b.steps()-3, err)
	}
}
