package search_test

import (
	"context"
	"errors"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// counter counts its own timer's firings; it is live from the first.
type counter struct {
	sim.Base
	C int
}

func (c *counter) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (c *counter) HandleTimer(*sim.Context, string) { c.C++ }

var counting = &sim.System{
	Name: "counting",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &counter{} },
			Liveness: []sim.Property{{Name: "Ticked", Check: func(v *sim.View) bool { return sim.Node[counter](v, 0).C > 0 }}},
		}, nil
	},
}

// Liveness counts only after a path's bounded part, so a round whose bound
// is not below the walk depth would check it on no path and call every
// path doomed: iterative deepening stops at the bound d_max-1 instead.
func TestRoundsStopBelowTheWalkDepth(t *testing.T) {
	rep, err := search.Run(context.Background(), counting, search.Options{Seed: 1, WalkDepth: 7, MaxPaths: 50})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f != nil {
		t.Fatalf("%v found on a system live after one step", f.Kind)
	}
	if st := rep.Stats; st.Depth != 6 || st.Stop != explore.StopDepth {
		t.Errorf("depth bound %d, stopped %v; want 6, %v", st.Depth, st.Stop, explore.StopDepth)
	}
}

// A strategy whose paths' bounded part is not below the walk depth is
// refused before it runs, naming the flag and its range.
func TestWalkDepthNotAboveTheStrategySteps(t *testing.T) {
	for _, strategy := range []string{"pct", "delay", "random"} {
		_, err := search.Run(context.Background(), counting, search.Options{Seed: 1, Strategy: strategy, WalkDepth: 100, MaxPaths: 5})
		var oe *search.OptionError
		if !errors.As(err, &oe) || oe.Flag != "walk-depth" {
			t.Errorf("%s with --walk-depth 100 (its steps: 100): %v, want an OptionError of --walk-depth", strategy, err)
		}
		if _, err := search.Run(context.Background(), counting, search.Options{Seed: 1, Strategy: strategy, WalkDepth: 101, MaxPaths: 5}); err != nil {
			t.Errorf("%s with --walk-depth 101: %v", strategy, err)
		}
	}
}
