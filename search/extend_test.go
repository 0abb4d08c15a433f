package search_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// slowCounting runs blinking's counter, live from its 300th tick.
var slowCounting = &sim.System{
	Name: "slowcounting",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &blinker{} },
			Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[blinker](v, 0).C >= 300 }}},
		}, nil
	},
}

// critical --trace with a d_max above twice the dead path's length walks
// the path on to it first: a system that only needed more steps is then
// not dead, rather than refused as too short for d_max.
func TestCriticalWalksTheDeadPathOn(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), slowCounting, search.Options{Seed: 1, WalkDepth: 100, MaxPaths: 5, NoCritical: true, Out: dir})
	if err != nil || rep.First() == nil {
		t.Fatalf("setup: %v, %v", err, rep)
	}
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tr.Sys = slowCounting
	_, err = search.RefineCritical(context.Background(), tr, search.CriticalOptions{WalkDepth: 1000, Workers: 1, Out: t.TempDir()})
	if !errors.Is(err, search.ErrNotDead) || !errors.Is(err, search.ErrInput) {
		t.Errorf("d_max 1000 on a 100-step dead path of a system live from step 300: %v, want ErrNotDead", err)
	}
	if _, err := search.RefineCritical(context.Background(), tr, search.CriticalOptions{WalkDepth: 200, Workers: 1, Out: t.TempDir()}); err != nil {
		t.Errorf("d_max 200 (twice the path): %v", err)
	}
}
