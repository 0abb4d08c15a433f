package search_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// blinker counts its own timer's firings. In blinking it is live for 2 of
// every 6 (its count modulo 6 below 2), forever: a correct system whose
// state space is infinite, so that iterative deepening goes on.
type blinker struct {
	sim.Base
	C int
}

func (b *blinker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (b *blinker) HandleTimer(*sim.Context, string) { b.C++ }

var blinking = &sim.System{
	Name: "blinking",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &blinker{} },
			Liveness: []sim.Property{{Name: "On", Check: func(v *sim.View) bool { return sim.Node[blinker](v, 0).C%6 < 2 }}},
		}, nil
	},
}

// Liveness counts only after a path's bounded part, so a round whose
// walks have few steps left after it cannot show a state live and would
// call every path doomed: iterative deepening stops at the bound d_max/2.
// (With the last round at d_max-1, d_max 160 left 1 step, on a hot state:
// "dead for certain".)
func TestRoundsStopAtHalfTheWalkDepth(t *testing.T) {
	for _, walkDepth := range []int{28, 30, 100, 160, 161} {
		rep, err := search.Run(context.Background(), blinking, search.Options{Seed: 1, WalkDepth: walkDepth, MaxPaths: 200})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f != nil {
			t.Errorf("--walk-depth %d: %v found in round %d on a system live 2 steps in 6", walkDepth, f.Kind, rep.Stats.Rounds)
		}
		if st := rep.Stats; st.Depth != walkDepth/2 || st.Stop != explore.StopDepth {
			t.Errorf("--walk-depth %d: depth bound %d, stopped %v; want %d, %v", walkDepth, st.Depth, st.Stop, walkDepth/2, explore.StopDepth)
		}
	}
}

// A strategy whose walks would have fewer steps after its first path's
// bounded part than the part itself is refused before it runs, naming the
// flag and its range.
func TestWalkDepthTwiceTheStrategySteps(t *testing.T) {
	for _, strategy := range []string{"pct", "delay", "random"} {
		for _, walkDepth := range []int{100, 101, 199} {
			_, err := search.Run(context.Background(), blinking, search.Options{Seed: 1, Strategy: strategy, WalkDepth: walkDepth, MaxPaths: 5})
			var oe *search.OptionError
			if !errors.As(err, &oe) || oe.Flag != "walk-depth" {
				t.Errorf("%s with --walk-depth %d (its steps: 100): %v, want an OptionError of --walk-depth", strategy, walkDepth, err)
			}
		}
		if _, err := search.Run(context.Background(), blinking, search.Options{Seed: 1, Strategy: strategy, WalkDepth: 200, MaxPaths: 5}); err != nil {
			t.Errorf("%s with --walk-depth 200: %v", strategy, err)
		}
	}
}

// Without liveness properties there is nothing for the walks to reach: a
// short walk depth is no error.
func TestWalkDepthWithoutLiveness(t *testing.T) {
	if _, err := search.Run(context.Background(), greeting, search.Options{Seed: 1, WalkDepth: 3, MaxPaths: 20}); err != nil {
		t.Errorf("safety only, --walk-depth 3: %v", err)
	}
}

// A --depth that the walk depth caps is said, with the walk depth that
// allows it.
func TestDepthCappedByTheWalkDepthWarns(t *testing.T) {
	rep, err := search.Run(context.Background(), blinking, search.Options{Seed: 1, Depth: 100, WalkDepth: 50, MaxPaths: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := "--depth 100 was capped at 25: the walks after a bounded part need as many steps as it to reach a live state (--walk-depth 50); --walk-depth 200 allows --depth 100"
	if !slices.Contains(rep.Warnings, want) {
		t.Errorf("warnings %q, want %q", rep.Warnings, want)
	}
}
