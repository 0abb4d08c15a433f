package search_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// chooser draws a number at boot and has something to do afterwards only
// for 0: the other answers leave the system quiescent with no step run.
type chooser struct {
	sim.Base
	X int
}

func (c *chooser) Start(ctx *sim.Context) {
	if c.X = ctx.Rand(3); c.X == 0 {
		ctx.SetTimer("t")
	}
}

func (c *chooser) HandleTimer(*sim.Context, string) {}

// bootChoice is dead from the start when node 0 draws 2.
var bootChoice = &sim.System{
	Name: "boot-choice",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &chooser{} },
			Liveness: []sim.Property{{Name: "NotTwo", Check: func(v *sim.View) bool { return sim.Node[chooser](v, 0).X != 2 }}},
		}, nil
	},
}

// TestBootChoicesWithNoStep: every answer of a choice made at boot is a
// path, those that run no step included, whatever the number of workers.
// With two workers the paths of 0 steps after the first were lost and the
// search said liveness holds.
func TestBootChoicesWithNoStep(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		rep, err := search.Run(context.Background(), bootChoice, search.Options{Seed: 1, WalkDepth: 100, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Property != "NotTwo" {
			t.Errorf("workers %d: found %+v, want NotTwo (stop %v, %d paths)", workers, f, rep.Stats.Stop, rep.Stats.Paths)
		}
	}
}
