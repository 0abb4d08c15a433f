package servicetest

import (
	"testing"

	"github.com/macemc/macemc/sim/engine"
)

// Cycle is a schedule that should bring an execution round a hot, fair
// cycle: the lasso of a liveness violation (seed 000 §II), in which no
// state is live and every event enabled somewhere in the cycle is run in
// it.
type Cycle struct {
	// Steps picks the event of each step of the cycle.
	Steps []Match
	// Key names an event for the fairness check; events with the same
	// key count as the same event. Default: KeyOf.
	Key func(engine.Event) any
	// Before, when not nil, is called before each step (after the check
	// that the state is not live), with the run and step index.
	Before func(run, step int, s *engine.Sim)
	// After, when not nil, is called after each run, before the fairness
	// check.
	After func(run int, s *engine.Sim)
}

// Run runs the cycle runs times from s. The test fails if a state inside
// it is live, if no ready event matches a step, or if an event enabled in
// a run is not run in it.
func (c Cycle) Run(t testing.TB, s *engine.Sim, runs int) {
	t.Helper()
	key := c.Key
	if key == nil {
		key = func(e engine.Event) any { return KeyOf(e) }
	}
	for run := range runs {
		enabled, ran := map[any]engine.Event{}, map[any]bool{}
		for j, m := range c.Steps {
			if Live(t, s) {
				t.Fatalf("run %d step %d: live inside the cycle", run, j)
			}
			if c.Before != nil {
				c.Before(run, j, s)
			}
			for _, e := range s.Ready() {
				enabled[key(e)] = e
			}
			i := find(s, m)
			if i < 0 {
				t.Fatalf("run %d step %d: no ready event matches; ready: %v", run, j, s.Ready())
			}
			if err := s.StepEvent(i); err != nil {
				t.Fatal(err)
			}
			ran[key(s.LastEvent())] = true
		}
		if c.After != nil {
			c.After(run, s)
		}
		for k, e := range enabled {
			if !ran[k] {
				t.Fatalf("unfair cycle: %s (%v) enabled but never run", e, k)
			}
		}
	}
}
