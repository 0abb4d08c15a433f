package walk

import (
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// Strategy is random walks from the initial state.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "walk" }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "weighted random walks of d_max steps from the initial state, no bounded part (MaceMC's simulator mode)"
}

// Params implements explore.Strategy.
func (Strategy) Params() []sim.ParamSpec { return nil }

// WalkOnly reports that every path is a walk, with no bounded part
// (explore.WalkOnly).
func (Strategy) WalkOnly() bool { return true }

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	return &explorer{seeds: explore.NewPathSeeds(s.Seed, seedSalt), rnd: engine.NewRandom(0)}, nil
}

// seedSalt separates the boot choices' random sequence from the walks'
// (walks.SeedFor(seed, i)).
const seedSalt = 0x77616c6b

type explorer struct {
	seeds explore.PathSeeds
	rnd   *engine.Random
}

// Next implements explore.Explorer: a path with no bounded part, which the
// executor continues with its seeded walk. Its scheduler answers only the
// choices the nodes make while they boot (Rand or Elapsed in Start), at
// random with the path's own seed, as the walk answers every later one.
func (e *explorer) Next(*explore.End) (explore.Path, bool) {
	e.rnd.Reseed(e.seeds.Next())
	return explore.Path{Round: 1, Scheduler: e.rnd}, true
}

// Status implements explore.Explorer.
func (e *explorer) Status() explore.Status { return explore.Status{Rounds: 1} }
