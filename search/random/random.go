package random

import (
	"fmt"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// DefaultSteps is the default length of a path's random bounded part.
const DefaultSteps = 100

// seedSalt separates the strategy's random sequence from the walks'
// (walks.SeedFor(seed, i)).
const seedSalt = 0x72616e646f6d

// Strategy is uniformly random schedules.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "random" }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "uniformly random schedules: every event and every Rand/Elapsed answer uniform in the bounded part, then the walk (seed 001's random scheduler)"
}

// Params implements explore.Strategy.
func (Strategy) Params() []sim.ParamSpec {
	return []sim.ParamSpec{
		{Name: "steps", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultSteps), Doc: "steps of each path's uniformly random bounded part (capped by --depth); a walk follows", Min: sim.Bound(1), Max: sim.Bound(explore.MaxSteps)},
	}
}

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	steps, err := s.Steps(DefaultSteps)
	if err != nil {
		return nil, err
	}
	r := engine.NewRandom(0)
	r.Unbiased = true
	return &explorer{steps: steps, seeds: explore.NewPathSeeds(s.Seed, seedSalt), rnd: r}, nil
}

type explorer struct {
	steps int
	seeds explore.PathSeeds
	rnd   *engine.Random
}

// Next implements explore.Explorer: path i chooses with its own seed.
func (e *explorer) Next(*explore.End) (explore.Path, bool) {
	e.rnd.Reseed(e.seeds.Next())
	return explore.Path{Round: 1, Depth: e.steps, Scheduler: e.rnd}, true
}

// Status implements explore.Explorer.
func (e *explorer) Status() explore.Status { return explore.Status{Rounds: 1, Depth: e.steps} }
