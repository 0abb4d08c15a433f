package search

import (
	"context"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

type idle struct{ sim.Base }

// The critical-transition search of a minimized path walks from other
// seeds than the trace's: the minimization accepted the path because the
// walks of those seeds found its end dead. --seed still decides.
func TestRefineConfigSeeds(t *testing.T) {
	sys := &sim.System{Name: "idle", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &idle{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	dir := t.TempDir()
	rep, err := Run(context.Background(), sys, Options{Seed: 7, WalkDepth: 50, Out: dir, NoCritical: true})
	if err != nil || rep.First() == nil {
		t.Fatalf("run: %v, %v", err, rep)
	}
	tr, err := trace.Read(rep.Files[FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	tr.Sys = sys // a system of the test's, not registered
	seven := uint64(7)
	for _, c := range []struct {
		minimized bool
		seed      *uint64
		same      bool
	}{{false, nil, true}, {true, nil, false}, {true, &seven, true}} {
		cfg, err := refineConfig(tr, CriticalOptions{Seed: c.seed}, c.minimized)
		if err != nil {
			t.Fatal(err)
		}
		if (cfg.Seed == 7) != c.same {
			t.Errorf("minimized %v, --seed %v: seed %d", c.minimized, c.seed != nil, cfg.Seed)
		}
	}
}
