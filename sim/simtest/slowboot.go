package simtest

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SlowBootTimers is how many timers a SlowBoot node sets when it boots.
const SlowBootTimers = 20_000

// SlowBoot is a node that sets SlowBootTimers timers when it boots: every
// step then walks them, so the check before a search (a 1,000-step walk
// replayed up to 64 times side by side) takes over a second, for tests of
// time budgets. It is a service, not a registered system: a test builds
// its own system around it.
type SlowBoot struct {
	sim.Base
	Fired int
}

// Start sets the timers.
func (b *SlowBoot) Start(ctx *sim.Context) {
	for i := range SlowBootTimers {
		ctx.SetTimer(fmt.Sprintf("t%05d", i))
	}
}

// HandleTimer counts the timers that fired.
func (b *SlowBoot) HandleTimer(*sim.Context, string) { b.Fired++ }
