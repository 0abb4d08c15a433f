package simtest

import (
	"time"

	"github.com/macemc/macemc/sim"
)

// SlowTickerPause is how long a SlowTicker's handler sleeps at every tick.
const SlowTickerPause = time.Millisecond

// SlowTicker is a node whose periodic timer's handler sleeps
// SlowTickerPause, for tests of time budgets: a step takes at least that on
// any machine, however fast, so the check before a search (a 1,000-step
// walk replayed up to 64 times side by side) takes over a second. It reads
// no clock and its state is the count of ticks: it is deterministic, only
// slow. It is a service, not a registered system: a test builds its own
// system around it.
type SlowTicker struct {
	sim.Base
	Ticks int
}

// Start sets the periodic timer.
func (b *SlowTicker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

// HandleTimer counts the tick and sleeps.
func (b *SlowTicker) HandleTimer(*sim.Context, string) {
	b.Ticks++
	time.Sleep(SlowTickerPause)
}
