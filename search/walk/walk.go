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

// New implements explore.Strategy.
func (Strategy) New(explore.Setup) (explore.Explorer, error) { return explorer{}, nil }

type explorer struct{}

// Next implements explore.Explorer: a path with no bounded part, which the
// executor continues with its seeded walk.
func (explorer) Next(*explore.End) (explore.Path, bool) {
	return explore.Path{Round: 1, Scheduler: first{}}, true
}

// Status implements explore.Explorer.
func (explorer) Status() explore.Status { return explore.Status{Rounds: 1} }

// first answers every choice point with its first alternative; with no
// bounded part it is never asked.
type first struct{}

func (first) Choose(engine.ChoiceKind, int, []float64) int { return 0 }
