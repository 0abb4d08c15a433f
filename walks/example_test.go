package walks_test

import (
	"fmt"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// Example walks a counter that turns live after 5 ticks, checking liveness
// only beyond a search depth of 2.
func Example() {
	cfg := config(5)
	s, _ := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(walks.SeedFor(1, 0), false)})
	r := walks.Walk(s, &walks.Config{MaxSteps: 20000, LiveAfter: 2, Safety: cfg.Safety, Liveness: cfg.Liveness})
	fmt.Println(r.Outcome, "after", r.Steps, "steps")
	// Output: live after 5 steps
}
