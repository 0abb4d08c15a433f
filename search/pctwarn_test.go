package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// pinger3 pings itself three times and is then done: a run of 4 steps.
type pinger3 struct {
	sim.Base
	N int
}

func (p *pinger3) Start(ctx *sim.Context) { ctx.Send(0, ping{}) }

func (p *pinger3) HandleMessage(ctx *sim.Context, _ sim.NodeID, _ sim.Message) {
	if p.N++; p.N < 3 {
		ctx.Send(0, ping{})
	}
}

var threePings = &sim.System{
	Name: "threepings",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &pinger3{} },
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[pinger3](v, 0).N == 3 }}},
		}, nil
	},
}

// PCT draws its change points over --pct-steps: when its schedules end far
// sooner, the search says so and which k fits them.
func TestPCTWarnsOfShortSchedules(t *testing.T) {
	for _, c := range []struct {
		steps string
		warn  bool
	}{{"100", true}, {"4", false}} {
		rep, err := search.Run(context.Background(), threePings, search.Options{Seed: 1, Strategy: "pct", MaxPaths: 30, WalkDepth: 200,
			StrategyParams: map[string]string{"steps": c.steps}})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range rep.Warnings {
			warned = warned || strings.Contains(w, "--pct-steps 3 draws them where the schedules run")
		}
		if warned != c.warn || rep.First() != nil {
			t.Errorf("--pct-steps %s: warned %v, want %v (%q); found %v", c.steps, warned, c.warn, rep.Warnings, rep.First())
		}
	}
}
