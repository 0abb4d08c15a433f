package search_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

type hello struct{}

// ticker counts the Hellos it gets; its periodic timer changes nothing,
// so a path that fires it comes back to a state of its own.
type ticker struct {
	sim.Base
	Hellos int
}

func (t *ticker) Start(ctx *sim.Context)                              { ctx.SetPeriodic("tick") }
func (t *ticker) HandleMessage(*sim.Context, sim.NodeID, sim.Message) { t.Hellos++ }

// greeter says hello to node 0 when asked, and again when it restarts.
type greeter struct{ sim.Base }

func (g *greeter) Start(ctx *sim.Context) {
	if ctx.Restarted() {
		ctx.Send(0, hello{})
	}
}

func (g *greeter) HandleApp(ctx *sim.Context, _ any) { ctx.Send(0, hello{}) }

// greeting fails OneHello when node 1 restarts after its request: a
// failure, which a delaying scheduler injects only by delaying past every
// other ready event.
var greeting = &sim.System{
	Name: "greeting",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return &ticker{}
				}
				return &greeter{}
			},
			App: func(id sim.NodeID) []any {
				if id == 1 {
					return []any{"work"}
				}
				return nil
			},
			Safety:   []sim.Property{{Name: "OneHello", Check: func(v *sim.View) bool { return sim.Node[ticker](v, 0).Hellos < 2 }}},
			Failures: sim.Failures{Resets: 1, Nodes: []sim.NodeID{1}},
		}, nil
	},
}

// A bounded part cut where its path comes back to a state of its own walks
// on without failures: the walk's random steps up to the depth bound are
// no schedule of the strategy's. So delay bounding finds the reset's bug
// at the bound that schedules it (2 delays), not at bound 0 by a walk.
func TestWalkAfterACycleCutHasNoFailures(t *testing.T) {
	for _, c := range []struct {
		delayMax string
		found    bool
	}{{"1", false}, {"2", true}} {
		rep, err := search.Run(context.Background(), greeting, search.Options{Seed: 1, Strategy: "delay", WalkDepth: 200, MaxPaths: 5000,
			StrategyParams: map[string]string{"max": c.delayMax}})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); (f != nil) != c.found {
			t.Errorf("--delay-max %s: found %v, want %v (%d rounds)", c.delayMax, f != nil, c.found, rep.Stats.Rounds)
		}
	}
}

// A random or pct schedule is one random execution: cut at a state of its
// own path, its walk stands for the rest of it with failures on up to the
// bound (100 steps), as its trace records.
func TestRandomScheduleCutKeepsFailures(t *testing.T) {
	for _, strategy := range []string{"random", "pct"} {
		rep, err := search.Run(context.Background(), greeting, search.Options{Seed: 1, Strategy: strategy, WalkDepth: 200, MaxPaths: 50})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Trace.FailuresUntil != 100 {
			t.Errorf("%s: found %v, want the reset's bug with failures on up to step 100", strategy, f)
		}
	}
}
