package lasso_test

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks/lasso"
)

// offerer: node 0's periodic "tick" flips Phase; in phase 0 a one-shot
// "offer" timer is armed, and the tick into phase 1 cancels it. Running
// the offer makes the node Done (live). Ticking forever is a hot cycle of
// two states in which the offer is enabled in the first state only and
// never runs: it is starved, so the cycle is not fair and no lasso.
type offerer struct {
	sim.Base
	Phase int
	Done  bool
}

func (o *offerer) Start(ctx *sim.Context) {
	ctx.SetPeriodic("tick")
	ctx.SetTimer("offer")
}

func (o *offerer) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "tick":
		o.Phase = 1 - o.Phase
		if o.Phase == 1 {
			ctx.CancelTimer("offer")
		} else {
			ctx.SetTimer("offer")
		}
	case "offer":
		o.Done = true
	}
}

// ticker chooses the tick whenever it is ready.
type ticker struct{}

func (ticker) Choose(engine.ChoiceKind, int, []float64) int { return 0 }

func (ticker) ChooseEvent(ready []engine.Event, _ []float64) int {
	for i, ev := range ready {
		if ev.Kind == engine.EvTimer && ev.Timer == "tick" {
			return i
		}
	}
	return 0
}

// TestStarvedInTheCycleFirstState: a source enabled only in the first
// state of a candidate cycle, and never run in it, starves: the cycle is
// not fair and Analyze finds no lasso in an execution that only ticks.
func TestStarvedInTheCycleFirstState(t *testing.T) {
	cfg := &sim.Config{
		Nodes:    1,
		Service:  func(sim.NodeID) sim.Service { return &offerer{} },
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[offerer](v, 0).Done }}},
	}
	s, err := engine.New(cfg, engine.Options{Chooser: ticker{}})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps() < 60 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if s.Steps() != 60 || s.LastEvent().Timer != "tick" {
		t.Fatalf("setup: %d steps, last %v", s.Steps(), s.LastEvent())
	}
	f, err := lasso.Analyze(cfg, engine.Options{}, s.ChoiceValues(), 0, lasso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("an unfair cycle reported as a lasso: %+v", f)
	}
	// Node fairness agrees: node 0 runs, but by source the offer starves;
	// with node fairness the cycle is fair, a lasso (seed 000's rule).
	f, err = lasso.Analyze(cfg, engine.Options{}, s.ChoiceValues(), 0, lasso.Options{Fairness: lasso.NodeFairness})
	if err != nil || f == nil || f.CycleLen != 2 {
		t.Fatalf("node fairness: %v %+v", err, f)
	}
}
