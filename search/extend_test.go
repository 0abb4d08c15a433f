package search_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
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

// critical --trace with a d_max above the dead path's length walks
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
	for _, walkDepth := range []int{301, 1000} {
		_, err = search.RefineCritical(context.Background(), tr, search.CriticalOptions{WalkDepth: walkDepth, Workers: 1, Out: t.TempDir()})
		if !errors.Is(err, search.ErrNotDead) || !errors.Is(err, search.ErrInput) || strings.Count(err.Error(), "search:") != 1 {
			t.Errorf("d_max %d on a 100-step dead path of a system live from step 300: %v, want ErrNotDead", walkDepth, err)
		}
	}
	if _, err := search.RefineCritical(context.Background(), tr, search.CriticalOptions{WalkDepth: 200, Workers: 1, Out: t.TempDir()}); err != nil {
		t.Errorf("d_max 200, still short of step 300: %v", err)
	}
}

// critical --trace on a lasso walks its path on to d_max: the
// philosophers' livelock recovers (its states are transient: no critical
// transition, ErrNotDead), a system never live has a dead path to search.
func TestCriticalOfALasso(t *testing.T) {
	for _, c := range []struct {
		sys  *sim.System
		dead bool
	}{{system(t, "philosophers"), false}, {neverLive, true}} {
		dir := t.TempDir()
		rep, err := search.Run(context.Background(), c.sys, search.Options{Seed: 1, WalkDepth: 400, MaxPaths: 200, Walks: 5, Out: dir})
		if err != nil || rep.First() == nil || rep.First().Kind != search.KindLasso {
			t.Fatalf("%s: setup: %v, %+v", c.sys.Name, err, rep.First())
		}
		tr, err := trace.Read(filepath.Join(dir, "error.trace"))
		if err != nil {
			t.Fatal(err)
		}
		tr.Sys = c.sys
		refined, err := search.RefineCritical(context.Background(), tr, search.CriticalOptions{Workers: 1, Out: t.TempDir()})
		switch {
		case c.dead && err != nil:
			t.Errorf("%s: %v", c.sys.Name, err)
		case c.dead && refined.Critical == nil:
			t.Errorf("%s: no answer", c.sys.Name)
		case !c.dead && !errors.Is(err, search.ErrNotDead):
			t.Errorf("%s: %v, want ErrNotDead", c.sys.Name, err)
		}
	}
}

// thirtyTicks runs blinking's counter, live for its first 30 ticks only.
var thirtyTicks = &sim.System{
	Name: "thirtyticks",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &blinker{} },
			Liveness: []sim.Property{{Name: "Early", Check: func(v *sim.View) bool { return sim.Node[blinker](v, 0).C < 30 }}},
		}, nil
	},
}

// The critical transition is the 30th tick, and every event is a tick:
// dropping the first would leave a tick last, on a path ending in a live
// state. The minimized path must end dead: here it keeps all 30 ticks.
func TestMinimizedPathDoesNotEndLive(t *testing.T) {
	rep, err := search.Run(context.Background(), thirtyTicks, search.Options{Seed: 1, WalkDepth: 200, Minimize: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Critical == nil || f.Critical.Step != 30 || f.Minimized == nil {
		t.Fatalf("want the critical transition at step 30 and a minimized path: %+v", f)
	}
	if m := f.Minimized; m.StepsAfter != 30 {
		t.Errorf("minimized to %d steps (%v), want the 30 ticks", m.StepsAfter, m.Kept)
	}
}
