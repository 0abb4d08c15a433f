package search_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// burner hands out one or two Monotone values and keeps none of them.
type burner struct{ sim.Base }

func (b *burner) Start(ctx *sim.Context) { ctx.SetTimer("burn") }

func (b *burner) HandleTimer(ctx *sim.Context, _ string) {
	for range ctx.Rand(2) + 1 {
		ctx.Monotone()
	}
}

// taker keeps the Monotone value it takes.
type taker struct {
	sim.Base
	Took uint64
}

func (t *taker) Start(ctx *sim.Context)                 { ctx.SetTimer("take") }
func (t *taker) HandleTimer(ctx *sim.Context, _ string) { t.Took = ctx.Monotone() }

// monotoneBurn breaks NotThree when node 1 takes the value 3: after node 0
// handed out two values it kept neither of.
var monotoneBurn = &sim.System{
	Name: "monotone-burn",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return &burner{}
				}
				return &taker{}
			},
			Safety: []sim.Property{{Name: "NotThree", Check: func(v *sim.View) bool { return sim.Node[taker](v, 1).Took != 3 }}},
		}, nil
	},
}

// TestMonotoneCounterIsState: the states after node 0 handed out one value
// and two are two states, though no node kept them (the next value
// differs), so the search with hashing reaches the violation that only the
// second leads to. With the counter left out of the hash, the second was
// cut as a repeated state and the search exhausted with nothing found.
func TestMonotoneCounterIsState(t *testing.T) {
	for _, workers := range []int{1, 2} {
		rep, err := search.Run(context.Background(), monotoneBurn, search.Options{Seed: 1, WalkDepth: 100, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Property != "NotThree" {
			t.Errorf("workers %d: found %+v, want NotThree broken (stop %v, %d paths)", workers, f, rep.Stats.Stop, rep.Stats.Paths)
		}
	}
}
